#!/usr/bin/env bash
# Build the Cinnabar container image from nothing with podman and smoke-test it.
#
#   scripts/docker-smoke.sh
#
# Idempotent: every step is skipped when its result already exists.
#   1. apt-installs podman, runc, debootstrap (+ netavark, aardvark-dns, iptables for
#      bridge networking / -p, and redis-tools for redis-cli) when missing.
#   2. Writes a private containers.conf (CONTAINERS_CONF) suited to this kind of sandbox:
#      runc, cgroupfs, file events log, ulimits capped at the machine's hard limits.
#   3. Creates the local base images (nothing is pulled from any registry):
#        cinnabar/runtime-base:bookworm  debootstrap minbase + openjdk-17-jre-headless
#                                         + ca-certificates, imported with podman import
#                                         (rootfs tarball cached in $CACHE_DIR)
#        cinnabar/build-base:bookworm    runtime-base + maven + openjdk-17-jdk-headless
#                                         (docker/build-base.Containerfile)
#   4. Copies the host's extra CA certificates into docker/certs/ and its Maven
#      settings (or a proxy-only settings.xml made from $https_proxy) into docker/maven/.
#   5. podman build -f docker/Dockerfile -t $IMAGE .
#   6. Runs the image with -p 127.0.0.1:<free port>:6379, waits for redis-cli PING to
#      answer PONG, checks SET/GET (warning only) and that the server runs as user
#      'cinnabar', then stops and removes the container.
# Exit status 0 on success; on failure the container's logs are printed.
#
# Environment:
#   IMAGE=cinnabar:dev             tag of the image to build
#   CACHE_DIR=~/.cache/cinnabar-docker
#   DEBIAN_MIRROR=<url>            default: the first bookworm mirror in the apt sources
#   SMOKE_NETWORK=auto|bridge|slirp4netns|host
#                                  auto = bridge, falling back to slirp4netns and then to
#                                  --network host with --port <free port>, if the container
#                                  cannot be started with the previous one
#   SMOKE_TIMEOUT=60               seconds to wait for PONG
#   REBUILD_BASE=1                 recreate the base images (and the rootfs tarball)
#   SMOKE_ONLY=1                   skip steps 3-5: only smoke-test the existing $IMAGE
set -euo pipefail

IMAGE=${IMAGE:-cinnabar:dev}
CACHE_DIR=${CACHE_DIR:-$HOME/.cache/cinnabar-docker}
SMOKE_NETWORK=${SMOKE_NETWORK:-auto}
SMOKE_TIMEOUT=${SMOKE_TIMEOUT:-60}
REBUILD_BASE=${REBUILD_BASE:-0}
SMOKE_ONLY=${SMOKE_ONLY:-0}
SUITE=bookworm
RUNTIME_BASE=cinnabar/runtime-base:$SUITE
BUILD_BASE=cinnabar/build-base:$SUITE
RUNTIME_PACKAGES=openjdk-17-jre-headless,ca-certificates

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO_ROOT"

T_START=$(date +%s)
declare -a TIMINGS=()
phase_start() { PHASE_NAME=$1; PHASE_T0=$(date +%s); echo "==> $1"; }
phase_end() { TIMINGS+=("$(printf '%-28s %4ss' "$PHASE_NAME" $(( $(date +%s) - PHASE_T0 )))"); }
die() { echo "docker-smoke: ERROR: $*" >&2; exit 1; }

CONTAINER=cinnabar-smoke-$$
print_timings() {
    echo
    echo "timings:"
    [ ${#TIMINGS[@]} -eq 0 ] || printf '  %s\n' "${TIMINGS[@]}"
    printf '  %-28s %4ss\n' total $(( $(date +%s) - T_START ))
}
cleanup() {
    local rc=$?
    if command -v podman >/dev/null && podman container exists "$CONTAINER" 2>/dev/null; then
        if [ $rc -ne 0 ]; then
            echo "----- podman logs $CONTAINER -----" >&2
            podman logs "$CONTAINER" >&2 2>&1 || true
            echo "----------------------------------" >&2
        fi
        podman stop -t 10 "$CONTAINER" >/dev/null 2>&1 || true
        podman rm -f "$CONTAINER" >/dev/null 2>&1 || true
    fi
    [ $rc -eq 0 ] || { [ -z "${PHASE_NAME:-}" ] || echo "docker-smoke: FAILED in phase '$PHASE_NAME'" >&2; print_timings >&2; }
    exit $rc
}
trap cleanup EXIT

[ "$(id -u)" -eq 0 ] || die "run as root (rootful podman, debootstrap)"

APT="apt-get -o DPkg::Lock::Timeout=600"

##################################################################### 1. packages
phase_start "packages"
need=()
for pkg in podman runc debootstrap netavark aardvark-dns iptables redis-tools; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' \
        || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
    echo "installing: ${need[*]}"
    $APT update -qq
    DEBIAN_FRONTEND=noninteractive $APT install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
phase_end

##################################################################### 2. containers.conf
mkdir -p "$CACHE_DIR"
hard_nofile=$(ulimit -Hn); [ "$hard_nofile" = unlimited ] && hard_nofile=1048576
hard_nproc=$(ulimit -Hu);  [ "$hard_nproc" = unlimited ] && hard_nproc=32768
[ "$hard_nproc" -gt 32768 ] && hard_nproc=32768
export CONTAINERS_CONF=$CACHE_DIR/containers.conf
cat > "$CONTAINERS_CONF.tmp" <<EOF
# Written by scripts/docker-smoke.sh; used through CONTAINERS_CONF only.
[containers]
# podman's default (nofile=1048576) is above this machine's hard limit.
default_ulimits = ["nofile=$hard_nofile:$hard_nofile", "nproc=$hard_nproc:$hard_nproc"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"

[network]
# bridge networking (and -p) through netavark, which needs the iptables binary.
network_backend = "netavark"
EOF
mv "$CONTAINERS_CONF.tmp" "$CONTAINERS_CONF"
BUILD_FLAGS=(--isolation chroot --network host --pull=never)

if [ "$SMOKE_ONLY" = 1 ]; then
    podman image exists "$IMAGE" || die "SMOKE_ONLY=1 but there is no image $IMAGE"
    echo "==> SMOKE_ONLY=1: testing the existing $IMAGE"
else
##################################################################### 3. base images
detect_mirror() {
    local f uri
    # deb822 .sources: first URIs of a stanza whose Suites contain the suite itself
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        uri=$(awk -v s="$SUITE" '
            BEGIN { RS=""; FS="\n" }
            {
                uris=""; ok=0; en=1
                for (i = 1; i <= NF; i++) {
                    if ($i ~ /^URIs:/)    { sub(/^URIs:[ \t]*/, "", $i); split($i, u, /[ \t]+/); uris=u[1] }
                    if ($i ~ /^Suites:/)  { n=split($i, a, /[ \t]+/); for (j = 2; j <= n; j++) if (a[j] == s) ok=1 }
                    if ($i ~ /^Enabled:[ \t]*no/) en=0
                }
                if (ok && en && uris != "") { print uris; exit }
            }' "$f")
        [ -n "$uri" ] && { echo "$uri"; return; }
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        uri=$(awk -v s="$SUITE" '$1 == "deb" {
                i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                if ($(i+1) == s) { print $i; exit } }' "$f")
        [ -n "$uri" ] && { echo "$uri"; return; }
    done
    echo "http://deb.debian.org/debian"
}

if [ "$REBUILD_BASE" = 1 ]; then
    podman rmi -f "$BUILD_BASE" "$RUNTIME_BASE" >/dev/null 2>&1 || true
    rm -f "$CACHE_DIR/runtime-base-$SUITE.tar"
fi

phase_start "runtime-base image"
if podman image exists "$RUNTIME_BASE"; then
    echo "$RUNTIME_BASE exists"
else
    tarball=$CACHE_DIR/runtime-base-$SUITE.tar
    if [ ! -s "$tarball" ]; then
        mirror=${DEBIAN_MIRROR:-$(detect_mirror)}
        rootfs=$CACHE_DIR/rootfs-runtime-$SUITE
        echo "debootstrap $SUITE from $mirror (log: $CACHE_DIR/debootstrap.log)"
        rm -rf "$rootfs"
        if ! debootstrap --variant=minbase --include="$RUNTIME_PACKAGES" \
                "$SUITE" "$rootfs" "$mirror" > "$CACHE_DIR/debootstrap.log" 2>&1; then
            tail -n 30 "$CACHE_DIR/debootstrap.log" >&2
            die "debootstrap failed"
        fi
        # podman provides these at run time; drop the host's copies and the .deb cache.
        rm -f "$rootfs/etc/resolv.conf" "$rootfs/etc/hostname"
        rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
               "$rootfs"/var/log/*.log "$rootfs"/tmp/* 2>/dev/null || true
        # Slim like debian:*-slim: no man pages, info, translations or docs (copyright
        # files kept), now and for packages installed later (build-base).
        cat > "$rootfs/etc/dpkg/dpkg.cfg.d/docker-slim" <<'DPKG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
DPKG
        # Files only: directories stay (update-alternatives needs /usr/share/man/man1 when
        # the JDK is installed on top).
        find "$rootfs/usr/share/doc" "$rootfs/usr/share/man" "$rootfs/usr/share/info" \
             "$rootfs/usr/share/locale" -mindepth 1 ! -type d \
             ! -name copyright ! -name locale.alias -delete 2>/dev/null || true
        tar -C "$rootfs" --numeric-owner -cf "$tarball.tmp" .
        mv "$tarball.tmp" "$tarball"
        rm -rf "$rootfs"
    fi
    podman import -q \
        --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'ENV LANG=C.UTF-8' \
        --change 'CMD ["/bin/bash"]' \
        - "$RUNTIME_BASE" < "$tarball" >/dev/null
    echo "imported $RUNTIME_BASE"
fi
phase_end

phase_start "build-base image"
mkdir -p "$CACHE_DIR/empty-context"
if podman image exists "$BUILD_BASE"; then
    echo "$BUILD_BASE exists"
else
    podman build "${BUILD_FLAGS[@]}" --build-arg RUNTIME_BASE="$RUNTIME_BASE" \
        -f docker/build-base.Containerfile -t "$BUILD_BASE" "$CACHE_DIR/empty-context"
fi
phase_end

##################################################################### 4. host CA certs / Maven settings
phase_start "host certs + maven settings"
certs_dir=docker/certs
find "$certs_dir" -mindepth 1 ! -name .gitignore -delete
declare -A seen_fp=()
add_cert() {  # add_cert <pem file> <name>
    local fp
    fp=$(openssl x509 -in "$1" -noout -fingerprint -sha256 2>/dev/null | cut -d= -f2 | tr -d :) || return 0
    [ -n "$fp" ] || return 0
    [ -z "${seen_fp[$fp]:-}" ] || return 0
    seen_fp[$fp]=1
    openssl x509 -in "$1" -out "$certs_dir/$(echo "$2" | tr -c 'A-Za-z0-9_.\n-' _).crt"
}
# a) locally added CAs (what update-ca-certificates adds to the stock bundle)
while IFS= read -r -d '' f; do
    add_cert "$f" "local-$(basename "${f%.crt}")"
done < <(find /usr/local/share/ca-certificates -name '*.crt' -type f -print0 2>/dev/null)
# b) CA certificates dropped straight into /etc/ssl/certs (not from ca-certificates)
for f in /etc/ssl/certs/*.pem /etc/ssl/certs/*.crt; do
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    case $(basename "$f") in ca-certificates.crt|ssl-cert-snakeoil.pem) continue ;; esac
    openssl x509 -in "$f" -noout -ext basicConstraints 2>/dev/null | grep -q 'CA:TRUE' || continue
    add_cert "$f" "etc-$(basename "${f%.*}")"
done
# c) entries added to the JVM's cacerts by hand (Debian's own entries are "debian:*")
if command -v keytool >/dev/null 2>&1; then
    while IFS= read -r alias; do
        keytool -exportcert -rfc -cacerts -storepass changeit -alias "$alias" \
            > "$CACHE_DIR/jks-export.pem" 2>/dev/null && add_cert "$CACHE_DIR/jks-export.pem" "jks-$alias"
    done < <(keytool -list -cacerts -storepass changeit 2>/dev/null \
                 | awk -F', ' '/trustedCertEntry/ && $1 !~ /^debian:/ { print $1 }')
    rm -f "$CACHE_DIR/jks-export.pem"
fi
echo "extra CA certificates: $(find "$certs_dir" -name '*.crt' | wc -l)"

maven_dir=docker/maven
find "$maven_dir" -mindepth 1 ! -name .gitignore -delete
if [ -f "$HOME/.m2/settings.xml" ]; then
    cp "$HOME/.m2/settings.xml" "$maven_dir/settings.xml"
    echo "using $HOME/.m2/settings.xml"
elif [ -n "${https_proxy:-${HTTPS_PROXY:-${http_proxy:-${HTTP_PROXY:-}}}}" ]; then
    # Maven ignores *_proxy variables; translate them into a settings.xml.
    proxy_xml() {  # proxy_xml <id> <protocol> <url>
        local rest=${3#*://} auth="" hostport host port
        rest=${rest%%/*}
        case $rest in *@*) auth=${rest%@*}; rest=${rest#*@} ;; esac
        hostport=$rest; host=${hostport%:*}; port=${hostport##*:}
        [ "$host" = "$hostport" ] && port=80
        echo "    <proxy><id>$1</id><active>true</active><protocol>$2</protocol><host>$host</host><port>$port</port>"
        [ -n "$auth" ] && echo "      <username>${auth%%:*}</username><password>${auth#*:}</password>"
        echo "      <nonProxyHosts>$(echo "${no_proxy:-${NO_PROXY:-localhost}}" | tr , '|')</nonProxyHosts></proxy>"
    }
    {
        echo '<settings><proxies>'
        p=${https_proxy:-${HTTPS_PROXY:-}}; [ -n "$p" ] && proxy_xml https-proxy https "$p"
        p=${http_proxy:-${HTTP_PROXY:-}};   [ -n "$p" ] && proxy_xml http-proxy http "$p"
        echo '</proxies></settings>'
    } > "$maven_dir/settings.xml"
    echo "generated a proxy settings.xml from the *_proxy environment"
else
    echo "no Maven settings.xml / proxy on this host: Maven uses Central directly"
fi
phase_end

##################################################################### 5. image
phase_start "podman build $IMAGE"
# podman build also forwards the host's *_proxy variables to RUN steps by default.
podman build "${BUILD_FLAGS[@]}" -f docker/Dockerfile -t "$IMAGE" .
phase_end

fi  # SMOKE_ONLY

##################################################################### 6. smoke test
free_port() {
    local p
    for _ in $(seq 1 100); do
        p=$(( 20000 + RANDOM % 20000 ))
        ss -Htln "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return; }
    done
    die "no free port found"
}


start_container() {  # start_container <mode> <port>; only loopback is ever published
    local mode=$1 port=$2
    podman rm -f "$CONTAINER" >/dev/null 2>&1 || true
    case $mode in
        bridge)      podman run -d --name "$CONTAINER" -p "127.0.0.1:$port:6379" "$IMAGE" ;;
        slirp4netns) podman run -d --name "$CONTAINER" --network slirp4netns:port_handler=slirp4netns \
                         -p "127.0.0.1:$port:6379" "$IMAGE" ;;
        host)        podman run -d --name "$CONTAINER" --network host "$IMAGE" \
                         java @/etc/cinnabar/jvm.options -jar /opt/cinnabar/cinnabar.jar /etc/cinnabar/cinnabar.conf \
                         --bind 127.0.0.1 --protected-mode no --dir /data --port "$port" ;;
        *) die "unknown SMOKE_NETWORK mode $mode" ;;
    esac >/dev/null
}

phase_start "smoke test"
PORT=$(free_port)
if [ "$SMOKE_NETWORK" = auto ]; then modes=(bridge slirp4netns host); else modes=("$SMOKE_NETWORK"); fi
started=""
for mode in "${modes[@]}"; do
    if start_container "$mode" "$PORT"; then started=$mode; break; fi
    echo "could not start the container with network mode '$mode'" >&2
done
[ -n "$started" ] || die "the container could not be started"
echo "container $CONTAINER running (network: $started), 127.0.0.1:$PORT -> 6379"

pong=""
deadline=$(( $(date +%s) + SMOKE_TIMEOUT ))
while [ "$(date +%s)" -lt "$deadline" ]; do
    if [ "$(podman inspect -f '{{.State.Running}}' "$CONTAINER" 2>/dev/null)" != true ]; then
        die "container exited: $(podman inspect -f 'status={{.State.Status}} exit={{.State.ExitCode}}' "$CONTAINER" 2>/dev/null)"
    fi
    pong=$(timeout 5 redis-cli -h 127.0.0.1 -p "$PORT" ping 2>/dev/null || true)
    [ "$pong" = PONG ] && break
    sleep 0.5
done
[ "$pong" = PONG ] || die "no PONG from 127.0.0.1:$PORT within ${SMOKE_TIMEOUT}s (last reply: '${pong}')"
echo "redis-cli -h 127.0.0.1 -p $PORT ping -> $pong"

user=$(podman exec "$CONTAINER" id -un)
[ "$user" = cinnabar ] || die "server runs as '$user', expected 'cinnabar'"
echo "container user: $user"

if [ "$(timeout 5 redis-cli -h 127.0.0.1 -p "$PORT" set cinnabar:smoke ok 2>/dev/null)" = OK ] \
   && [ "$(timeout 5 redis-cli -h 127.0.0.1 -p "$PORT" get cinnabar:smoke 2>/dev/null)" = ok ]; then
    echo "SET/GET round trip: ok"
else
    echo "WARNING: SET/GET round trip failed (not required by the smoke test)" >&2
fi
phase_end

print_timings
echo "docker-smoke: OK ($IMAGE, network $started)"
