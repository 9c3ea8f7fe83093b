#!/usr/bin/env bash
# Pub/sub and scripting throughput beside real Redis, in the same run: PUBLISH to a channel with
# S subscribers (default 50) and EVALSHA of a small script, redis-benchmark -c 50 -n N against
# each server (--save '' --appendonly no), alternating servers (ABBA) for R rounds; the table
# shows every run's requests per second, the medians and Cinnabar's median / Redis's median.
#
#   scripts/pubsub-bench.sh                                 # N=200000, 3 rounds, 50 subscribers
#   PUBSUB_N=50000 PUBSUB_ROUNDS=1 scripts/pubsub-bench.sh  # quick
#
# The subscribers are one Python process holding S connections that read and discard what
# arrives, so that their cost is the same for both servers and small. After each PUBLISH run
# the script checks that all S subscribers are still connected (a subscriber that falls behind
# by more than the pubsub output buffer limit would be cut off, by both servers alike).
# A server without scripting gets "-" for EVALSHA. Exits non-zero if a run against Cinnabar fails.
set -euo pipefail

repo="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
n="${PUBSUB_N:-200000}"
rounds="${PUBSUB_ROUNDS:-3}"
subscribers="${PUBSUB_SUBSCRIBERS:-50}"
work="$(mktemp -d)"
redis_pid="" cinnabar_pid="" readers_pid=""

# shellcheck source=lib/servers.sh
source "$repo/scripts/lib/servers.sh"
cleanup() { [[ -n $readers_pid ]] && kill "$readers_pid" 2>/dev/null; stop_servers; }
trap cleanup EXIT

require_redis_and_jar

cat >"$work/readers.py" <<'PY'
import selectors, socket, sys
port, count = int(sys.argv[1]), int(sys.argv[2])
sel = selectors.DefaultSelector()
for _ in range(count):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"*2\r\n$9\r\nSUBSCRIBE\r\n$5\r\nbench\r\n")
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ)
while True:
    for key, _ in sel.select():
        try:
            if not key.fileobj.recv(1 << 20):
                sel.unregister(key.fileobj)
        except (BlockingIOError, ConnectionResetError):
            pass
PY

numsub() { redis-cli -p "$1" pubsub numsub bench | tail -1; }

# One round on one server: a fresh server, PUBLISH with subscribers, then EVALSHA; rps per case
# appended to $work/<server>.<round>.
run() { # server round
    local server=$1 round=$2 port sha rps
    port="$(free_port)"
    start_fresh_server "$server" "$port"
    python3 "$work/readers.py" "$port" "$subscribers" &
    readers_pid=$!
    for _ in $(seq 100); do [[ $(numsub "$port") == "$subscribers" ]] && break; sleep 0.1; done
    rps="$(redis-benchmark -p "$port" -c 50 -n "$n" --csv PUBLISH bench hello-subscribers 2>/dev/null \
        | grep -v '^"test"' | tail -1 | cut -d, -f2 | tr -d '"')"
    if [[ $(numsub "$port") != "$subscribers" ]]; then
        echo "$server: only $(numsub "$port") of $subscribers subscribers left after PUBLISH" >&2
        [[ $server == cinnabar ]] && failed=1
    fi
    echo "publish_${subscribers}_subscribers ${rps:--}" >>"$work/$server.$round"
    kill "$readers_pid" 2>/dev/null; wait "$readers_pid" 2>/dev/null || true; readers_pid=""
    sha="$(redis-cli -p "$port" script load 'return redis.call("get", KEYS[1])' 2>/dev/null || true)"
    if [[ $sha =~ ^[0-9a-f]{40}$ ]]; then
        redis-cli -p "$port" set bench:key value >/dev/null
        rps="$(redis-benchmark -p "$port" -c 50 -n "$n" --csv EVALSHA "$sha" 1 bench:key 2>/dev/null \
            | grep -v '^"test"' | tail -1 | cut -d, -f2 | tr -d '"')"
        echo "evalsha_get ${rps:--}" >>"$work/$server.$round"
    else
        echo "evalsha_get -" >>"$work/$server.$round"
    fi
    stop_fresh_server "$server" "$port"
}

failed=0
run_abba_rounds "$rounds"

python3 "$repo/scripts/lib/rounds_table.py" "$work" "$rounds" \
    "redis-benchmark -c 50 -n $n (requests per second; $rounds rounds, fresh servers, --save '' --appendonly no)"
exit "$failed"
