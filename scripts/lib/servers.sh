# Shared by scripts that run real Redis beside Cinnabar (bench.sh, memory-check.sh); sourced.
# The caller sets $repo, $work (a temp dir), $redis_pid and $cinnabar_pid.

# Stops whichever servers are running and removes $work; installed as the EXIT trap.
stop_servers() {
    [[ -n ${redis_pid:-} ]] && kill "$redis_pid" 2>/dev/null || true
    [[ -n ${cinnabar_pid:-} ]] && kill "$cinnabar_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}

# Exits 2 without redis-server; builds $repo/target/cinnabar.jar when it is missing.
require_redis_and_jar() {
    command -v redis-server >/dev/null || { echo "needs redis-server (apt-get install redis-server redis-tools)" >&2; exit 2; }
    [[ -f $repo/target/cinnabar.jar ]] || (cd "$repo" && mvn -q -B package -DskipTests)
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

wait_ready() { # port [name]
    for _ in $(seq 1 300); do
        if [[ $(redis-cli -p "$1" ping 2>/dev/null) == PONG ]]; then return 0; fi
        sleep 0.1
    done
    echo "${2:-server} did not start on port $1" >&2
    return 1
}

# Starts a fresh server of the given kind (redis|cinnabar) on port, with --save '' --appendonly no
# and any further --option value arguments, logging to $work/<server>.log, and waits until it
# answers; sets $redis_pid or $cinnabar_pid.
start_fresh_server() { # server port [--option value ...]
    if [[ $1 == redis ]]; then
        redis-server --port "$2" --bind 127.0.0.1 --save '' --appendonly no --logfile "$work/redis.log" "${@:3}" &
        redis_pid=$!
    else
        "$repo/scripts/cinnabar-server" --port "$2" --bind 127.0.0.1 --save '' --appendonly no "${@:3}" \
            >>"$work/cinnabar.log" 2>&1 &
        cinnabar_pid=$!
    fi
    wait_ready "$2" "$1"
}

# Stops the server start_fresh_server started and waits for it to exit.
stop_fresh_server() { # server port
    redis-cli -p "$2" shutdown nosave >/dev/null 2>&1 || true
    if [[ $1 == redis ]]; then wait "$redis_pid" 2>/dev/null || true; redis_pid=""
    else wait "$cinnabar_pid" 2>/dev/null || true; cinnabar_pid=""; fi
}

# Calls run SERVER ROUND for both servers in each of ROUNDS rounds, the order alternating per
# round (ABBA), so neither server always goes first.
run_abba_rounds() { # rounds
    local r server order
    for ((r = 1; r <= $1; r++)); do
        if ((r % 2)); then order="redis cinnabar"; else order="cinnabar redis"; fi
        for server in $order; do
            echo "round $r: $server ..." >&2
            run "$server" "$r"
        done
    done
}
