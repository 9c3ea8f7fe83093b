#!/usr/bin/env bash
# eviction-bench.sh - maxmemory and allkeys-lru beside real Redis, in one run (prints, asserts nothing).
#
# Each server starts with maxmemory 100mb and maxmemory-policy allkeys-lru, is loaded with ~1 GB
# of 1 KB values by redis-benchmark (SET key:<random> over as many keys as values), and then
# serves a Zipf-distributed read load (exponent 0.99 over the same key space) as a cache: a GET
# that misses writes the value back. Prints RSS right after the load, 5 s later (a JVM gives
# garbage back in a concurrent cycle once the load stops), and at its peak (VmHWM); the server's
# used_memory and evicted_keys; and the hit rate of the read phase (after a warm-up).
# Targets of issue 10: RSS within ~1.5x the limit; hit rate within 5 points of Redis's.
#
#   scripts/eviction-bench.sh
#   EVB_LOAD_MB=200 EVB_READS=100000 scripts/eviction-bench.sh    # brief
#
# Environment: EVB_MAXMEMORY (100mb), EVB_LOAD_MB (1024), EVB_READS (500000, plus as many again
# to warm up), EVB_ZIPF (0.99). Cinnabar runs with conf/jvm.options (CINNABAR_JAVA_OPTS adds).
set -euo pipefail

repo="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
jar="$repo/target/cinnabar.jar"
maxmemory="${EVB_MAXMEMORY:-100mb}"
load_mb="${EVB_LOAD_MB:-1024}"
reads="${EVB_READS:-500000}"
zipf="${EVB_ZIPF:-0.99}"
values=$((load_mb * 1024))
work="$(mktemp -d)"
redis_pid="" cinnabar_pid=""

# shellcheck source=lib/servers.sh
source "$repo/scripts/lib/servers.sh"
trap stop_servers EXIT

command -v redis-server >/dev/null || { echo "needs redis-server and redis-tools" >&2; exit 2; }
command -v redis-benchmark >/dev/null || { echo "needs redis-benchmark (redis-tools)" >&2; exit 2; }
[[ -f $jar ]] || (cd "$repo" && mvn -q -B package -DskipTests)

kb() { awk -v f="$2" '$1 == f":" { print $2 }' "/proc/$1/status"; }
info() { redis-cli -p "$1" info "$2" | tr -d '\r' | awk -F: -v f="$3" '$1 == f { print $2 }'; }

# Zipf reads as a cache: GET in pipelined batches, SET back what missed; prints "hits reads oom".
read_load() { # port
    python3 - "$1" "$values" "$reads" "$zipf" "$repo/scripts/lib" <<'PY'
import bisect, random, sys
port, keys, reads, s, lib = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
sys.path.insert(0, lib)
import resp
rnd = random.Random(42)
cdf, total = [], 0.0
for rank in range(1, keys + 1):
    total += rank ** -s
    cdf.append(total)
# Popularity is spread over the key space, not concentrated on low key numbers.
perm = list(range(keys))
rnd.shuffle(perm)
conn = resp.Connection(port)
value = b"v" * 1024
batch = 500
hits = measured = oom = 0
for phase in ("warm-up", "measure"):
    for _ in range(reads // batch):
        names = [b"key:%012d" % perm[bisect.bisect_left(cdf, rnd.random() * total)] for _ in range(batch)]
        conn.send([(b"GET", k) for k in names])
        replies = [conn.read() for _ in names]
        missed = [k for k, r in zip(names, replies) if r is None]
        if missed:
            conn.send([(b"SET", k, value) for k in missed])
            oom += sum(1 for _ in missed if isinstance(conn.read(), resp.ServerError))
        if phase == "measure":
            hits += batch - len(missed)
            measured += batch
print(hits, measured, oom)
PY
}

declare -A rss_load rss_settled rss_peak used evicted hitrate
run() { # server
    local port pid h
    port="$(free_port)"
    start_fresh_server "$1" "$port" --maxmemory "$maxmemory" --maxmemory-policy allkeys-lru
    if [[ $1 == redis ]]; then pid=$redis_pid; else pid=$cinnabar_pid; fi
    echo "$1: loading $load_mb MB ..." >&2
    redis-benchmark -p "$port" -t set -n "$values" -r "$values" -d 1024 -P 16 -c 4 -q >/dev/null
    rss_load[$1]=$(( $(kb "$pid" VmRSS) / 1024 ))
    sleep 5
    rss_settled[$1]=$(( $(kb "$pid" VmRSS) / 1024 ))
    echo "$1: reading ..." >&2
    read -r -a h <<<"$(read_load "$port")"
    rss_peak[$1]=$(( $(kb "$pid" VmHWM) / 1024 ))
    used[$1]="$(info "$port" memory used_memory_human)"
    evicted[$1]="$(info "$port" stats evicted_keys)"
    hitrate[$1]="$(awk -v h="${h[0]}" -v n="${h[1]}" 'BEGIN { printf "%.1f%%", n ? 100 * h / n : 0 }')"
    [[ ${h[2]} -gt 0 ]] && echo "$1: ${h[2]} write-backs refused (OOM)" >&2
    stop_fresh_server "$1" "$port"
}

run redis
run cinnabar

limit_mb="$(awk -v m="$maxmemory" 'BEGIN { n = m + 0; u = tolower(m); if (u ~ /gb$/) n *= 1024; else if (u ~ /kb$/) n /= 1024; else if (u !~ /mb$/) n /= 1048576; print n }')"
echo
echo "maxmemory $maxmemory, allkeys-lru; $load_mb MB of 1 KB values loaded; $reads Zipf($zipf) reads measured"
printf "%-9s %15s %12s %11s %10s %12s %13s %9s\n" server rss_after_load rss_5s_later rss_peak \
    rss/limit used_memory evicted_keys hit_rate
for s in redis cinnabar; do
    printf "%-9s %12s MB %9s MB %8s MB %9.2fx %12s %13s %9s\n" "$s" "${rss_load[$s]}" "${rss_settled[$s]}" \
        "${rss_peak[$s]}" "$(awk -v r="${rss_load[$s]}" -v l="$limit_mb" 'BEGIN { print r / l }')" "${used[$s]}" \
        "${evicted[$s]}" "${hitrate[$s]}"
done
