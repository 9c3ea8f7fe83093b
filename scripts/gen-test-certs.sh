#!/usr/bin/env bash
# gen-test-certs.sh - test certificates for Cinnabar's TLS port, the files Redis's test suite
# expects in tests/tls (what Redis's utils/gen-test-certs.sh makes there).
#
# Usage: scripts/gen-test-certs.sh [DIR]        (default: target/tls)
#
# Writes into DIR:
#   ca.crt ca.key          a self-signed certificate authority
#   redis.crt redis.key    signed by it, no usage restriction (server and client)
#   server.crt server.key  signed by it, for TLS servers only
#   client.crt client.key  signed by it, for TLS clients only
#   redis.dh               Diffie-Hellman parameters (the RFC 7919 ffdhe2048 group: no slow search)
#   openssl.cnf            the extensions used for server/client certificates
# Existing keys are kept (certificates are signed again), so a rerun does not invalidate keys
# handed out elsewhere. Needs openssl (1.1 or 3.x). Keys are written as openssl genrsa writes
# them: PKCS#8 ("BEGIN PRIVATE KEY") with OpenSSL 3, PKCS#1 ("BEGIN RSA PRIVATE KEY") with 1.1;
# Cinnabar reads both.
set -euo pipefail

DIR=${1:-target/tls}
command -v openssl >/dev/null 2>&1 || { echo "gen-test-certs.sh: openssl not found (apt-get install -y openssl)" >&2; exit 2; }
mkdir -p "$DIR"
cd "$DIR"

key() { [ -f "$1" ] || openssl genrsa -out "$1" "$2" 2>/dev/null; }

key ca.key 4096
openssl req -x509 -new -nodes -sha256 -key ca.key -days 3650 \
    -subj '/O=Cinnabar Test/CN=Certificate Authority' -out ca.crt

cat >openssl.cnf <<'EOF'
[ server_cert ]
keyUsage = digitalSignature, keyEncipherment
nsCertType = server

[ client_cert ]
keyUsage = digitalSignature, keyEncipherment
nsCertType = client
EOF

# sign NAME COMMON-NAME [x509 options...]: NAME.key (made if missing) certified by the CA as NAME.crt
sign() {
    local name=$1 cn=$2
    shift 2
    key "$name.key" 2048
    openssl req -new -sha256 -subj "/O=Cinnabar Test/CN=$cn" -key "$name.key" |
        openssl x509 -req -sha256 -CA ca.crt -CAkey ca.key -CAserial ca.txt -CAcreateserial \
            -days 365 "$@" -out "$name.crt" 2>/dev/null
}

sign server "Server-only" -extfile openssl.cnf -extensions server_cert
sign client "Client-only" -extfile openssl.cnf -extensions client_cert
sign redis "Generic-cert"

if [ ! -f redis.dh ]; then
    openssl genpkey -genparam -algorithm DH -pkeyopt group:ffdhe2048 -out redis.dh 2>/dev/null ||
        openssl dhparam -out redis.dh 2048 2>/dev/null
fi
echo "gen-test-certs.sh: certificates in $PWD"
