#!/usr/bin/env bash
# Redis 7.0.15's Sentinel test suite (tests/sentinel, run by runtest-sentinel) with Cinnabar as the
# five monitored servers and real Redis's sentinels (Debian's redis-server started as
# redis-sentinel) watching them: failovers, replica reconfiguration, CONFIG REWRITE, ACLs, master
# reboots, replica-priority and replica-announced, as a Sentinel deployment drives its servers.
#
#   scripts/sentinel-suite.sh                               # run it, print each test's result
#   scripts/sentinel-suite.sh --ratchet compat/sentinel-ratchet.txt        # fail if a listed test did not pass
#   scripts/sentinel-suite.sh --write-ratchet compat/sentinel-ratchet.txt  # list what passed
#   scripts/sentinel-suite.sh --server redis                # the servers are real Redis too
#
# The suite comes from scripts/compat.sh's cache. Its harness takes fixed ports: sentinels from
# 23000 (moved from 20000, where compat.sh's port slots are) and servers from 30000. Work files
# go to target/sentinel-suite/. Exits 1 when a listed test did not pass, 2 on a usage or set-up error.
set -euo pipefail

ROOT=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
# shellcheck source=lib/server-shim.sh
source "$ROOT/scripts/lib/server-shim.sh"
SERVER=cinnabar RATCHET='' WRITE_RATCHET=''
die() { echo "sentinel-suite.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
        --server) SERVER=${2:?}; shift 2 ;;
        --ratchet) RATCHET=$(readlink -f "${2:?}"); shift 2 ;;
        --write-ratchet) WRITE_RATCHET=$(readlink -m "${2:?}"); shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument: $1 (see --help)" ;;
    esac
done
case $SERVER in cinnabar|redis) ;; *) die "--server must be cinnabar or redis" ;; esac
REDIS_SERVER=$(command -v redis-server) || die "needs redis-server (apt-get install redis-server)"
command -v tclsh >/dev/null || die "needs tclsh (apt-get install tcl)"
JAR=${CINNABAR_JAR:-$ROOT/target/cinnabar.jar}
[ "$SERVER" = redis ] || [ -f "$JAR" ] || (cd "$ROOT" && mvn -q -B package -DskipTests)

SRC=$("$ROOT/scripts/compat.sh" --fetch | sed -n 's/^compat.sh: test suite ready in //p')
[ -d "$SRC/tests/sentinel" ] || die "no Sentinel suite in '$SRC'"
WORK=$ROOT/target/sentinel-suite
TREE=$WORK/suite
SERVER_PIDS=$WORK/spawned.pids
RUN_MARK="SENTINEL_SUITE_RUN=$$.$(date +%s%N)"

# A private tree: the suite writes into tests/sentinel/tmp, and its base ports are patched in a
# copy of instances.tcl; everything else links to the cache.
rm -rf "$TREE"; mkdir -p "$TREE/src" "$TREE/tests"
for f in "$SRC"/*; do case ${f##*/} in src|tests) ;; *) ln -s "$f" "$TREE/" ;; esac; done
for f in "$SRC"/tests/*; do case ${f##*/} in sentinel|instances.tcl) ;; *) ln -s "$f" "$TREE/tests/" ;; esac; done
cp -r "$SRC/tests/sentinel" "$TREE/tests/"
rm -rf "$TREE/tests/sentinel/tmp"; mkdir "$TREE/tests/sentinel/tmp"
sed 's/^set ::sentinel_base_port 20000$/set ::sentinel_base_port 23000/' "$SRC/tests/instances.tcl" >"$TREE/tests/instances.tcl"
grep -q '^set ::sentinel_base_port 23000$' "$TREE/tests/instances.tcl" || die "instances.tcl has no sentinel base port line to move"
# redis-server started under the name redis-sentinel runs as a sentinel.
ln -s "$REDIS_SERVER" "$TREE/src/redis-sentinel"
ln -s "$(command -v redis-cli)" "$TREE/src/redis-cli"
# The README's JVM options without the JIT warm-up (the suite restarts servers often), and the
# class data sharing archive they name relative to the repository (the harness starts servers elsewhere).
write_server_shim "$TREE/src/redis-server" "$SERVER_PIDS" "$RUN_MARK" "$SERVER" \
    "@$ROOT/conf/jvm.options -XX:SharedArchiveFile=$ROOT/target/cinnabar.jsa -Dcinnabar.warmupMs=0" "$JAR"

# Servers a killed harness left behind: those of this run only (their environment has the mark).
stop_leftovers() {
    [ -f "$SERVER_PIDS" ] || return 0
    while read -r pid; do
        if { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qx "$RUN_MARK"; then kill -9 "$pid" 2>/dev/null || true; fi
    done <"$SERVER_PIDS"
}
trap stop_leftovers EXIT

LOG=$WORK/run.log
echo "sentinel-suite.sh: $SERVER servers, Redis $("$REDIS_SERVER" --version | sed 's/.* v=\([^ ]*\).*/\1/') sentinels; log in $LOG"
(cd "$TREE" && timeout 1200 ./runtest-sentinel) >"$LOG" 2>&1 || true
# "Testing unit: 00-base.tcl", then per test "HH:MM:SS> test name: ", whatever the test prints
# (restarted instances' names, "Waiting for process N to exit..." on a line of its own), and last
# a green OK or a red "FAILED: ..." (instances.tcl's test). A test whose result never came failed.
RESULTS=$WORK/results.tsv
sed 's/\x1b\[[0-9;]*m//g' "$LOG" | awk '
    function settle(s) {
        if (!pending) return
        if (s ~ /FAILED/) { print unit "\tfailed\t" name; pending = 0 }
        else if (s ~ /OK$/) { print unit "\tok\t" name; pending = 0 }
    }
    function unsettled() { if (pending) print unit "\tfailed\t" name; pending = 0 }
    /^Testing unit: / { unsettled(); unit = $3; sub(/\.tcl$/, "", unit); next }
    /^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]> / {
        unsettled()
        rest = substr($0, 11); i = index(rest, ": ")
        name = substr(rest, 1, i - 1)
        # The instance a failover promotes, named in some tests, is picked by the sentinels.
        gsub(/127\.0\.0\.1:[0-9]+/, "<host:port>", name)
        pending = 1; settle(substr(rest, i + 2)); next
    }
    { settle($0) }
    END { unsettled() }' >"$RESULTS"
passed=$(grep -c $'\tok\t' "$RESULTS" || true)
failed=$(grep -c $'\tfailed\t' "$RESULTS" || true)
grep $'\tfailed\t' "$RESULTS" | sed 's/^/FAILED: /' || true
echo "sentinel-suite.sh: $passed passed, $failed failed"

if [ -n "$WRITE_RATCHET" ]; then
    { echo "# Redis 7.0.15's Sentinel tests that pass with Cinnabar's servers (scripts/sentinel-suite.sh):"
      echo "# \"<unit><TAB><test name>\"; a line listed k times must pass at least k times."
      awk -F'\t' '$2 == "ok" { print $1 "\t" $3 }' "$RESULTS"; } >"$WRITE_RATCHET"
    echo "sentinel-suite.sh: wrote $passed tests to $WRITE_RATCHET"
fi
if [ -n "$RATCHET" ]; then
    missing=$(awk -F'\t' 'NR == FNR { if ($2 == "ok") have[$1 "\t" $3]++; next }
        /^#/ || NF == 0 { next }
        { need[$0]++; if (need[$0] > have[$0]) print }' "$RESULTS" "$RATCHET")
    if [ -n "$missing" ]; then
        echo "sentinel-suite.sh: ratchet broken, listed but not passed:"; echo "$missing"
        exit 1
    fi
    echo "sentinel-suite.sh: ratchet ok ($(grep -cv '^#' "$RATCHET") listed)"
fi
