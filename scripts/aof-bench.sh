#!/usr/bin/env bash
# AOF write throughput beside real Redis, in the same run: for appendfsync everysec and always,
# each server runs with --appendonly yes --appendfsync X --save '' on a fresh directory and gets
# redis-benchmark -t set,lpush -n N (default -c 50). Runs alternate between the servers (ABBA
# order, so neither always goes first) for R rounds; the table shows every run's requests per
# second, then the median per server and Cinnabar's median / Redis's median.
#
#   scripts/aof-bench.sh                               # N=1000000, 3 rounds, everysec and always
#   AOF_N=200000 AOF_ROUNDS=1 scripts/aof-bench.sh     # quick
#   AOF_POLICIES=always AOF_BENCH_ARGS="-c 50 -P 16" scripts/aof-bench.sh
#
# Data directories live under target/ (the disk under test, not a tmpfs). Exits non-zero only if
# a redis-benchmark run against Cinnabar fails or reports an error reply.
set -euo pipefail

repo="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
n="${AOF_N:-1000000}"
rounds="${AOF_ROUNDS:-3}"
policies="${AOF_POLICIES:-everysec always}"
tests="${AOF_TESTS:-set,lpush}"
bench_args="${AOF_BENCH_ARGS:-}"
mkdir -p "$repo/target"
work="$(mktemp -d "$repo/target/aof-bench.XXXXXX")"
redis_pid="" cinnabar_pid=""

# shellcheck source=lib/servers.sh
source "$repo/scripts/lib/servers.sh"
trap stop_servers EXIT

require_redis_and_jar

# One run: a fresh server on a fresh directory, one redis-benchmark, the server stopped.
# CSV rows (test, rps, avg, min, p50, p95, p99, max) go to $work/<server>.<policy>.<round>.csv.
run() { # server policy round
    local server=$1 policy=$2 round=$3 port dir out rc=0
    port="$(free_port)"
    dir="$work/data.$server.$policy.$round"
    mkdir -p "$dir"
    if [[ $server == redis ]]; then
        redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" --appendonly yes --appendfsync "$policy" \
            --save '' --logfile "$work/redis.log" &
        redis_pid=$!
    else
        "$repo/scripts/cinnabar-server" --port "$port" --bind 127.0.0.1 --dir "$dir" --appendonly yes \
            --appendfsync "$policy" --save '' >>"$work/cinnabar.log" 2>&1 &
        cinnabar_pid=$!
    fi
    wait_ready "$port" "$server"
    out="$work/$server.$policy.$round.out"
    # shellcheck disable=SC2086
    timeout 1800 redis-benchmark -p "$port" -t "$tests" -n "$n" $bench_args --csv >"$out" 2>&1 || rc=$?
    grep '^"' "$out" | grep -v '^"test"' >"$work/$server.$policy.$round.csv" || true
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
    if [[ $server == redis ]]; then wait "$redis_pid" 2>/dev/null || true; redis_pid=""
    else wait "$cinnabar_pid" 2>/dev/null || true; cinnabar_pid=""; fi
    rm -rf "$dir"
    if [[ $rc != 0 ]] || grep -q 'Error from server' "$out"; then
        echo "$server ($policy, round $round) failed:" >&2
        grep -v '^"' "$out" | tail -5 >&2
        [[ $server == cinnabar ]] && failed=1
    fi
    return 0
}

failed=0
for policy in $policies; do
    for ((r = 1; r <= rounds; r++)); do
        if ((r % 2)); then order="redis cinnabar"; else order="cinnabar redis"; fi
        for server in $order; do
            echo "appendfsync $policy, round $r: $server ..." >&2
            run "$server" "$policy" "$r"
        done
    done
done

python3 - "$work" "$rounds" "$n" "$bench_args" $policies <<'PY'
import csv, os, statistics, sys
work, rounds, n, args, policies = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
def rps(server, policy, r):
    path = f"{work}/{server}.{policy}.{r}.csv"
    return {row[0]: float(row[1]) for row in csv.reader(open(path))} if os.path.exists(path) else {}
print(f"AOF throughput: redis-benchmark -n {n} {args or '-c 50'} against --appendonly yes --save '' "
      f"(requests per second; {rounds} rounds, fresh directory per run)")
print("| appendfsync | test | redis runs | cinnabar runs | redis median | cinnabar median | ratio |")
print("|---|---|---|---|---|---|---|")
for policy in policies:
    runs = {s: [rps(s, policy, r) for r in range(1, rounds + 1)] for s in ("redis", "cinnabar")}
    tests = list(dict.fromkeys(t for run in runs["redis"] + runs["cinnabar"] for t in run))
    for test in tests:
        rr = [run[test] for run in runs["redis"] if test in run]
        cc = [run[test] for run in runs["cinnabar"] if test in run]
        fmt = lambda xs: " ".join(f"{x:.0f}" for x in xs) or "-"
        mr = statistics.median(rr) if rr else None
        mc = statistics.median(cc) if cc else None
        ratio = f"{mc / mr:.2f}" if mr and mc else "-"
        print(f"| {policy} | {test} | {fmt(rr)} | {fmt(cc)} | {mr or 0:.0f} | {mc or 0:.0f} | {ratio} |")
PY
exit "$failed"
