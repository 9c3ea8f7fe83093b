#!/usr/bin/env bash
# Memory beside real Redis for the same data, loaded the same way into each server in one run:
#   1M small members into one hash, one set and one sorted set, and 1M keys each holding a
#   10-field hash. Prints RSS (from /proc) 1 s and 10 s after each step, and the server's own used_memory.
#
#   scripts/memory-check.sh              # N=1000000
#   MEM_N=100000 scripts/memory-check.sh # smaller, faster
#
# Cinnabar runs with the JVM flags of conf/jvm.options (as the README starts it); CINNABAR_GC_OPTS
# replaces that file and CINNABAR_JAVA_OPTS adds to it.
set -euo pipefail

repo="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
jar="$repo/target/cinnabar.jar"
n="${MEM_N:-1000000}"
work="$(mktemp -d)"
redis_pid="" cinnabar_pid=""

# shellcheck source=lib/servers.sh
source "$repo/scripts/lib/servers.sh"
trap stop_servers EXIT

require_redis_and_jar


# RESP command streams, generated once and fed to both servers with redis-cli --pipe.
gen() { # kind
    python3 - "$1" "$n" <<'PY'
import sys
kind, n = sys.argv[1], int(sys.argv[2])
out = sys.stdout.buffer
def cmd(*args):
    parts = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(a), a))
    out.write(b"".join(parts))
chunk = 1000
if kind == "hash":
    for s in range(0, n, chunk):
        args = []
        for i in range(s, min(n, s + chunk)):
            args += ["field:%d" % i, "value:%d" % i]
        cmd("HSET", "bighash", *args)
elif kind == "set":
    for s in range(0, n, chunk):
        cmd("SADD", "bigset", *["member:%d" % i for i in range(s, min(n, s + chunk))])
elif kind == "zset":
    for s in range(0, n, chunk):
        args = []
        for i in range(s, min(n, s + chunk)):
            args += [i, "member:%d" % i]
        cmd("ZADD", "bigzset", *args)
elif kind == "smallhashes":
    for i in range(n):
        args = []
        for f in range(10):
            args += ["f%d" % f, "v%d" % f]
        cmd("HSET", "user:%d" % i, *args)
PY
}

steps=(hash set zset smallhashes)
for s in "${steps[@]}"; do gen "$s" >"$work/$s.resp"; done

rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }
used() { redis-cli -p "$1" info memory | awk -F: '/^used_memory:/ {gsub("\r",""); print $2}'; }

# One line per step: RSS 1 s after it, used_memory, RSS 10 s after it. A JVM's RSS 1 s after a
# bulk load still holds the requests' garbage (after the 1M 10-field hashes: 1081 MB at 1 s, 522 MB
# at 10 s); the heap goes back within seconds, so both are shown.
measure() { # name pid port -> $work/<name>.tsv
    local name=$1 pid=$2 port=$3 s rss
    : >"$work/$name.tsv"
    for s in start "${steps[@]}"; do
        [[ $s == start ]] || redis-cli -p "$port" --pipe <"$work/$s.resp" >/dev/null
        sleep 1
        rss="$(rss_kb "$pid")"
        sleep 9
        printf '%s\t%s\t%s\t%s\n' "$s" "$rss" "$(used "$port")" "$(rss_kb "$pid")" >>"$work/$name.tsv"
    done
}

redis_port=$(free_port)
(cd "$work" && exec redis-server --port "$redis_port" --save "" --appendonly no --daemonize no >/dev/null) &
redis_pid=$!
wait_ready "$redis_port"
measure redis "$redis_pid" "$redis_port"
kill "$redis_pid"; wait "$redis_pid" 2>/dev/null || true; redis_pid=""

cin_port=$(free_port)
# shellcheck disable=SC2086
(cd "$work" && exec java ${CINNABAR_GC_OPTS:-@$repo/conf/jvm.options} ${CINNABAR_JAVA_OPTS:-} \
    -jar "$jar" --port "$cin_port" --save "" >/dev/null) &
cinnabar_pid=$!
wait_ready "$cin_port"
measure cinnabar "$cinnabar_pid" "$cin_port"

echo
echo "Memory after each step (N=$n; RSS in MB from /proc 1 s and 10 s after the step, used = the server's INFO used_memory in MB)"
printf '%-34s %10s %10s %6s %10s %10s %6s %10s %10s\n' "step" "redis 1s" "cinn. 1s" "ratio" "redis 10s" "cinn. 10s" "ratio" \
    "redis used" "cinn. used"
paste "$work/redis.tsv" "$work/cinnabar.tsv" | while IFS=$'\t' read -r s r_rss r_used r_settled _ c_rss c_used c_settled; do
    case $s in
        start) label="empty server" ;;
        hash) label="+ 1 hash with N fields" ;;
        set) label="+ 1 set with N members" ;;
        zset) label="+ 1 sorted set with N members" ;;
        smallhashes) label="+ N keys of 10-field hashes" ;;
    esac
    awk -v l="$label" -v rr="$r_rss" -v cr="$c_rss" -v rs="$r_settled" -v cs="$c_settled" -v ru="$r_used" -v cu="$c_used" 'BEGIN {
        printf "%-34s %10.1f %10.1f %6.2f %10.1f %10.1f %6.2f %10.1f %10.1f\n", l, rr/1024, cr/1024, cr/rr, rs/1024, cs/1024, cs/rs,
            ru/1048576, cu/1048576 }'
done
