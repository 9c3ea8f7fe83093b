#!/usr/bin/env bash
# compat.sh - Redis 7.0.15 test-suite compatibility yardstick for Cinnabar.
#
# Runs units of the upstream Redis 7.0.15 Tcl test suite (tests/test_helper.tcl)
# and reports per-unit and per-test results, in one of two modes:
#   external (default)  the harness talks to one server started by this script
#                       (--host/--port); tests tagged external:skip (restarts,
#                       server files, config files) are skipped
#   spawn (--spawn)     the harness starts, restarts and kills servers itself,
#                       with its own config files (tests/assets/default.conf +
#                       overrides), as in Redis's own CI: src/redis-server of a
#                       private copy of the suite tree runs the server under test
#
# Usage:
#   scripts/compat.sh [--spawn] [--tls] [--server cinnabar|redis] [--ratchet FILE]
#                     [--write-ratchet FILE] [--all] [--list] [--fetch] [unit ...]
#
#   --server cinnabar   (default) java -jar target/cinnabar.jar (external mode:
#                       --port P --save "" --appendonly no)
#   --server redis      Debian's real redis-server (reference run / script development)
#   --spawn             spawn mode (see above); results and ratchet entries of
#                       unit U are keyed "spawn:U"
#   --tls               the suite's TLS mode: certificates made by scripts/gen-test-certs.sh
#                       into the private tree's tests/tls, the harness run with --tls; in
#                       external mode the server listens on a TLS port only (port 0,
#                       tls-port P); results and ratchet entries are keyed "tls:U"
#                       ("spawn:tls:U" with --spawn). Needs openssl and Debian's tcl-tls.
#   --all               external: every unit with tests runnable in external mode;
#                       spawn: those plus the integration units listed in SPAWN_UNITS
#   --list              print the --all unit list (of the chosen mode) and exit
#   --fetch             download the test suite into the cache (if not there yet) and exit:
#                       runs started side by side afterwards do not both download it
#   --ratchet FILE      after the run, exit 1 if a test listed in FILE (for the
#                       units that were run) did not pass, in the run and in one
#                       re-run of its unit (a test that passes the re-run is
#                       printed as FLAKY with its first error); the errors of the
#                       tests that did not pass are printed
#   --write-ratchet FILE  rewrite FILE with the tests that passed in this run
#                       (header comment, other units' sections and comments kept)
#   unit ...            e.g. unit/type/string  type/string  tests/unit/expire.tcl
#   Default units: unit/type/string unit/type/incr unit/expire unit/keyspace
#                  unit/protocol unit/quit unit/info-command
#                  (spawn mode: SPAWN_DEFAULT_UNITS below)
#
# Requirements (NOT installed by this script; CI must install them first):
#   apt-get install -y redis-server redis-tools tcl
#     tcl          -> tclsh runs the test harness
#     redis-tools  -> redis-cli (readiness check), redis-benchmark, redis-check-aof,
#                     redis-check-rdb (the suite runs them from src/)
#     redis-server -> only for --server redis
#   plus java (for --server cinnabar) and apt-get (first run only, to fetch
#   the test suite). If the Debian package started a redis-server on 6379 that
#   does no harm: this script always uses a free port of its own.
#
# The test suite comes from Debian's "redis" source package (bookworm /
# bookworm-security, version 7.0.15). It is downloaded with apt-get using a
# private sources list and private list/cache directories (root-wide apt
# configuration is untouched) into the cache dir and unpacked there once;
# later runs reuse it. Redis source is never copied into this repository.
# Each run works in a private tree (COMPAT_LOG_DIR/suite: symlinks into the
# cache, its own tests/tmp and src/ with the programs the suite runs), so runs
# from several worktrees at once neither share tests/tmp (the harness empties it
# when it starts) nor each other's src/redis-server.
#
# Environment:
#   COMPAT_CACHE     cache dir                     (default ~/.cache/cinnabar-compat)
#   COMPAT_LOG_DIR   raw per-unit logs + results   (default <repo>/target/compat)
#   UNIT_TIMEOUT     seconds per unit              (default 600)
#   COMPAT_TEST_TIMEOUT spawn mode: seconds without any test finishing after
#                    which the harness abandons the unit (default 180)
#   COMPAT_TAGS      harness --tags value          (default see DEFAULT_TAGS below)
#   COMPAT_TCL_ARGS  extra harness args, e.g. "--ignore-encoding --ignore-digest"
#   COMPAT_PORT      port for the server under test (default: a free one)
#   COMPAT_PORT_LOCKS where runs lock their port slots (default /tmp/cinnabar-compat-ports)
#   COMPAT_RESTART   unit (default: fresh server for every unit, so results do
#                    not depend on which units ran before) | never
#   CINNABAR_JAR     (default <repo>/target/cinnabar.jar)
#   COMPAT_JAVA_OPTS extra JVM options for cinnabar
#   COMPAT_SPAWN_JAVA_OPTS JVM options of spawned servers (default SPAWN_JAVA_OPTS
#                    below: C1 only and a class-data-sharing archive, for start-up)
#   COMPAT_START_TIMEOUT seconds to wait for PONG (default 60)
#   COMPAT_BUDGET    total seconds for all units (default 0 = unlimited); units
#                    that do not fit are reported as failed "not run"
#   COMPAT_RATCHET_RERUNS 1 (default): units with failed ratchet tests run once
#                    more (logs: <unit>.rerun.log); 0: no re-run
#
# In spawn mode, the logs of every server the harness started are kept in
# COMPAT_LOG_DIR/servers/<unit>/ (stdout = the server log, the config file used).
#
# Output: one line per unit while running, then all failing tests, ratchet
# result (if any), and as the very last line "N passed, M failed".
# M counts failed tests plus one per unit that aborted (harness exception,
# timeout, server death, errors raised outside a test).
# Exit status: without --ratchet 0 iff M == 0; with --ratchet 0 iff every
# ratchet test passed; 2 on setup problems.
set -euo pipefail

REDIS_VERSION=7.0.15
DEFAULT_UNITS=(unit/type/string unit/type/incr unit/expire unit/keyspace
               unit/protocol unit/quit unit/info-command)
# Units from the suite's ::all_tests (tests/test_helper.tcl) that contain tests
# runnable against an external server, in all_tests order. Determined by running
# all 84 units against redis-server 7.0.15. Left out: units tagged external:skip
# as a whole (or whose tests are all needs:repl), unit/printver and unit/tls
# (no tests), and integration/replication-buffer (its 2 "tests" only wrap
# external:skip server blocks, so they pass vacuously on any server).
ALL_UNITS=(
    unit/dump
    unit/protocol
    unit/keyspace
    unit/scan
    unit/info-command
    unit/type/string
    unit/type/incr
    unit/type/list
    unit/type/list-2
    unit/type/list-3
    unit/type/set
    unit/type/zset
    unit/type/hash
    unit/type/stream
    unit/type/stream-cgroups
    unit/sort
    unit/expire
    unit/other
    unit/multi
    unit/quit
    unit/latency-monitor
    integration/redis-cli
    unit/pubsub
    unit/slowlog
    unit/scripting
    unit/functions
    unit/introspection
    unit/introspection-2
    unit/bitops
    unit/bitfield
    unit/geo
    unit/hyperloglog
    unit/lazyfree
    unit/pause
    unit/querybuf
    unit/tracking
    unit/violations
)
# Tag exclusions for an external server:
#   needs:repl   the harness cannot attach replicas to an external server
#   external:skip is applied by the harness itself in external mode.
# needs:debug tests run: both servers are started with DANGEROUS_ARGS (DEBUG and CONFIG SET
# dir/dbfilename refused by default, as in Redis 7.0); spawn mode gets the same from the
# suite's tests/assets/default.conf.
DEFAULT_TAGS="-needs:repl"
DANGEROUS_ARGS="--enable-debug-command yes --enable-protected-configs yes"
# Spawn mode: units that matter once the server can be restarted and read its own files
# (persistence), in all_tests order; --all adds them to ALL_UNITS.
SPAWN_UNITS=(
    integration/aof
    integration/aof-multi-part
    integration/rdb
    integration/corrupt-dump
    integration/convert-zipmap-hash-on-load
    integration/convert-ziplist-hash-on-load
    integration/convert-ziplist-zset-on-load
)
SPAWN_DEFAULT_UNITS=(unit/dump unit/other "${SPAWN_UNITS[@]}")
# Spawned servers start hundreds of times per run: C1 only and an application class-data-sharing
# archive (made once per jar, next to it) halve a server's start (measured: see compat/README.md).
SPAWN_JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:+PerfDisableSharedMem -Dio.netty.leakDetection.level=disabled"

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/server-shim.sh
source "$SCRIPT_DIR/lib/server-shim.sh"
ROOT=$(cd "$SCRIPT_DIR/.." && pwd)
CACHE=${COMPAT_CACHE:-${HOME:-/tmp}/.cache/cinnabar-compat}
LOG_DIR=${COMPAT_LOG_DIR:-$ROOT/target/compat}
UNIT_TIMEOUT=${UNIT_TIMEOUT:-600}
TEST_TIMEOUT=${COMPAT_TEST_TIMEOUT:-180}
TAGS=${COMPAT_TAGS:-$DEFAULT_TAGS}
TCL_ARGS=${COMPAT_TCL_ARGS:-}
RESTART=${COMPAT_RESTART:-unit}
JAR=${CINNABAR_JAR:-$ROOT/target/cinnabar.jar}
START_TIMEOUT=${COMPAT_START_TIMEOUT:-60}
BUDGET=${COMPAT_BUDGET:-0}
RATCHET_RERUNS=${COMPAT_RATCHET_RERUNS:-1}
SRC=$CACHE/redis-$REDIS_VERSION

die() { echo "compat.sh: $*" >&2; exit 2; }
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; }

# ---------------------------------------------------------------- arguments
SERVER=cinnabar RATCHET='' WRITE_RATCHET='' USE_ALL=0 UNITS=() MODE=external LIST=0 TLS=0 FETCH=0
while [ $# -gt 0 ]; do
    case $1 in
        --spawn) MODE=spawn; shift ;;
        --tls) TLS=1; shift ;;
        --server) [ $# -ge 2 ] || die "--server needs an argument"; SERVER=$2; shift 2 ;;
        --server=*) SERVER=${1#*=}; shift ;;
        --ratchet) [ $# -ge 2 ] || die "--ratchet needs a file"; RATCHET=$2; shift 2 ;;
        --ratchet=*) RATCHET=${1#*=}; shift ;;
        --write-ratchet) [ $# -ge 2 ] || die "--write-ratchet needs a file"; WRITE_RATCHET=$2; shift 2 ;;
        --write-ratchet=*) WRITE_RATCHET=${1#*=}; shift ;;
        --all) USE_ALL=1; shift ;;
        --list) LIST=1; shift ;;
        --fetch) FETCH=1; shift ;;
        -h|--help) usage; exit 0 ;;
        -*) die "unknown option: $1 (see --help)" ;;
        *) u=${1#./}; u=${u#tests/}; u=${u%.tcl}; case $u in unit/*|integration/*) ;; *) u=unit/$u ;; esac
           UNITS+=("$u"); shift ;;
    esac
done
case $SERVER in cinnabar|redis) ;; *) die "--server must be cinnabar or redis" ;; esac
if [ $MODE = spawn ]; then ALL_UNITS+=("${SPAWN_UNITS[@]}"); DEFAULT_UNITS=("${SPAWN_DEFAULT_UNITS[@]}"); fi
if [ $LIST = 1 ]; then printf '%s\n' "${ALL_UNITS[@]}"; exit 0; fi
if [ $USE_ALL = 1 ]; then UNITS=("${ALL_UNITS[@]}" "${UNITS[@]}"); fi
if [ ${#UNITS[@]} = 0 ]; then UNITS=("${DEFAULT_UNITS[@]}"); fi
# Results and ratchet entries are keyed by unit, prefixed with the mode when it is not external.
key_of() {
    local k=$1
    [ $TLS = 0 ] || k=tls:$k
    if [ $MODE = spawn ]; then echo "spawn:$k"; else echo "$k"; fi
}
# de-duplicate, keep order
declare -A seen=(); uniq_units=()
for u in "${UNITS[@]}"; do [ -n "${seen[$u]:-}" ] || { seen[$u]=1; uniq_units+=("$u"); }; done
UNITS=("${uniq_units[@]}")
abspath() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
[ -z "$RATCHET" ] || { RATCHET=$(abspath "$RATCHET"); [ -f "$RATCHET" ] || die "ratchet file not found: $RATCHET"; }
[ -z "$WRITE_RATCHET" ] || WRITE_RATCHET=$(abspath "$WRITE_RATCHET")

# ---------------------------------------------------------------- tools
need() { command -v "$1" >/dev/null 2>&1 || die "'$1' not found: $2"; }
need tclsh "install Debian package 'tcl' (apt-get install -y tcl)"
need redis-cli "install Debian package 'redis-tools' (apt-get install -y redis-tools)"
need timeout "install coreutils"
if [ $TLS = 1 ]; then
    need openssl "install Debian package 'openssl' (apt-get install -y openssl)"
    echo 'package require tls' | tclsh >/dev/null 2>&1 || die "Tcl's tls package not found: install Debian package 'tcl-tls'"
fi
if [ "$SERVER" = redis ]; then
    need redis-server "install Debian package 'redis-server' (apt-get install -y redis-server)"
else
    need java "install a JDK (17+)"
    [ -f "$JAR" ] || die "$JAR not found: build it first (mvn -q -DskipTests package) or use --server redis"
fi

# ---------------------------------------------------------------- test suite
apt_mirrors() {
    # Print "<uri> <suite>" for every enabled deb/deb-src entry of the
    # machine's apt configuration (one-line .list and deb822 .sources).
    local f
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        awk '$1=="deb"||$1=="deb-src" { i=2; if ($2 ~ /^\[/) { while (i<=NF && $i !~ /\]$/) i++; i++ }
             if (i+1<=NF) print $i, $(i+1) }' "$f"
    done
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk 'function flush() { if (en && uris!="" && suites!="") { n=split(uris,U," "); m=split(suites,S," ")
                 for (a=1;a<=n;a++) for (b=1;b<=m;b++) print U[a], S[b] } uris=""; suites=""; en=1 }
             BEGIN { en=1 }
             /^[ \t]*$/ { flush(); next }
             /^#/ { next }
             tolower($1)=="uris:" { $1=""; uris=$0 }
             tolower($1)=="suites:" { $1=""; suites=$0 }
             tolower($1)=="enabled:" { if (tolower($2)=="no") en=0 }
             END { flush() }' "$f"
    done
}

fetch_suite() {
    need apt-get "needed once to download Debian's redis source package"
    echo "compat.sh: fetching Redis $REDIS_VERSION test suite (Debian source package 'redis') into $CACHE ..." >&2
    local mirrors main sec key opt work tarball
    mirrors=$(apt_mirrors 2>/dev/null || true)
    main=$(echo "$mirrors" | awk '$2 ~ /^(bookworm|stable)$/ { print $1; exit }')
    sec=$(echo "$mirrors" | awk '$2 ~ /^(bookworm|stable)-security$/ { print $1; exit }')
    main=${main:-http://deb.debian.org/debian}
    sec=${sec:-http://deb.debian.org/debian-security}
    key=/usr/share/keyrings/debian-archive-keyring.gpg
    opt=; [ -f $key ] && opt="[signed-by=$key] "
    work=$CACHE/apt
    rm -rf "$work"; mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/dl"
    cat > "$work/sources.list" <<EOF
deb-src ${opt}${main%/} bookworm main
deb-src ${opt}${sec%/} bookworm-security main
EOF
    local -a aptopts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
                      -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
                      -o Debug::NoLocking=1 -q)
    [ "$(id -u)" = 0 ] && aptopts+=(-o APT::Sandbox::User=root)
    apt-get "${aptopts[@]}" update >"$work/update.log" 2>&1 \
        || { cat "$work/update.log" >&2; die "apt-get update (private source list) failed"; }
    (cd "$work/dl" && apt-get "${aptopts[@]}" source --download-only redis) >"$work/source.log" 2>&1 \
        || { cat "$work/source.log" >&2; die "apt-get source --download-only redis failed"; }
    tarball=$work/dl/redis_$REDIS_VERSION.orig.tar.gz
    [ -f "$tarball" ] || { ls -l "$work/dl" >&2; die "expected $tarball (is bookworm's redis still $REDIS_VERSION?)"; }
    rm -rf "$work/x"; mkdir -p "$work/x"
    tar -xzf "$tarball" -C "$work/x"
    [ -f "$work/x/redis-$REDIS_VERSION/tests/test_helper.tcl" ] || die "unexpected tarball layout"
    grep -q "REDIS_VERSION \"$REDIS_VERSION\"" "$work/x/redis-$REDIS_VERSION/src/version.h" \
        || die "unpacked source is not Redis $REDIS_VERSION"
    rm -rf "$SRC"; mv "$work/x/redis-$REDIS_VERSION" "$SRC"
    mkdir -p "$CACHE/dist"; mv "$work/dl"/* "$CACHE/dist/"
    rm -rf "$work"
    touch "$SRC/.compat-ready"
}
mkdir -p "$CACHE"
[ -f "$SRC/.compat-ready" ] || fetch_suite
[ $FETCH = 0 ] || { echo "compat.sh: test suite ready in $SRC"; exit 0; }
grep -q "REDIS_VERSION \"$REDIS_VERSION\"" "$SRC/src/version.h" || die "$SRC is not Redis $REDIS_VERSION (remove it)"
for u in "${UNITS[@]}"; do [ -f "$SRC/tests/$u.tcl" ] || die "no such unit: $u"; done

# ---------------------------------------------------------------- private tree
mkdir -p "$LOG_DIR"
TREE=$LOG_DIR/suite
SERVER_PIDS=$LOG_DIR/spawned.pids   # every server src/redis-server started in this run
RUN_MARK="COMPAT_RUN=$$.$(date +%s%N)"
# redis-cli's options for the server under test: TLS with the suite's client certificate in --tls mode.
CLI_TLS=()
[ $TLS = 0 ] || CLI_TLS=(--tls --cacert "$TREE/tests/tls/ca.crt" --cert "$TREE/tests/tls/client.crt"
                         --key "$TREE/tests/tls/client.key")
make_tree() {
    # Symlinks into the cache for everything but tests/tmp (emptied by every harness start)
    # and src/ (the programs the suite runs: redis-server, -cli, -benchmark, -check-aof/-rdb).
    local f
    rm -rf "$TREE"; mkdir -p "$TREE/tests/tmp" "$TREE/src"
    for f in "$SRC"/* "$SRC"/.[!.]*; do
        [ -e "$f" ] || continue
        case ${f##*/} in src|tests) ;; *) ln -s "$f" "$TREE/" ;; esac
    done
    for f in "$SRC"/tests/*; do
        case ${f##*/} in tmp|tls) ;; *) ln -s "$f" "$TREE/tests/" ;; esac
    done
    # The suite's TLS mode reads its certificates from tests/tls (client and server alike).
    if [ $TLS = 1 ]; then "$ROOT/scripts/gen-test-certs.sh" "$TREE/tests/tls" >/dev/null; fi
    for f in redis-cli redis-benchmark redis-check-aof redis-check-rdb; do
        if command -v "$f" >/dev/null 2>&1; then ln -s "$(command -v "$f")" "$TREE/src/$f"; fi
    done
    write_server_shim "$TREE/src/redis-server" "$SERVER_PIDS" "$RUN_MARK" "$SERVER" "$SPAWN_OPTS" "$JAR"
}

# ---------------------------------------------------------------- server
rm -f "$LOG_DIR"/*.log "$LOG_DIR"/results.tsv "$LOG_DIR"/summary.txt "$SERVER_PIDS"
rm -rf "$LOG_DIR/servers"
SERVER_LOG=$LOG_DIR/server.log
SERVER_DIR=$LOG_DIR/server-dir    # server cwd: a SAVE/BGSAVE lands here
rm -rf "$SERVER_DIR"; mkdir -p "$SERVER_DIR"
SERVER_PID=

# Ports come from a slot this run holds (an flock on a file in $COMPAT_PORT_LOCKS) for as long as it
# runs, so runs side by side on one machine (CI's two lanes) never hand out the same port. Picked
# at random from overlapping ranges, a run could start its server on a port a spawned server of the
# other run had just bound and take that server's PONG for its own.
# Slot k spans [12000+400k, 12400+400k): the harness's control socket in its first 32 ports, then
# the ports its spawned servers take (it also checks port+10000 for a cluster bus). 23 slots keep
# all of it below the kernel's ephemeral range (32768+), where outgoing connections hold ports.
PORT_LOCKS=${COMPAT_PORT_LOCKS:-${TMPDIR:-/tmp}/cinnabar-compat-ports}
claim_port_slot() {
    local k
    mkdir -p "$PORT_LOCKS"
    for k in $(shuf -i 0-22); do
        exec {SLOT_FD}>>"$PORT_LOCKS/slot-$k.lock"
        if flock -n "$SLOT_FD"; then SLOT_BASE=$(( 12000 + 400 * k + 32 )); return; fi
        exec {SLOT_FD}>&-
    done
    die "all 23 port slots in $PORT_LOCKS are held by other runs"
}
SLOT_PORTS=368   # up to the next slot's control socket
claim_port_slot
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() {
    local p _
    for _ in $(seq 1 200); do
        p=$(( SLOT_BASE + RANDOM % SLOT_PORTS ))
        port_busy "$p" || { echo "$p"; return; }
    done
    die "no free port found in $SLOT_BASE..$(( SLOT_BASE + SLOT_PORTS - 1 ))"
}
PORT=${COMPAT_PORT:-$(pick_port)}
[ $MODE = external ] || PORT=

# A class-data-sharing archive of what a server start loads, made once per jar and JDK (next to the
# jar; another JDK ignores an archive silently) by one run that starts, serves a few commands and
# shuts down (JDK 17: -XX:ArchiveClassesAtExit). Prints the archive's path, or nothing when it could
# not be made (servers then start without).
cds_archive() {
    local jdk jsa tmp port pid _ log=$LOG_DIR/cds-dump.log
    jdk=$(readlink -f "$(command -v java)" | md5sum | cut -c1-8)
    jsa=${JAR%.jar}-$jdk.jsa
    if [ -f "$jsa" ] && [ "$jsa" -nt "$JAR" ]; then echo "$jsa"; return; fi
    tmp=$jsa.tmp.$$ port=$(pick_port)
    # shellcheck disable=SC2086
    java -XX:ArchiveClassesAtExit="$tmp" $JVM_OPTS -jar "$JAR" "$SRC/tests/assets/default.conf" \
        --port "$port" --dir "$LOG_DIR" --pidfile "" --save "" >"$log" 2>&1 </dev/null &
    pid=$!
    for _ in $(seq 1 300); do
        [ "$(timeout 5 redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    for c in "set k v" "get k" "incr n" "hset h f v" "lpush l a" "zadd z 1 a" "sadd s a" "expire k 100" \
             "config get *" "info" "client list" "debug object k" "flushall"; do
        # shellcheck disable=SC2086
        timeout 5 redis-cli -p "$port" $c >/dev/null 2>&1 || true
    done
    timeout 5 redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    if [ -s "$tmp" ]; then mv -f "$tmp" "$jsa"; echo "$jsa"; else rm -f "$tmp"; echo "compat.sh: no CDS archive made (see $log)" >&2; fi
}

# Servers a harness killed by the unit timeout leaves behind: stop them, by the pids the shim
# recorded, and only processes carrying this run's mark (a pid may have been reused since).
stop_leftover_servers() {
    [ -f "$SERVER_PIDS" ] || return 0
    local pid left=()
    while read -r pid; do
        if { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qx "$RUN_MARK"; then
            kill "$pid" 2>/dev/null && left+=("$pid")
        fi
    done <"$SERVER_PIDS"
    : >"$SERVER_PIDS"
    [ ${#left[@]} -gt 0 ] || return 0
    sleep 2
    for pid in "${left[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    echo "compat.sh: stopped ${#left[@]} server(s) left running by the harness" >&2
}

JVM_OPTS="${COMPAT_SPAWN_JAVA_OPTS:-$SPAWN_JAVA_OPTS} ${COMPAT_JAVA_OPTS:-}"
SPAWN_OPTS=$JVM_OPTS
if [ $MODE = spawn ] && [ "$SERVER" = cinnabar ]; then
    jsa=$(cds_archive)
    # JVM warnings (e.g. about the archive) go to the server's stderr file, not into its log.
    [ -z "$jsa" ] || SPAWN_OPTS="$SPAWN_OPTS -XX:SharedArchiveFile=$jsa -Xlog:disable -Xlog:all=warning:stderr"
fi
make_tree

stop_server() {
    [ -n "$SERVER_PID" ] || return 0
    if kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        local _
        for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$SERVER_PID" 2>/dev/null || true
    fi
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=
}
TCL_PID=
# shellcheck disable=SC2317  # invoked by trap
cleanup() {
    [ -z "$TCL_PID" ] || kill "$TCL_PID" 2>/dev/null || true
    stop_server
    stop_leftover_servers
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start_server() {
    local _
    for _ in 1 2 3; do
        start_server_once && return 0
        # a port picked by us may have been taken meanwhile: retry on another
        [ -z "${COMPAT_PORT:-}" ] || break
        PORT=$(pick_port)
    done
    tail -n 30 "$SERVER_LOG" >&2
    die "$SERVER did not start (log: $SERVER_LOG)"
}
start_server_once() {
    echo "===== $(date '+%F %T') starting $SERVER on port $PORT =====" >>"$SERVER_LOG"
    local -a listen=(--port "$PORT")
    if [ $TLS = 1 ]; then
        local t=$TREE/tests/tls
        listen=(--port 0 --tls-port "$PORT" --tls-cert-file "$t/server.crt" --tls-key-file "$t/server.key"
                --tls-ca-cert-file "$t/ca.crt" --tls-dh-params-file "$t/redis.dh")
    fi
    if [ "$SERVER" = redis ]; then
        # shellcheck disable=SC2086
        (cd "$SERVER_DIR" && exec redis-server "${listen[@]}" --save "" --appendonly no --daemonize no $DANGEROUS_ARGS) \
            >>"$SERVER_LOG" 2>&1 </dev/null &
    else
        # shellcheck disable=SC2086
        (cd "$SERVER_DIR" && exec java ${COMPAT_JAVA_OPTS:-} -jar "$JAR" "${listen[@]}" --save "" --appendonly no $DANGEROUS_ARGS) \
            >>"$SERVER_LOG" 2>&1 </dev/null &
    fi
    SERVER_PID=$!
    local deadline=$((SECONDS + START_TIMEOUT))
    while [ $SECONDS -lt $deadline ]; do
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
            echo "compat.sh: $SERVER exited during startup on port $PORT" | tee -a "$SERVER_LOG" >&2
            wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=
            return 1
        fi
        [ "$(timeout 5 redis-cli "${CLI_TLS[@]}" -p "$PORT" ping 2>/dev/null)" = PONG ] && return 0
        sleep 0.2
    done
    echo "compat.sh: $SERVER did not answer PING with PONG on port $PORT within ${START_TIMEOUT}s" | tee -a "$SERVER_LOG" >&2
    stop_server
    return 1
}
server_alive() {
    [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null &&
        [ "$(timeout 10 redis-cli "${CLI_TLS[@]}" -p "$PORT" ping 2>/dev/null)" = PONG ]
}

# ---------------------------------------------------------------- parsing
# parse_log UNIT LOGFILE RC TIMEOUT -> appends "unit<TAB>status<TAB>name" to results.tsv
# status: ok | err | abort (unit-level failure) | ignore | skip
parse_log() {
    sed 's/\x1b\[[0-9;]*m//g' "$2" | awk -v unit="$1" -v rc="$3" -v to="$4" '
        BEGIN { OFS="\t"; done=0; aborted=0; pend="" }
        { sub(/\r$/, ""); gsub(/\t/, " ") }
        # the line after an [err] line is the error message (4th column); for
        # non-assertion errors the harness cuts its first 10 chars and the
        # full message follows on the next line.
        pend != "" && np == 1 { if ($0 ~ /^\[/) { emit(); } else { d1=$0; np=2; next } }
        pend != "" && np == 2 { if ($0 !~ /^\[/ && d1 != "" && index($0, d1) > 0) d1=$0
                                emit() }
        /^\[ok\]: / { n=substr($0, 7); sub(/ \([0-9]+ ms\)$/, "", n); print unit, "ok", n; next }
        /^\[err\]: / {
            n=substr($0, 8)
            p=0; s=n
            # name is everything before the last " in tests/....tcl"
            while ((i=index(s, " in tests/")) > 0) { p+=i; s=substr(s, i+1) }
            np=1; d1=""
            if (p > 0 && s ~ /^in tests\/[^ ]*\.tcl$/) pend = unit OFS "err" OFS substr(n, 1, p-1)
            else { pend = unit OFS "abort" OFS "[error outside a test] " n; aborted=1 }
            next }
        /^\[exception\]: / { print unit, "abort", "[exception] " substr($0, 14); aborted=1; next }
        /^\[TIMEOUT\]: / { print unit, "abort", "[harness timeout] no progress"; aborted=1; next }
        /^\[ignore\]: / { print unit, "ignore", substr($0, 11); next }
        /^\[skip\]: / { print unit, "skip", substr($0, 9); next }
        /^\[[0-9]+\/[0-9]+ done\]: / { done=1 }
        function emit() { d1=substr(d1, 1, 300); gsub(/[[:cntrl:]]/, "?", d1); print pend, d1; pend="" }
        END {
            if (pend != "") emit()
            if (rc == 124 || rc == 137) print unit, "abort", "[timeout] unit did not finish within " to "s"
            else if (!done && !aborted) print unit, "abort", "[harness exit " rc "] unit did not complete"
        }'
}

# ---------------------------------------------------------------- run
RESULTS=$LOG_DIR/results.tsv
: >"$RESULTS"
echo "compat: mode=$MODE$([ $TLS = 0 ] || echo +tls) server=$SERVER${PORT:+ port=$PORT} units=${#UNITS[@]} tags='$TAGS' suite=$SRC logs=$LOG_DIR"
# run_unit UNIT [LOG_SUFFIX]: runs one unit, appends its results to $RESULTS, prints its line.
run_unit() {
    local u=$1 k utimeout left log t rc before counts ok fail skipped status stall keep
    k=$(key_of "$u")
    utimeout=$UNIT_TIMEOUT
    if [ "$BUDGET" -gt 0 ]; then
        left=$((BUDGET - (SECONDS - T0)))
        if [ "$left" -lt 5 ]; then
            printf '%s\tabort\t[not run: COMPAT_BUDGET of %ss exhausted]\n' "$k" "$BUDGET" >>"$RESULTS"
            printf '%-32s %-3s not run: COMPAT_BUDGET of %ss exhausted\n' "$k" err "$BUDGET"
            return
        fi
        [ "$left" -ge "$utimeout" ] || utimeout=$left
    fi
    log=$LOG_DIR/$(echo "$k" | tr /: __)${2:-}.log
    t=$SECONDS rc=0
    if [ $MODE = external ]; then
        if [ "$RESTART" = unit ] || ! server_alive; then
            stop_server
            start_server
        fi
        # The harness's own control socket sits just below --baseport, at the slot's start.
        target=(--host 127.0.0.1 --port "$PORT" --baseport "$SLOT_BASE")
    else
        # Spawned servers get ports from the slot (see claim_port_slot). The harness's own
        # timeout (no test finished for that long: a test waiting for data a server failed to
        # load can block forever) comes before ours, so it stops its servers.
        stall=$TEST_TIMEOUT; [ "$stall" -lt $(( utimeout * 9 / 10 )) ] || stall=$(( utimeout * 9 / 10 ))
        target=(--baseport "$SLOT_BASE" --portcount "$SLOT_PORTS" --timeout "$stall" --dont-clean)
    fi
    # shellcheck disable=SC2086
    [ $TLS = 0 ] || target+=(--tls)
    (cd "$TREE" && TERM=dumb exec timeout -k 10 "$utimeout" tclsh tests/test_helper.tcl \
        "${target[@]}" --single "$u" --durable --clients 1 --tags "$TAGS" $TCL_ARGS) >"$log" 2>&1 </dev/null &
    TCL_PID=$!
    wait "$TCL_PID" || rc=$?
    TCL_PID=
    before=$(wc -l <"$RESULTS")
    parse_log "$k" "$log" "$rc" "$utimeout" >>"$RESULTS"
    if [ $MODE = spawn ]; then
        stop_leftover_servers
        keep=$LOG_DIR/servers/$(echo "$u" | tr / _)${2:-}
        mkdir -p "$keep"
        mv "$TREE"/tests/tmp/* "$keep"/ 2>/dev/null || true
    elif ! server_alive; then
        printf '%s\tabort\t[server died or stopped answering PING]\n' "$k" >>"$RESULTS"
        stop_server
    fi
    counts=$(tail -n +$((before + 1)) "$RESULTS" | awk -F'\t' '
        $2=="ok"{o++} $2=="err"||$2=="abort"{f++} $2=="ignore"||$2=="skip"{s++}
        END{printf "%d %d %d", o, f, s}')
    read -r ok fail skipped <<<"$counts"
    status=ok; [ "$fail" = 0 ] || status=err
    printf '%-32s %-3s %5d passed, %4d failed, %4d skipped/ignored  (%ds)\n' \
        "$k" "$status" "$ok" "$fail" "$skipped" $((SECONDS - t))
}

T0=$SECONDS
for u in "${UNITS[@]}"; do run_unit "$u"; done
stop_server
ELAPSED=$((SECONDS - T0))

PASSED=$(awk -F'\t' '$2=="ok"' "$RESULTS" | wc -l)
FAILED=$(awk -F'\t' '$2=="err"||$2=="abort"' "$RESULTS" | wc -l)
if [ "$FAILED" -gt 0 ]; then
    echo
    echo "Failing tests:"
    awk -F'\t' '$2=="err"||$2=="abort" { print "  " $1 "\t" $3 }' "$RESULTS"
    echo "(error messages: $LOG_DIR/failures.txt)"
fi
awk -F'\t' '$2=="err"||$2=="abort" { print $1 "\t" $3 "\n    " $4 }' "$RESULTS" >"$LOG_DIR/failures.txt"
echo
echo "compat: ${#UNITS[@]} units in ${ELAPSED}s against $SERVER; raw logs in $LOG_DIR"

# ---------------------------------------------------------------- ratchet
RUN_UNITS=$(for u in "${UNITS[@]}"; do key_of "$u"; done | tr '\n' ' ')
EXIT=0
[ "$FAILED" = 0 ] || EXIT=1
# ratchet_check: the ratchet entries of the units run that did not pass, one per line, in
# $missing; their count in $bad, the entries checked in $checked, the others in $notrun.
ratchet_check() {
    missing=$(awk -F'\t' -v runs="$RUN_UNITS" '
        BEGIN { n=split(runs, R, " "); for (i=1;i<=n;i++) ran[R[i]]=1 }
        FILENAME==ARGV[1] { if ($2=="ok") pass[$1 SUBSEP $3]++; next }
        { sub(/\r$/, "") }
        /^[ \t]*(#|$)/ { next }
        { k=$1 SUBSEP substr($0, length($1)+2)
          if (!($1 in ran)) { notrun++; next }
          need[k]++; checked++
          if (need[k] > pass[k]) { print $0; bad++ } }
        END { printf "%d %d %d\n", checked, notrun, bad > "/dev/stderr" }' "$RESULTS" "$RATCHET" 2>"$LOG_DIR/ratchet.counts")
    read -r checked notrun bad <"$LOG_DIR/ratchet.counts"; rm -f "$LOG_DIR/ratchet.counts"
}

# The error each of these "unit<TAB>test" lines got in $RESULTS (or that it did not run).
ratchet_errors() {
    awk -F'\t' 'FILENAME==ARGV[1] { want[$0]=1; next }
        ($1 "\t" $3) in want && ($2=="err" || $2=="abort") { print "  " $1 "\t" $3 "\n      " $4; seen[$1 "\t" $3]=1 }
        END { for (w in want) if (!(w in seen)) print "  " w "\n      (no result: the test did not run)" }' \
        <(printf '%s\n' "$1") "$RESULTS"
}

if [ -n "$RATCHET" ]; then
    EXIT=0
    ratchet_check
    if [ "$bad" -gt 0 ] && [ "$RATCHET_RERUNS" -gt 0 ]; then
        # A test that failed once among thousands on a loaded machine, and passes when its unit
        # runs again, is reported as flaky with its first error, not as a regression; a test
        # that fails twice is one.
        flaky_first=$missing
        rerun_units=$(printf '%s\n' "$missing" | cut -f1 | sort -u)
        echo
        echo "ratchet: $bad of $checked ratchet tests did not pass; their errors:"
        ratchet_errors "$missing"
        echo "ratchet: running their units once more ($(echo $rerun_units)) to tell a flaky test from a broken one"
        first=$RESULTS.first
        mv "$RESULTS" "$first"
        awk -F'\t' -v units="$(echo $rerun_units)" 'BEGIN { n=split(units, U, " "); for (i=1;i<=n;i++) r[U[i]]=1 }
            !($1 in r)' "$first" >"$RESULTS"
        for k in $rerun_units; do
            u=${k#spawn:}; u=${u#tls:}
            run_unit "$u" .rerun
        done
        stop_server
        ratchet_check
        if [ "$bad" = 0 ]; then
            echo "FLAKY (failed in the first run, passed in the re-run of their unit):"
            printf '%s\n' "$flaky_first" | sed 's/^/  /'
        fi
    fi
    if [ "$bad" -gt 0 ]; then
        echo "RATCHET FAILED: $bad of $checked ratchet tests did not pass ($RATCHET):"
        ratchet_errors "$missing"
        EXIT=1
    else
        echo "ratchet ok: all $checked ratchet tests passed ($notrun entries belong to units not run)"
    fi
fi

if [ -n "$WRITE_RATCHET" ]; then
    # Keep the leading comment header. Body = one section per unit, starting
    # with "## <unit>"; comment lines inside a section (known exceptions with
    # reasons) belong to it and are kept. Sections of units run now get their
    # entries replaced by this run's passing tests; other sections are kept.
    tmp=$WRITE_RATCHET.tmp.$$
    old=$WRITE_RATCHET; [ -f "$old" ] || old=/dev/null
    awk -F'\t' -v runs="$RUN_UNITS" '
        BEGIN { n=split(runs, R, " "); for (i=1;i<=n;i++) ran[R[i]]=1; inhdr=1; cur="" }
        FILENAME==ARGV[1] { if ($2=="ok") { if (!($1 in npass)) { order[++nu]=$1 } npass[$1]++; P[$1, npass[$1]]=$3 } next }
        { sub(/\r$/, "") }
        inhdr && /^[ \t]*(#|$)/ && !/^## / { hdr = hdr $0 "\n"; next }
        { inhdr=0 }
        /^## / { cur=substr($0, 4); sub(/[ \t]+$/, "", cur); addsec(cur); next }
        /^[ \t]*$/ { next }
        /^[ \t]*#/ { if (cur=="") { hdr = hdr $0 "\n"; next } C[cur] = C[cur] $0 "\n"; next }
        { u=$1; if (u != cur) { cur=u; addsec(u) } E[u] = E[u] $0 "\n" }
        function addsec(s) { if (!(s in has)) { has[s]=1; secs[++ns]=s } }
        END {
            sub(/\n+$/, "\n", hdr)
            if (hdr == "") hdr = "# Cinnabar compat ratchet: tests that must keep passing (see compat/README.md)\n"
            printf "%s", hdr
            for (i=1;i<=nu;i++) addsec(order[i])
            for (i=1;i<=ns;i++) { s=secs[i]
                if (s in ran) { body=""; for (j=1;j<=npass[s];j++) body = body s "\t" P[s, j] "\n" }
                else body=E[s]
                if (body == "" && C[s] == "") continue
                printf "\n## %s\n%s%s", s, C[s], body }
        }' "$RESULTS" "$old" >"$tmp"
    mv "$tmp" "$WRITE_RATCHET"
    echo "wrote ratchet: $WRITE_RATCHET ($(grep -cv '^[[:space:]]*\(#\|$\)' "$WRITE_RATCHET" || true) entries)"
fi

echo "$PASSED passed, $FAILED failed"
exit $EXIT
