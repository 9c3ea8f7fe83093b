#!/usr/bin/env bash
# Benchmarks Cinnabar beside real Redis in the same run, with the same redis-benchmark runs, and
# prints one table: requests per second and p50/p99 latency for each server, and the ratio.
#
#   scripts/bench.sh                      # all runs below
#   BENCH_TESTS=ping,set,get scripts/bench.sh
#   BENCH_N=200000 BENCH_RUNS="c50 p16" scripts/bench.sh
#
# Runs: c50 = -c 50; p16 = -c 50 -P 16; c2000 = -c 2000 (needs ~2100 open files in each server
# and in redis-benchmark: the script raises its own soft limit, which all three inherit).
# Exits non-zero if any redis-benchmark run against Cinnabar reports an error reply.
set -euo pipefail

repo="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
jar="$repo/target/cinnabar.jar"
tests="${BENCH_TESTS:-ping,set,get,incr,mset}"
n="${BENCH_N:-100000}"
runs="${BENCH_RUNS:-c50 p16 c2000}"
work="$(mktemp -d)"
redis_pid="" cinnabar_pid=""

# shellcheck source=lib/servers.sh
source "$repo/scripts/lib/servers.sh"
trap stop_servers EXIT

if ! command -v redis-server >/dev/null || ! command -v redis-benchmark >/dev/null; then
    echo "installing redis-server and redis-tools" >&2
    apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq redis-server redis-tools >&2
fi
if [[ ! -f $jar ]]; then
    echo "building $jar" >&2
    (cd "$repo" && mvn -q -B package -DskipTests) >&2
fi

# Inherited by both servers and by redis-benchmark.
hard="$(ulimit -Hn)"
ulimit -n "$hard" 2>/dev/null || true
if [[ $(ulimit -n) != unlimited && $(ulimit -n) -lt 4200 ]]; then
    echo "warning: open files limit is $(ulimit -n); the -c 2000 run may fail" >&2
fi



redis_port="$(free_port)"
redis-server --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no --maxclients 10000 \
    --logfile "$work/redis.log" &
redis_pid=$!
cinnabar_port="$(free_port)"
"$repo/scripts/cinnabar-server" --port "$cinnabar_port" --bind 127.0.0.1 --save "" --maxclients 10000 \
    >"$work/cinnabar.log" 2>&1 &
cinnabar_pid=$!
wait_ready "$redis_port" redis
wait_ready "$cinnabar_port" cinnabar

run_args() {
    case "$1" in
        c50) echo "-c 50" ;;
        p16) echo "-c 50 -P 16" ;;
        c2000) echo "-c 2000" ;;
        *) echo "unknown run $1" >&2; return 1 ;;
    esac
}

# One redis-benchmark run; CSV rows go to $work/<server>.<run>.csv. redis-benchmark 7.0 stops
# at the first error reply ("Error from server: ...") with a non-zero exit: that is a failure.
bench() { # server port run
    local out="$work/$1.$3.out" rc=0
    # shellcheck disable=SC2046
    timeout 600 redis-benchmark -h 127.0.0.1 -p "$2" -t "$tests" -n "$n" $(run_args "$3") --csv >"$out" 2>&1 || rc=$?
    grep '^"' "$out" | grep -v '^"test"' >"$work/$1.$3.csv" || true
    if [[ $rc != 0 ]] || grep -q 'Error from server' "$out"; then echo 1; else echo 0; fi
}

failed=0
for run in $runs; do
    echo "running $run ($(run_args "$run")) ..." >&2
    bench redis "$redis_port" "$run" >/dev/null
    errors="$(bench cinnabar "$cinnabar_port" "$run")"
    if [[ $errors != 0 ]]; then
        echo "cinnabar reported errors in run $run:" >&2
        grep -v '^"' "$work/cinnabar.$run.out" | tail -5 >&2
        failed=1
    fi
done

python3 - "$work" $runs <<'PY'
import csv, sys, os
work, runs = sys.argv[1], sys.argv[2:]
def load(path):
    rows = {}
    if os.path.exists(path):
        for r in csv.reader(open(path)):
            # test, rps, avg, min, p50, p95, p99, max
            rows[r[0]] = (float(r[1]), float(r[4]), float(r[6]))
    return rows
hdr = ("test", "run", "redis rps", "cinnabar rps", "ratio", "redis p50", "cinnabar p50", "redis p99", "cinnabar p99")
print("| " + " | ".join(hdr) + " |")
print("|" + "|".join("---" for _ in hdr) + "|")
for run in runs:
    r, c = load(f"{work}/redis.{run}.csv"), load(f"{work}/cinnabar.{run}.csv")
    for test in r:
        rr = r[test]
        cc = c.get(test)
        if cc is None:
            print(f"| {test} | {run} | {rr[0]:.0f} | - | - | {rr[1]:.3f} | - | {rr[2]:.3f} | - |")
            continue
        print(f"| {test} | {run} | {rr[0]:.0f} | {cc[0]:.0f} | {cc[0]/rr[0]:.2f} | "
              f"{rr[1]:.3f} | {cc[1]:.3f} | {rr[2]:.3f} | {cc[2]:.3f} |")
print("(latencies in ms)")
PY
exit "$failed"
