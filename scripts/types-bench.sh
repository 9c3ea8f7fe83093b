#!/usr/bin/env bash
# Streams, HyperLogLog and geo beside real Redis, in the same run: redis-benchmark -c 50 -n N of
#   XADD   bench:stream * field __rand_int__        (auto IDs, one stream)
#   PFADD  bench:hll __rand_int__                   (-r 1000000: the HLL turns dense early)
#   GEOADD bench:geo <lon> <lat> member:__rand_int__ (-r 1000000 members)
# against fresh servers (--save '' --appendonly no), alternating servers (ABBA) for R rounds.
# After the last round's runs it prints each server's MEMORY USAGE ... SAMPLES 0 of the stream
# and the geo set divided by their sizes: bytes per stream entry and per geo member, as each
# server accounts for them (Redis: its allocator's sizes; Cinnabar: its estimate of its heap
# objects, the same figure maxmemory will act on).
#
#   scripts/types-bench.sh                                # N=200000, 3 rounds
#   TYPES_N=50000 TYPES_ROUNDS=1 scripts/types-bench.sh   # quick
#
# Exits non-zero if a run against Cinnabar fails.
set -euo pipefail

repo="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
jar="$repo/target/cinnabar.jar"
n="${TYPES_N:-200000}"
rounds="${TYPES_ROUNDS:-3}"
work="$(mktemp -d)"
redis_pid="" cinnabar_pid=""

# shellcheck source=lib/servers.sh
source "$repo/scripts/lib/servers.sh"
trap stop_servers EXIT

command -v redis-server >/dev/null || { echo "needs redis-server (apt-get install redis-server redis-tools)" >&2; exit 2; }
[[ -f $jar ]] || (cd "$repo" && mvn -q -B package -DskipTests)

bench() { # port args... -> requests per second, or empty
    redis-benchmark -p "$1" -c 50 -n "$n" -r 1000000 --csv "${@:2}" 2>/dev/null \
        | grep -v '^"test"' | tail -1 | cut -d, -f2 | tr -d '"'
}

per_element() { # port key size-command -> "bytes/element (elements)"
    local usage size
    usage="$(redis-cli -p "$1" memory usage "$2" samples 0)"
    size="$(redis-cli -p "$1" "$3" "$2")"
    python3 -c "print(f'{$usage / $size:.1f} ({$size})')"
}

failed=0
run() { # server round
    local server=$1 round=$2 port rps case
    port="$(free_port)"
    if [[ $server == redis ]]; then
        redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --logfile "$work/redis.log" &
        redis_pid=$!
    else
        "$repo/scripts/cinnabar-server" --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
            >>"$work/cinnabar.log" 2>&1 &
        cinnabar_pid=$!
    fi
    wait_ready "$port" "$server"
    for case in xadd pfadd geoadd; do
        case $case in
            xadd) rps="$(bench "$port" XADD bench:stream '*' field __rand_int__)" ;;
            pfadd) rps="$(bench "$port" PFADD bench:hll __rand_int__)" ;;
            geoadd) rps="$(bench "$port" GEOADD bench:geo 13.361389 38.115556 member:__rand_int__)" ;;
        esac
        [[ -z $rps && $server == cinnabar ]] && failed=1
        echo "$case ${rps:--}" >>"$work/$server.$round"
    done
    if ((round == rounds)); then
        echo "$server $(per_element "$port" bench:stream xlen) $(per_element "$port" bench:geo zcard)" >>"$work/memory"
    fi
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
    if [[ $server == redis ]]; then wait "$redis_pid" 2>/dev/null || true; redis_pid=""
    else wait "$cinnabar_pid" 2>/dev/null || true; cinnabar_pid=""; fi
}

for ((r = 1; r <= rounds; r++)); do
    if ((r % 2)); then order="redis cinnabar"; else order="cinnabar redis"; fi
    for server in $order; do
        echo "round $r: $server ..." >&2
        run "$server" "$r"
    done
done

python3 - "$work" "$rounds" "$n" <<'PY'
import os, statistics, sys
work, rounds, n = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def runs(server):
    out = {}
    for r in range(1, rounds + 1):
        for line in open(f"{work}/{server}.{r}"):
            case, value = line.split()
            out.setdefault(case, []).append(None if value == "-" else float(value))
    return out
redis, cinna = runs("redis"), runs("cinnabar")
print(f"redis-benchmark -c 50 -n {n} -r 1000000 (requests per second; {rounds} rounds, fresh servers, --save '' --appendonly no)")
print("| case | redis runs | cinnabar runs | redis median | cinnabar median | ratio |")
print("|---|---|---|---|---|---|")
for case in redis:
    rr = [x for x in redis[case] if x]
    cc = [x for x in cinna.get(case, []) if x]
    fmt = lambda xs: " ".join(f"{x:.0f}" for x in xs) or "-"
    mr = statistics.median(rr) if rr else None
    mc = statistics.median(cc) if cc else None
    ratio = f"{mc / mr:.2f}" if mr and mc else "-"
    print(f"| {case} | {fmt(rr)} | {fmt(cc)} | {mr or 0:.0f} | {mc or 0:.0f} | {ratio} |")
print()
print("MEMORY USAGE ... SAMPLES 0 per element (elements), after the last round")
print("| server | bytes per stream entry | bytes per geo member |")
print("|---|---|---|")
for line in open(f"{work}/memory"):
    server, s, sn, g, gn = line.split()
    print(f"| {server} | {s} {sn} | {g} {gn} |")
PY
exit "$failed"
