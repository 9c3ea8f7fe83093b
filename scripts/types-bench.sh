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
n="${TYPES_N:-200000}"
rounds="${TYPES_ROUNDS:-3}"
work="$(mktemp -d)"
redis_pid="" cinnabar_pid=""

# shellcheck source=lib/servers.sh
source "$repo/scripts/lib/servers.sh"
trap stop_servers EXIT

require_redis_and_jar

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
    start_fresh_server "$server" "$port"
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
    stop_fresh_server "$server" "$port"
}

run_abba_rounds "$rounds"

python3 "$repo/scripts/lib/rounds_table.py" "$work" "$rounds" \
    "redis-benchmark -c 50 -n $n -r 1000000 (requests per second; $rounds rounds, fresh servers, --save '' --appendonly no)"
echo
echo "MEMORY USAGE ... SAMPLES 0 per element (elements), after the last round"
echo "| server | bytes per stream entry | bytes per geo member |"
echo "|---|---|---|"
while read -r server s sn g gn; do echo "| $server | $s $sn | $g $gn |"; done <"$work/memory"
exit "$failed"
