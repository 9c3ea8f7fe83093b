#!/usr/bin/env bash
# The whole performance picture beside real Redis, measured in one run on this machine, written
# to docs/benchmarks.md (with docs/benchmarks.svg, the chart of the ratios) and printed.
#
# For each persistence mode (appendonly no; appendonly yes + appendfsync everysec) one real
# redis-server and one Cinnabar (started as the README says, with conf/jvm.options) run side by
# side on fresh directories with the same settings; every case below runs against both, the
# order alternating per round (ABBA), for BENCH_ROUNDS rounds; the tables give the median of the
# rounds per test: requests per second, p50, p99 and max latency, and the median of the rounds'
# Cinnabar/Redis ratios.
# The default suite goes one -t group at a time, each against one server then the other, in the
# suite's order on data the earlier groups left, as one redis-benchmark run has it: run whole,
# one server's suite took ~35 s before the other's, and this machine's speed drifts by a
# quarter within minutes (one server's rounds of a test spread by 13-33%).
# Cinnabar logs its GC pauses (-Xlog:gc) and the report quotes every pause seen in the run.
# Then the memory step: fresh servers, RSS empty (1 s and 10 s after start), after loading ~1M
# keys of 32-byte values (redis-benchmark -t set -r 1000000 -n 3000000 -d 32 -P 32), and 10 s
# after FLUSHALL.
#
#   scripts/bench.sh                                   # everything, ~20 minutes on 2 cores
#   BENCH_ROUNDS=1 BENCH_N=50000 BENCH_CASES="p16 d61" BENCH_MODES=off BENCH_MEMORY=no scripts/bench.sh
#   BENCH_OUT=/tmp/bench.md scripts/bench.sh          # write the report elsewhere
#
# Cases (BENCH_N requests each, 200000 by default):
#   default  redis-benchmark's default suite, -c 50
#   p16      -c 50 -P 16 -t set,get, with 10 times BENCH_N requests: at ~1.5M/s, 200000 took
#            ~0.13 s, mostly the 50 connections' start and the machine's hiccups (rounds of one
#            server 0.92-1.63M/s), where 2000000 measure the pipelined serving itself
#   c1000    -c 1000 -r 100000 -t set,get
#   c10000   -c 10000 -t set            (open-files limit raised to the hard limit)
#   d61      -c 50 -r 10000 -d 61 -t set
#   d4096    -c 50 -d 4096 -t set,get
# Exits non-zero if a redis-benchmark run against Cinnabar fails or reports an error reply.
set -euo pipefail

repo="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
jar="$repo/target/cinnabar.jar"
n="${BENCH_N:-200000}"
rounds="${BENCH_ROUNDS:-3}"
cases="${BENCH_CASES:-default p16 c1000 c10000 d61 d4096}"
modes="${BENCH_MODES:-off everysec}"
memory="${BENCH_MEMORY:-yes}"
out="${BENCH_OUT:-$repo/docs/benchmarks.md}"
mkdir -p "$repo/target"
work="$(mktemp -d "$repo/target/bench.XXXXXX")"
redis_pid="" cinnabar_pid=""

# shellcheck source=lib/servers.sh
source "$repo/scripts/lib/servers.sh"
trap stop_servers EXIT

if ! command -v redis-server >/dev/null || ! command -v redis-benchmark >/dev/null; then
    echo "installing redis-server and redis-tools" >&2
    apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq redis-server redis-tools >&2
fi
[[ -f $jar ]] || (cd "$repo" && mvn -q -B package -DskipTests) >&2

# Inherited by both servers and redis-benchmark: -c 10000 needs ~10100 descriptors in each.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [[ $(ulimit -n) != unlimited && $(ulimit -n) -lt 10200 ]]; then
    echo "warning: open files limit is $(ulimit -n); the -c 10000 case will fail" >&2
fi

# redis-benchmark's default suite in its order, as -t groups: ping is PING_INLINE and PING_MBULK,
# lrange its LPUSH and LRANGE_100 to LRANGE_600.
default_groups="ping set get incr lpush rpush lpop rpop sadd hset spop zadd zpopmin lrange mset"

case_args() {
    case "$1" in
        default) echo "-c 50" ;;
        p16) echo "-c 50 -P 16 -t set,get -n $((n * 10))" ;;
        c1000) echo "-c 1000 -r 100000 -t set,get" ;;
        c10000) echo "-c 10000 -t set" ;;
        d61) echo "-c 50 -r 10000 -d 61 -t set" ;;
        d4096) echo "-c 50 -d 4096 -t set,get" ;;
        *) echo "unknown case $1" >&2; return 1 ;;
    esac
}

mode_args() {
    case "$1" in
        off) echo "--appendonly no" ;;
        everysec) echo "--appendonly yes --appendfsync everysec" ;;
        *) echo "unknown mode $1" >&2; return 1 ;;
    esac
}

start_redis() { # dir port mode
    # shellcheck disable=SC2046
    redis-server --port "$2" --bind 127.0.0.1 --dir "$1" --save "" --maxclients 10000 $(mode_args "$3") \
        --logfile "$1/redis.log" &
    redis_pid=$!
}

start_cinnabar() { # dir port mode gc-log
    # shellcheck disable=SC2046
    CINNABAR_JAVA_OPTS="${CINNABAR_JAVA_OPTS:-} -Xlog:gc:file=$4" "$repo/scripts/cinnabar-server" --port "$2" --bind 127.0.0.1 \
        --dir "$1" --save "" --maxclients 10000 $(mode_args "$3") >>"$1/cinnabar.log" 2>&1 &
    cinnabar_pid=$!
}

stop_both() {
    redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
    redis-cli -p "$cinnabar_port" shutdown nosave >/dev/null 2>&1 || true
    wait "$redis_pid" "$cinnabar_pid" 2>/dev/null || true
    redis_pid="" cinnabar_pid=""
}

failed=0
# One redis-benchmark run; its CSV rows (test, rps, avg, min, p50, p95, p99, max) go to
# $work/<mode>.<case>.<server>.<round>.csv. redis-benchmark 7.0 stops at the first error reply.
# With a test group, only that group runs and its rows are added to the round's: FLUSHALL comes
# before a round's first run of the case only, as later groups work on what earlier ones stored.
bench() { # mode case server port round [group]
    local name="$work/$1.$2.$3.$5" group="${6:-}" rc=0 args output
    args="$(case_args "$2")${group:+ -t $group}"
    [[ -e $name.out ]] || redis-cli -p "$4" flushall >/dev/null
    # shellcheck disable=SC2086
    output="$(timeout 1200 redis-benchmark -h 127.0.0.1 -p "$4" -n "$n" $args --csv 2>&1)" || rc=$?
    printf '%s\n' "$output" >>"$name.out"
    grep '^"' <<<"$output" | grep -v '^"test"' >>"$name.csv" || true
    if [[ $rc != 0 ]] || grep -q 'Error from server' <<<"$output"; then
        echo "$3 failed in $1/$2${group:+ ($group)} round $5:" >&2
        grep -v '^"' <<<"$output" | tr '\r' '\n' | grep -v '^$' | tail -3 >&2
        [[ $3 == cinnabar ]] && failed=1
    fi
    return 0
}

for mode in $modes; do
    dir="$work/$mode"
    mkdir -p "$dir/redis" "$dir/cinnabar"
    redis_port="$(free_port)"
    start_redis "$dir/redis" "$redis_port" "$mode"
    cinnabar_port="$(free_port)"
    start_cinnabar "$dir/cinnabar" "$cinnabar_port" "$mode" "$work/gc.$mode.log"
    wait_ready "$redis_port" redis
    wait_ready "$cinnabar_port" cinnabar
    for ((r = 1; r <= rounds; r++)); do
        if ((r % 2)); then order="redis cinnabar"; else order="cinnabar redis"; fi
        for c in $cases; do
            echo "appendonly $mode, round $r/$rounds, $c ($(case_args "$c")) ..." >&2
            groups=("")
            # shellcheck disable=SC2206
            [[ $c == default ]] && groups=($default_groups)
            for g in "${groups[@]}"; do
                for server in $order; do
                    if [[ $server == redis ]]; then port=$redis_port; else port=$cinnabar_port; fi
                    bench "$mode" "$c" "$server" "$port" "$r" "$g"
                done
            done
        done
    done
    stop_both
done

rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }

# RSS in kB: empty 1 s and 10 s after start (a JVM is still compiling at 1 s, and gives the
# compilers' memory back within seconds), right after the load, 10 s after it, 10 s after FLUSHALL.
memory_step() { # server port pid -> $work/memory.<server>
    local keys
    sleep 1
    local empty empty_settled loaded settled flushed
    empty="$(rss_kb "$3")"
    sleep 9
    empty_settled="$(rss_kb "$3")"
    redis-benchmark -h 127.0.0.1 -p "$2" -t set -r 1000000 -n 3000000 -d 32 -P 32 -q >/dev/null 2>&1
    loaded="$(rss_kb "$3")"
    keys="$(redis-cli -p "$2" dbsize)"
    sleep 10
    settled="$(rss_kb "$3")"
    redis-cli -p "$2" flushall >/dev/null
    sleep 10
    flushed="$(rss_kb "$3")"
    # The fields of bench_report.py's MEMORY_FIELDS, in its order.
    echo "$empty $empty_settled $loaded $settled $flushed $keys" >"$work/memory.$1"
}

if [[ $memory == yes ]]; then
    echo "memory: ~1M keys of 32-byte values ..." >&2
    mkdir -p "$work/mem/redis" "$work/mem/cinnabar"
    redis_port="$(free_port)"
    start_redis "$work/mem/redis" "$redis_port" off
    wait_ready "$redis_port" redis
    memory_step redis "$redis_port" "$redis_pid"
    cinnabar_port="$(free_port)"
    start_cinnabar "$work/mem/cinnabar" "$cinnabar_port" off "$work/gc.memory.log"
    wait_ready "$cinnabar_port" cinnabar
    memory_step cinnabar "$cinnabar_port" "$cinnabar_pid"
    stop_both
fi

mkdir -p "$(dirname "$out")"
python3 "$repo/scripts/lib/bench_report.py" --work "$work" --out "$out" --rounds "$rounds" --n "$n" \
    --cases "$cases" --modes "$modes" \
    --case-args "$(for c in $cases; do echo "$c=$(case_args "$c")"; done)" \
    --redis-version "$(redis-server --version)" \
    --commit "$(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)" \
    --java-version "$(java -version 2>&1 | head -1)" \
    --jvm-options "$(grep -v '^#' "$repo/conf/jvm.options" | grep -v '^$' | tr '\n' ' ')"
echo "report: $out" >&2
exit "$failed"
