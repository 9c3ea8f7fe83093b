#!/usr/bin/env bash
# heap-limit.sh - running out of heap is not a hang (prints the sequence, asserts nothing).
#
# Starts Cinnabar with -Xmx256m and no maxmemory, loads ~2 GB of 1 KB values (pipelined SETs
# over distinct keys), and prints: how many writes were stored and how many were refused with
# OOM (and the first refusal's text); that PING and GET keep answering while writes are refused;
# that FLUSHALL brings it back to accepting writes (and how long the first write took to be
# accepted again: the heap's garbage goes back in a concurrent collection); and that the process
# is still alive and answering at the end.
#
#   scripts/heap-limit.sh
#   HL_LOAD_MB=600 scripts/heap-limit.sh    # brief
#
# Environment: HL_LOAD_MB (2048), HL_XMX (256m). Cinnabar runs with conf/jvm.options plus -Xmx.
set -euo pipefail

repo="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
jar="$repo/target/cinnabar.jar"
load_mb="${HL_LOAD_MB:-2048}"
xmx="${HL_XMX:-256m}"
work="$(mktemp -d)"
redis_pid="" cinnabar_pid=""

# shellcheck source=lib/servers.sh
source "$repo/scripts/lib/servers.sh"
trap stop_servers EXIT
command -v redis-cli >/dev/null || { echo "needs redis-cli (redis-tools)" >&2; exit 2; }
[[ -f $jar ]] || (cd "$repo" && mvn -q -B package -DskipTests)

port="$(free_port)"
CINNABAR_JAVA_OPTS="${CINNABAR_JAVA_OPTS:-} -Xmx$xmx" start_fresh_server cinnabar "$port"
echo "cinnabar -Xmx$xmx, maxmemory $(redis-cli -p "$port" config get maxmemory | tail -1), port $port"

python3 - "$port" "$load_mb" "$repo/scripts/lib" <<'PY'
import sys, time
port, load_mb, lib = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
sys.path.insert(0, lib)
import resp
conn = resp.Connection(port)
value = b"v" * 1024
batch = 1000
stored = refused = other = 0
first_oom = None
last_stored = None
start = time.time()
for b in range(load_mb * 1024 // batch):
    keys = [b"key:%d" % (b * batch + i) for i in range(batch)]
    conn.send([(b"SET", k, value) for k in keys])
    for k in keys:
        r = conn.read()
        if isinstance(r, resp.ServerError):
            if str(r).startswith("OOM"):
                refused += 1
                first_oom = first_oom or str(r)
            else:
                other += 1
        else:
            stored += 1
            last_stored = k
    if refused and b % 200 == 0:
        # While writes are refused, reads and PING must go on.
        assert conn.call(b"PING") == "PONG"
print("load: %d MB offered in %.1f s: %d SETs stored, %d refused with OOM, %d other errors"
      % (load_mb, time.time() - start, stored, refused, other))
if first_oom:
    print("  first refusal: -%s" % first_oom)
print("PING -> %s" % conn.call(b"PING"))
got = conn.call(b"GET", last_stored) if last_stored else None
print("GET %s -> %s" % (last_stored.decode() if last_stored else "-", "%d bytes" % len(got) if got else got))
r = conn.call(b"SET", b"probe", b"x")
print("SET probe before FLUSHALL -> %s" % (("-" + r) if isinstance(r, resp.ServerError) else r))
print("FLUSHALL -> %s" % conn.call(b"FLUSHALL"))
t = time.time()
while True:
    r = conn.call(b"SET", b"probe", value)
    if not isinstance(r, resp.ServerError) or time.time() - t > 30:
        break
    time.sleep(0.05)
print("SET probe after FLUSHALL -> %s (after %.2f s)"
      % (("-" + r) if isinstance(r, resp.ServerError) else r, time.time() - t))
n = 0
for i in range(10000):
    conn.send([(b"SET", b"again:%d" % i, value)])
    n += 0 if isinstance(conn.read(), resp.ServerError) else 1
print("10000 more SETs after FLUSHALL: %d stored" % n)
PY
echo "process alive: $(kill -0 "$cinnabar_pid" 2>/dev/null && echo yes || echo no), PING -> $(redis-cli -p "$port" ping)"
echo "used_memory $(redis-cli -p "$port" info memory | tr -d '\r' | awk -F: '$1 == "used_memory_human" { print $2 }')," \
     "RSS $(( $(awk '$1 == "VmRSS:" { print $2 }' "/proc/$cinnabar_pid/status") / 1024 )) MB"
stop_fresh_server cinnabar "$port"
