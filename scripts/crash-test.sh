#!/usr/bin/env bash
# Crash test for the append-only file: kill -9 at a random moment while clients write, restart on
# the same directory, and check what every acknowledged write left behind.
#
#   scripts/crash-test.sh                       # Cinnabar, appendfsync always, 20 rounds
#   scripts/crash-test.sh --everysec            # measure the loss window instead
#   scripts/crash-test.sh --server redis        # the same against real Redis (checks the harness)
#   scripts/crash-test.sh --rounds 5 --clients 16 --seed 7
#
# Each round: start the server (--appendonly yes --appendfsync always|everysec --save ''), run
# --clients writer clients (scripts/lib/crash_clients.py; default 8, half of them pipelining 4
# operations) that write unique keys with SET, INCR, RPUSH, HSET and MULTI/EXEC and record every
# write whose reply arrived, kill -9 the server after a random 0.2-3 s, restart it on the same
# directory and read everything back. The directory accumulates across rounds (the AOF grows and
# is reloaded each time, rewrites included when auto-aof-rewrite kicks in).
#
# always: after each restart every acknowledged write of every round so far must be there (a SET
# key, an RPUSH element, an HSET field, a counter >= each acknowledged INCR reply, a transaction's
# SET+HSET+INCR), and no transaction may be applied in part. Any loss: exit 1.
# everysec: only the round's own writes are checked; the script prints, per round, how many
# acknowledged writes were lost and the loss window (from the earliest lost acknowledgement to the
# round's last one, in ms), then max and median. Exits 0 (partial transactions still fail).
#
# Note: kill -9 kills the process, not the machine: bytes written to the file but not yet fsynced
# survive in the page cache. So this checks that a reply never leaves before its write reached the
# file (and that loading copes with a torn tail); it cannot tell fsync from no fsync.
set -euo pipefail

repo="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
jar="$repo/target/cinnabar.jar"
rounds=20 clients=8 mode=always server=cinnabar seed="${CRASH_SEED:-$RANDOM}"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --rounds) rounds="$2"; shift 2 ;;
        --clients) clients="$2"; shift 2 ;;
        --everysec) mode=everysec; shift ;;
        --always) mode=always; shift ;;
        --server) server="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
[[ $server == cinnabar || $server == redis ]] || { echo "--server cinnabar|redis" >&2; exit 2; }

mkdir -p "$repo/target"
# On the disk under test (not a tmpfs), like the data of a real server.
work="$(mktemp -d "$repo/target/crash-test.XXXXXX")"
redis_pid="" cinnabar_pid=""
# shellcheck source=lib/servers.sh
source "$repo/scripts/lib/servers.sh"
trap stop_servers EXIT

command -v redis-server >/dev/null || { echo "needs redis-server (apt-get install redis-server redis-tools)" >&2; exit 2; }
if [[ $server == cinnabar && ! -f $jar ]]; then (cd "$repo" && mvn -q -B package -DskipTests); fi

clients_py="$repo/scripts/lib/crash_clients.py"
data="$work/data"
mkdir -p "$data"
port="$(free_port)"
pid=""

start_server() {
    if [[ $server == redis ]]; then
        redis-server --port "$port" --bind 127.0.0.1 --dir "$data" --appendonly yes --appendfsync "$mode" \
            --save '' --logfile "$work/server.log" &
        pid=$!; redis_pid=$pid
    else
        "$repo/scripts/cinnabar-server" --port "$port" --bind 127.0.0.1 --dir "$data" --appendonly yes \
            --appendfsync "$mode" --save '' >>"$work/server.log" 2>&1 &
        pid=$!; cinnabar_pid=$pid
    fi
    # Loading a large AOF can take a while; LOADING replies are not PONG.
    for _ in $(seq 1 600); do
        if [[ $(redis-cli -p "$port" ping 2>/dev/null) == PONG ]]; then return 0; fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "$server did not start on port $port; last log lines:" >&2
    tail -20 "$work/server.log" >&2
    exit 1
}

echo "crash test: $server, appendfsync $mode, $rounds rounds, $clients clients, seed $seed, dir $data" >&2
RANDOM=$seed
failed=0
: >"$work/results.jsonl"
for ((r = 1; r <= rounds; r++)); do
    start_server
    rm -f "$work/ready"
    python3 "$clients_py" write --port "$port" --round "$r" --clients "$clients" --seed "$seed" \
        --ledger "$work/ledger.$r.json" --ready "$work/ready" &
    writers=$!
    for _ in $(seq 1 100); do [[ -f $work/ready ]] && break; sleep 0.05; done
    delay_ms=$((200 + RANDOM % 2801))
    sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
    kill -9 "$pid"
    wait "$pid" 2>/dev/null || true
    redis_pid="" cinnabar_pid=""
    wait "$writers"

    start_server
    if [[ $mode == always ]]; then
        ledgers=("$work"/ledger.*.json)
    else
        ledgers=("$work/ledger.$r.json")
    fi
    python3 "$clients_py" verify --port "$port" "${ledgers[@]}" \
        >"$work/verify.out"
    # The round's own line, plus any earlier round that lost something now.
    python3 - "$r" "$delay_ms" "$work/verify.out" >>"$work/results.jsonl" <<'PY'
import json, sys
r, delay, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rows = [json.loads(l) for l in open(path)]
own = next(x for x in rows if x["round"] == r)
own["kill_after_ms"] = delay
own["earlier_rounds_lost"] = sum(x["lost"] for x in rows if x["round"] != r)
own["earlier_rounds_partial"] = sum(x["partial_tx"] for x in rows if x["round"] != r)
print(json.dumps(own))
PY
    tail -1 "$work/results.jsonl" | python3 -c '
import json, sys
x = json.loads(sys.stdin.read())
print("round %(round)2d: killed after %(kill_after_ms)4d ms, %(acked)6d acknowledged, %(lost)d lost, %(partial_tx)d partial tx, earlier rounds lost %(earlier_rounds_lost)d" % x, file=sys.stderr)'

    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    redis_pid="" cinnabar_pid=""
done

python3 - "$mode" "$server" "$work/results.jsonl" <<'PY' || failed=1
import json, statistics, sys
mode, server, path = sys.argv[1], sys.argv[2], sys.argv[3]
rows = [json.loads(l) for l in open(path)]
print(f"Crash test: {server}, appendfsync {mode}, {len(rows)} rounds of kill -9 (same directory across rounds)")
print("| round | killed after ms | writes acknowledged | lost | loss window ms | partial tx | earlier rounds lost |")
print("|---|---|---|---|---|---|---|")
for x in rows:
    print(f"| {x['round']} | {x['kill_after_ms']} | {x['acked']} | {x['lost']} | {x['lost_window_ms']} | "
          f"{x['partial_tx']} | {x['earlier_rounds_lost']} |")
lost = [x["lost"] for x in rows]
win = [x["lost_window_ms"] for x in rows]
print(f"acknowledged writes: {sum(x['acked'] for x in rows)}; lost per round: max {max(lost)}, median "
      f"{statistics.median(lost)}; loss window ms: max {max(win)}, median {statistics.median(win)}")
partial = sum(x["partial_tx"] + x["earlier_rounds_partial"] for x in rows)
bad = partial > 0 or (mode == "always" and (sum(lost) > 0 or sum(x["earlier_rounds_lost"] for x in rows) > 0))
if partial:
    print(f"FAIL: {partial} transactions applied in part")
if mode == "always":
    print("FAIL: acknowledged writes lost" if bad else "PASS: every acknowledged write survived every kill -9")
sys.exit(1 if bad else 0)
PY
exit "$failed"
