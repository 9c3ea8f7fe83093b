#!/usr/bin/env bash
# A fresh server's first benchmark runs against its later ones, beside real Redis in the same run.
# Each round starts both servers fresh (--save '' --appendonly no; Cinnabar as the README starts
# it, with its JIT warm-up), then runs redis-benchmark's default tests but LRANGE and MSET
# (-c 50 -n N) RUNS times in a row against each, the order alternating per round (ABBA). Per run:
#   runK_rps     the tests' requests per second, summed
#   runK_max_us  the median of the tests' max latencies, in microseconds
#   runK_jit_ms  Cinnabar only: CPU its JIT compiler threads used during the run, in ms
# A JIT-compiled server goes on compiling under its first clients' load, on the cores the
# clients and the event loop need; this shows how much and for how long.
#
#   scripts/first-runs-bench.sh                                   # N=100000, 3 runs, 3 rounds
#   FIRST_N=50000 FIRST_RUNS=2 FIRST_ROUNDS=1 scripts/first-runs-bench.sh
#
# Exits non-zero if a run against Cinnabar fails.
set -euo pipefail

repo="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
n="${FIRST_N:-100000}"
runs="${FIRST_RUNS:-3}"
rounds="${FIRST_ROUNDS:-3}"
tests="ping_inline,ping_mbulk,set,get,incr,lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,zpopmin"
work="$(mktemp -d)"
redis_pid="" cinnabar_pid=""

# shellcheck source=lib/servers.sh
source "$repo/scripts/lib/servers.sh"
trap stop_servers EXIT

require_redis_and_jar
ms_per_tick=$((1000 / $(getconf CLK_TCK)))

# CPU ticks of a process's JIT compiler threads ("C1 CompilerThre...", "C2 CompilerThre...").
jit_ticks() { # pid
    local task sum=0
    for task in /proc/"$1"/task/*; do
        [[ $(cat "$task/comm" 2>/dev/null) == C[12]\ CompilerThre* ]] || continue
        # utime and stime: fields 14 and 15 of stat, the 12th and 13th after "pid (comm) ".
        sum=$((sum + $(sed 's/^.*) //' "$task/stat" | awk '{print $12 + $13}')))
    done
    echo "$sum"
}

failed=0
run() { # server round
    local server=$1 round=$2 port k csv before after
    port="$(free_port)"
    start_fresh_server "$server" "$port"
    for ((k = 1; k <= runs; k++)); do
        [[ $server == cinnabar ]] && before="$(jit_ticks "$cinnabar_pid")"
        csv="$(redis-benchmark -p "$port" -c 50 -n "$n" -t "$tests" --csv 2>/dev/null | grep -v '^"test"' || true)"
        if [[ -z $csv ]]; then
            [[ $server == cinnabar ]] && failed=1
            echo "run${k}_rps -" >>"$work/$server.$round"
            continue
        fi
        # CSV columns: test, rps, avg, min, p50, p95, p99, max (ms).
        python3 - "$csv" "$k" >>"$work/$server.$round" <<'EOF'
import csv, statistics, sys
rows = list(csv.reader(sys.argv[1].splitlines()))
k = sys.argv[2]
print(f"run{k}_rps {sum(float(r[1]) for r in rows):.0f}")
print(f"run{k}_max_us {statistics.median(float(r[7]) for r in rows) * 1000:.0f}")
EOF
        if [[ $server == cinnabar ]]; then
            after="$(jit_ticks "$cinnabar_pid")"
            echo "run${k}_jit_ms $(((after - before) * ms_per_tick))" >>"$work/$server.$round"
        else
            echo "run${k}_jit_ms -" >>"$work/$server.$round"
        fi
    done
    stop_fresh_server "$server" "$port"
}

run_abba_rounds "$rounds"

python3 "$repo/scripts/lib/rounds_table.py" "$work" "$rounds" \
    "redis-benchmark -c 50 -n $n -t $tests, $runs runs in a row per fresh server ($rounds rounds, --save '' --appendonly no)"
exit "$failed"
