# Shared by scripts that run real Redis beside Cinnabar (bench.sh, memory-check.sh); sourced.
# The caller sets $work (a temp dir), $redis_pid and $cinnabar_pid.

# Stops whichever servers are running and removes $work; installed as the EXIT trap.
stop_servers() {
    [[ -n ${redis_pid:-} ]] && kill "$redis_pid" 2>/dev/null || true
    [[ -n ${cinnabar_pid:-} ]] && kill "$cinnabar_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
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
