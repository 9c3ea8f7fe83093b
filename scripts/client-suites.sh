#!/usr/bin/env bash
# Client libraries' own test suites against real Redis 7.0.15 and against Cinnabar, one after the
# other with the same configuration, then the tests that fail on one server only. A suite's
# failures on both (sentinels, clusters, modules, other ports its CI provides) are its
# environment's, not ours; what fails on Cinnabar only is a difference a user of that library meets.
#
#   scripts/client-suites.sh redis-py [2|3]        # redis-py 5.2.1 from PyPI (RESP2 or RESP3)
#   scripts/client-suites.sh jedis <checkout>      # e.g. github.com/redis/jedis at v7.4.1
#   scripts/client-suites.sh lettuce <checkout>    # e.g. github.com/redis/lettuce at 7.5.2.RELEASE
#   scripts/client-suites.sh ioredis <checkout>    # e.g. github.com/redis/ioredis at 6.0.0 (Node.js, npm)
#   scripts/client-suites.sh hiredis <checkout>    # e.g. github.com/redis/hiredis at v1.2.0 (C, make)
#   scripts/client-suites.sh go-redis [version]   # github.com/redis/go-redis/v9, default v9.7.0 (Go module proxy)
#   scripts/client-suites.sh redis-rs [2|3]        # redis-rs 0.27.6 from crates.io (Rust, cargo; RESP2 or RESP3)
#   scripts/client-suites.sh redisson <checkout>   # github.com/redisson/redisson at redisson-3.24.3 (Maven)
#   scripts/client-suites.sh spring-data-redis <checkout>  # e.g. github.com/spring-projects/spring-data-redis at 3.5.13
#   scripts/client-suites.sh rueidis [version]     # github.com/redis/rueidis, default v1.0.79 (Go module proxy)
#   scripts/client-suites.sh rueidiscompat [version]  # github.com/redis/rueidis/rueidiscompat, default v1.0.79 (Go module proxy)
#   scripts/client-suites.sh redis-plus-plus <checkout>  # e.g. github.com/sewenew/redis-plus-plus at 1.3.15 (C++, cmake,
#                                                  # Debian's libhiredis-dev 0.14.1)
#   scripts/client-suites.sh node-redis <checkout> [2|3]  # e.g. github.com/redis/node-redis at redis@5.12.1 or
#                                                  # redis@4.7.1 (@redis/client, Node.js, npm; RESP3 with 5.x)
#   scripts/client-suites.sh phpredis [checkout]   # Debian's php-redis (5.3.7) and its source package's tests, or a
#                                                  # checkout's (e.g. github.com/phpredis/phpredis at 6.1.0) (PHP)
#   scripts/client-suites.sh redigo [version]      # github.com/gomodule/redigo, default v1.9.3 (Go module proxy)
#   scripts/client-suites.sh radix [2|3]           # github.com/mediocregopher/radix/v4 v4.1.4 (Go module proxy; RESP2 or RESP3)
#   scripts/client-suites.sh redis-rb [ruby|hiredis|synchrony] [checkout [redis-client checkout]]  # Debian's
#                                                  # ruby-redis (4.8.0) with that driver, its source package's tests
#                                                  # or a checkout's (e.g. github.com/redis/redis-rb at v4.8.0, or
#                                                  # v5.4.1 with redis-client v0.25.1) (Ruby, Debian's minitest)
#
# The suites connect to fixed ports (redis-py, Jedis, ioredis, go-redis, hiredis, Spring Data Redis, rueidis,
# rueidiscompat, redis-plus-plus, phpredis and radix 6379, Lettuce 6479, redis-rb 6381 and 6380), so those must be free.
# redigo's tests start their one redis-server from PATH on 16379.
# redis-rs's tests start a redis-server of their own from PATH for each test (random ports), Redisson's
# one for each test class (a random port, plus a few fixed ones), node-redis's one for each set of
# server arguments (the first free ports from 6379 up); the script puts first in PATH either
# real Redis or a redis-server that starts Cinnabar.
# Work files go to target/client-suites/. Exits 1 when a test fails on Cinnabar only.
set -euo pipefail

repo="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
jar="$repo/target/cinnabar.jar"
suite="${1:?usage: client-suites.sh redis-py|jedis|lettuce|ioredis|go-redis|redis-rs|hiredis|redisson|spring-data-redis|rueidis|rueidiscompat|redis-plus-plus|node-redis|phpredis|redis-rb|redigo|radix [protocol|checkout|version]}"
work="$repo/target/client-suites/$suite"
mkdir -p "$work"
[[ -f $jar ]] || (cd "$repo" && mvn -q -B package -DskipTests)
command -v redis-server >/dev/null || { echo "needs redis-server (apt-get install redis-server redis-tools)" >&2; exit 2; }

# Maven suites (Jedis, Lettuce, Redisson): Surefire lists each failing test as "Class.method:line ..."
# (reruns as "Run 1: ...").
surefire_failures() { { grep -E '^\[ERROR\]   (Run 1: )?[A-Za-z0-9_]+\.[A-Za-z0-9_]+' "$1" || true; } | sed -E 's/^\[ERROR\]   (Run 1: )?//; s/[: ].*//' | sort -u; }
surefire_ran() { grep -qE '^\[(INFO|WARNING|ERROR)\] Tests run: [0-9]+, Failures' "$1"; }

# Go suites: where the module proxy's copy of module@version is, and a writable copy of it at dest
# (the module cache is read-only; the test binaries are built inside the copy).
go_module_dir() { (cd "$work" && go mod download -json "$1" | python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])'); }
go_module_copy() { # module@version dest
    [[ -d $2 ]] && return
    cp -r "$(go_module_dir "$1")" "$2.tmp" && chmod -R u+w "$2.tmp" && mv "$2.tmp" "$2"
}

# Debian's source package of an installed package (phpredis, redis-rb) into $work/debsrc, with a sources
# list of our own: the machine's may have no deb-src lines.
debian_source() { # package
    local d="$work/debsrc" release
    release="$(. /etc/os-release && echo "$VERSION_CODENAME")"
    mkdir -p "$d/lists/partial"
    printf 'deb-src http://deb.debian.org/debian %s main\ndeb-src http://deb.debian.org/debian-security %s-security main\n' \
        "$release" "$release" >"$d/sources.list"
    local opts=(-o "Dir::Etc::SourceList=$d/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$d/lists")
    apt-get update -q "${opts[@]}" >"$d/update.log" 2>&1
    (cd "$d" && apt-get source -q --download-only "${opts[@]}" "$1=$(dpkg-query -W -f '${Version}' "$1")" >"$d/source.log" 2>&1) \
        || { echo "apt-get source $1 failed (see $d/source.log): give a checkout instead" >&2; exit 2; }
}

# What each suite's own CI gives its main server (from their Makefiles and docker-compose files).
# own_servers: the suite starts its servers itself (as redis-server from PATH), none is started here.
own_servers=""
case $suite in
    redis-py)
        port=6379
        conf=("enable-debug-command yes" "enable-module-command yes")
        protocol="${2:-2}"
        src="$work/redis-5.2.1"
        if [[ ! -d $src ]]; then
            python3 -m pip download -q "redis==5.2.1" --no-binary :all: --no-deps -d "$work"
            tar xzf "$work/redis-5.2.1.tar.gz" -C "$work"
        fi
        if [[ ! -x $work/venv/bin/python ]]; then
            python3 -m venv "$work/venv"
            "$work/venv/bin/pip" install -q "$src" pytest "pytest-asyncio==0.23.8" pytest-timeout mock packaging numpy ujson
        fi
        run_suite() { # log
            (cd "$src" && "$work/venv/bin/python" -m pytest tests -p no:cacheprovider -q --timeout=60 -rfE \
                --ignore=tests/test_asyncio --ignore=tests/test_cluster.py --ignore=tests/test_sentinel.py \
                -m "not redismod and not onlycluster" --protocol="$protocol" >"$1" 2>&1) || true
        }
        failures() { { grep -E '^(FAILED|ERROR) ' "$1" || true; } | sed 's/ - .*//' | sort -u; }
        ran() { grep -qE '[0-9]+ passed' "$1"; }
        ;;
    jedis | lettuce | spring-data-redis)
        src="$(cd "${2:?give the path of a $suite checkout}" && pwd)"
        if [[ $suite == jedis ]]; then
            port=6379
            conf=("requirepass foobared" "user deploy on allcommands allkeys >verify"
                  "user acljedis on allcommands allkeys >fizzbuzz" "enable-module-command yes"
                  "client-output-buffer-limit pubsub 256k 128k 5")
            run_suite() {
                (cd "$src" && mvn -B test -DexcludedGroupsForUnitTests=scenario -DtrimStackTrace=true \
                    "-Dtest=redis.clients.jedis.commands.jedis.*CommandsTest,redis.clients.jedis.*Test,!redis.clients.jedis.commands.jedis.Cluster*,!redis.clients.jedis.commands.jedis.Sentinel*" \
                    -Dsurefire.failIfNoSpecifiedTests=false >"$1" 2>&1) || true
            }
        elif [[ $suite == lettuce ]]; then
            port=6479
            conf=("enable-debug-command yes" "client-output-buffer-limit pubsub 256k 128k 5"
                  "unixsocket $work/socket-6479" "unixsocketperm 777")
            run_suite() {
                (cd "$src" && mvn -B test-compile failsafe:integration-test -DskipITs=false -Dmaven.gitcommitid.skip=true \
                    -Dformatter.skip=true \
                    -DtrimStackTrace=true -Dfailsafe.failIfNoSpecifiedTests=false \
                    "-Dit.test=io.lettuce.core.*IntegrationTests,io.lettuce.core.commands.**.*IntegrationTests,io.lettuce.core.pubsub.**.*IntegrationTests,io.lettuce.core.protocol.*IntegrationTests" \
                    >"$1" 2>&1) || true
            }
        else
            # Its tests other than unit, cluster, sentinel and static master/replica ones, with the long-running
            # ones (expiry, blocking pops, pub/sub; its `make all-tests`), each over Lettuce and Jedis (and its
            # serializers) where it parameterizes them; its conditions skip commands newer than 7.0. Its CI's
            # 6380-6382 (replicas of 6379, one with ACL users) are not started: the tests that need them
            # (ACL, read from replica) skip themselves on both servers. ~15,300 tests, 9-14 min per server
            # on 2 busy cores; RedisCacheTests.retrieveReturnsCachedValueWhenLockIsReleased waits 15 ms for
            # a cache lock to be seen released and fails on either server when the machine is loaded.
            # Maven Central as reachable here lacks two of its test-only dependencies at the versions 3.5.13
            # names (micrometer-test 1.15.12, micrometer-tracing-integration-test 1.5.12): the nearest that
            # resolve are given instead; the enforcer wants Maven 3.9, which is not needed to build it.
            port=6379
            mkdir -p "$src/work"
            conf=("notify-keyspace-events Ex" "unixsocket $src/work/redis-6379.sock" "unixsocketperm 755")
            run_suite() {
                (cd "$src" && mvn -B test -Denforcer.skip=true -Dmaven.gitcommitid.skip=true \
                    -Dmicrometer=1.15.10 -Dmicrometer-tracing=1.5.8 -DrunLongTests=true -DtrimStackTrace=true \
                    "-Dtest=**/*Tests,**/*Test,!**/*UnitTests,!**/*UnitTest,!**/*Cluster*,!**/*Sentinel*,!**/StaticMasterReplica*" \
                    -Dsurefire.failIfNoSpecifiedTests=false >"$1" 2>&1) || true
            }
        fi
        failures() { surefire_failures "$1"; }
        ran() { surefire_ran "$1"; }
        ;;
    ioredis)
        # Its unit and functional tests (the cluster and scenario ones need its docker services).
        port=6379
        conf=("enable-debug-command yes")
        src="$(cd "${2:?give the path of an ioredis checkout}" && pwd)"
        [[ -d $src/node_modules ]] || (cd "$src" && npm ci --no-audit --no-fund --ignore-scripts >/dev/null)
        run_suite() {
            (cd "$src" && TS_NODE_TRANSPILE_ONLY=true NODE_ENV=test npx mocha --no-experimental-strip-types \
                --timeout 10000 --reporter json --reporter-option "output=$1.json" \
                "test/helpers/*.ts" "test/unit/**/*.ts" "test/functional/**/*.ts" >"$1" 2>&1) || true
        }
        # One line per failed test: its file and full title (mocha's JSON report).
        failures() {
            node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
                for (const f of r.failures) console.log((f.file || "").replace(/.*\/test\//, "test/") + " :: " + f.fullTitle);' \
                "$1.json" 2>/dev/null | sort -u
        }
        ran() { [[ -s $1.json ]]; }
        ;;
    go-redis)
        # Its Ginkgo suite in RE_CLUSTER mode: one server on 6379, DB 0 (its CI's other mode starts its own
        # redis-servers, ring shards, sentinels and a cluster). Without modules, clusters, rings, sentinels,
        # MONITOR (the suite runs it only with RUN_MONITOR_TEST), the Examples (they need Redis 7.2's
        # CLIENT SETINFO and panic on 7.0) and "XRead LastEntry blocks" (timing-dependent on either server).
        port=6379
        conf=("enable-module-command yes")
        version="${2:-v9.7.0}"; [[ $version == v* ]] || version="v$version"
        command -v go >/dev/null || { echo "needs go (https://go.dev/dl/)" >&2; exit 2; }
        src="$work/go-redis-$version"
        go_module_copy "github.com/redis/go-redis/v9@$version" "$src"
        [[ -x $src/go-redis.test ]] || (cd "$src" && GOFLAGS=-mod=mod go test -c -o go-redis.test .)
        run_suite() {
            rm -f "$1.json"
            (cd "$src" && RE_CLUSTER=true ./go-redis.test -test.timeout 20m -test.v -test.run '^TestGinkgoSuite$' \
                -ginkgo.no-color -ginkgo.v -ginkgo.seed 1 -ginkgo.json-report "$1.json" \
                -ginkgo.label-filter '!json && !search && !bloom && !cms && !cuckoo && !tdigest && !topk && !timeseries && !gears && !probabilistic && !vectorset' \
                -ginkgo.skip-file osscluster_test.go -ginkgo.skip-file ring_test.go -ginkgo.skip-file sentinel_test.go \
                -ginkgo.skip-file json_test.go -ginkgo.skip-file search_test.go -ginkgo.skip-file probabilistic_test.go \
                -ginkgo.skip-file timeseries_commands_test.go -ginkgo.skip-file gears_commands_test.go \
                -ginkgo.skip-file vectorset_commands_integration_test.go -ginkgo.skip-file search_builders_test.go \
                -ginkgo.skip 'XRead LastEntry blocks|cluster races|should connect to clusters|should connect to failover' \
                >"$1" 2>&1) || true
        }
        # One line per failed spec: its file and full text (Ginkgo's JSON report).
        failures() {
            python3 -c 'import json, os, sys
for suite in json.load(open(sys.argv[1])):
    for s in suite["SpecReports"]:
        if s["State"] in ("passed", "skipped", "pending"): continue
        name = " ".join(s.get("ContainerHierarchyTexts") or []) + " :: " + (s.get("LeafNodeText") or s["LeafNodeType"])
        print(os.path.basename(s["LeafNodeLocation"]["FileName"]) + " :: " + name)' "$1.json" 2>/dev/null | sort -u
        }
        ran() {
            python3 -c 'import json, sys
sys.exit(not any(s["LeafNodeType"] == "It" and s["State"] not in ("skipped", "pending")
                 for suite in json.load(open(sys.argv[1])) for s in suite["SpecReports"]))' "$1.json" 2>/dev/null
        }
        ;;
    redis-rs)
        # Its integration tests with the features its CI tests with, but without clusters, sentinels,
        # modules and TLS. Each test spawns `redis-server --port N --bind 127.0.0.1 --logfile F` (or
        # `--port 0 --unixsocket P`) and waits for it to accept connections.
        own_servers=1
        protocol="${2:-2}"
        [[ $protocol == [23] ]] || { echo "redis-rs: protocol 2 or 3" >&2; exit 2; }
        version=0.27.6
        features=tokio-comp,connection-manager,num-bigint,rust_decimal,bigdecimal,uuid
        targets=(test_basic test_async test_types test_acl test_bignum test_script test_streams test_geospatial)
        command -v cargo >/dev/null || { echo "needs cargo (https://rustup.rs)" >&2; exit 2; }
        # An existing CARGO_TARGET_DIR is used as is (it saves compiling the dependencies again).
        export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$work/cargo-target}"
        src="$work/redis-$version"
        if [[ ! -d $src ]]; then
            # crates.io's sources through cargo: a project that depends on the crate, vendored.
            rm -rf "$work/fetch" && mkdir -p "$work/fetch/src" && : >"$work/fetch/src/lib.rs"
            printf '[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\nredis = "=%s"\n' \
                "$version" >"$work/fetch/Cargo.toml"
            (cd "$work/fetch" && cargo vendor -q --versioned-dirs vendor >/dev/null)
            cp -r "$work/fetch/vendor/redis-$version" "$src.tmp" && mv "$src.tmp" "$src"
            rm -rf "$work/fetch"
        fi
        target_args=(); for t in "${targets[@]}"; do target_args+=(--test "$t"); done
        (cd "$src" && timeout 3600 cargo test --no-run --features "$features" "${target_args[@]}" >"$work/build.log" 2>&1) \
            || { echo "redis-rs's tests did not build (see $work/build.log)" >&2; exit 2; }
        run_suite() {
            local t rc
            : >"$1"
            for t in "${targets[@]}"; do
                echo "### $t" >>"$1"
                # timeout signals its whole process group, the test binary's redis-servers too.
                rc=0
                (cd "$src" && PROTOCOL="RESP$protocol" timeout -k 10 900 cargo test --features "$features" --test "$t" \
                    -- --test-threads=1 >>"$1" 2>&1) || rc=$?
                # (on a new line: the test it hung in has printed "test NAME ... " only)
                [[ $rc != 124 && $rc != 137 ]] || printf '\n### %s timed out\n' "$t" >>"$1"
            done
        }
        # One line per failed test: "target::module::test" (libtest prints "test NAME ... FAILED"); a
        # target that timed out shows the test it hung in.
        failures() {
            awk '/^### [a-z_]+$/ { t = $2; last = ""; next }
                 /^### [a-z_]+ timed out$/ { print t "::" (last == "" ? "(timed out)" : last " (timed out)"); next }
                 /^test [^ ]+ \.\.\. ?/ { last = ($4 == "" ? $2 : ""); if ($4 == "FAILED") print t "::" $2 }' "$1" | sort -u
        }
        ran() { grep -qE '^test result: ' "$1"; }
        ;;
    hiredis)
        # test.c's binary against one server, over TCP and its unix socket (the throughput part,
        # a benchmark, left out). At v1.2.0 both servers abort after #121, in test_async_polling: an
        # async connect to a blackhole address (192.168.254.254) is expected to time out, which this
        # machine's closed network answers otherwise; the tests after it do not run.
        port=6379
        conf=("unixsocket $work/socket-6379" "unixsocketperm 777")
        src="$(cd "${2:?give the path of a hiredis checkout}" && pwd)"
        [[ -x $src/hiredis-test ]] || (cd "$src" && make -s hiredis-test >/dev/null)
        run_suite() {
            (cd "$src" && timeout 300 ./hiredis-test -h 127.0.0.1 -p "$port" -s "$work/socket-6379" \
                --skip-throughput >"$1" 2>&1) || true
        }
        # "#12 name: FAILED", or the test an assertion aborted in (colour codes stripped).
        failures() {
            sed 's/\x1b\[[0-9;]*m//g; s/\x1b//g' "$1" | awk '/^Testing against/ { via = $3 " " $4 }
                /^#[0-9]+ / && !/(PASSED|SKIPPED) *$/ { sub(/^#[0-9]+ /, ""); sub(/: (FAILED|hiredis-test: ).*/, ""); print via " :: " $0 }' | sort -u
        }
        ran() { grep -q 'PASSED' "$1"; }
        ;;
    redisson)
        # The redisson module's tests at 3.24.3, the last release whose tests start their servers through
        # their RedisRunner (`$redisBinary --port N --dir D --save ""`, a random free port per test class);
        # from 3.25.0 most start Docker containers through Testcontainers. Builds with Java 17.
        # The subset: the test classes of the core objects (buckets, maps and map caches, sets, lists,
        # sorted sets, locks, atomics, topics, streams, queues, semaphores, rate limiters, latches,
        # scripts, functions, keys, geo, bitsets, HyperLogLog): ~1,000 tests, ~45 min per server on
        # 2 busy cores. Left out: the other classes (reactive/Rx duplicates of the same commands, executors,
        # live objects, Spring, JCache, transactions) and, in the subset, the tests that start clusters,
        # sentinels or replicas (*Cluster*, *Sentinel*, *Slaves*, *Failover*, and three whose names do
        # not say so).
        own_servers=1
        src="$(cd "${2:?give the path of a redisson checkout}" && pwd)"
        # Patched in the checkout (idempotent): a few tests start extra servers on RedisRunner's default
        # port 6379 (and sentinels on 26379), which other suites here use, so 6391/26391 instead; one
        # test JVM instead of four (its pom's forkCount), which overloaded 2 cores into timeouts.
        grep -rlE '\b2?6379\b' "$src/redisson/src/test/java" | xargs -r sed -i 's/\b6379\b/6391/g; s/\b26379\b/26391/g'
        sed -i 's#<forkCount>4</forkCount>#<forkCount>1</forkCount>#' "$src/redisson/pom.xml"
        classes=(Bucket Buckets Map Set List ScoredSortedSet Lock FairLock ReadWriteLock AtomicLong AtomicDouble
                 Topic TopicPattern Stream BlockingQueue MapCache SetCache RateLimiter Semaphore
                 PermitExpirableSemaphore CountDownLatch Deque Queue BlockingDeque Keys Script Batch HyperLogLog
                 Geo BitSet LexSortedSet DelayedQueue RingBuffer Function ReliableTopic SortedSet)
        tests="$(printf 'Redisson%sTest,' "${classes[@]}")!*Test#*Cluster*,!*Test#*Sentinel*,!*Test#*Slaves*,!*Test#*Failover*"
        tests+=",!RedissonKeysTest#testKeysByPattern,!RedissonBatchTest#testConnectionLeak,!RedissonSortedSetTest#testNameMapper"
        run_suite() {
            (cd "$src" && mvn -B -pl redisson -Punit-test test -Dlicense.skip=true -DtrimStackTrace=true \
                -DredisBinary=redis-server "-Dtest=$tests" -Dsurefire.failIfNoSpecifiedTests=false >"$1" 2>&1) || true
        }
        failures() { surefire_failures "$1"; }
        ran() { surefire_ran "$1"; }
        ;;
    rueidis)
        # The root package's tests and rueidislock's (RESP3, client-side caching with CLIENT TRACKING
        # OPTIN/OPTOUT/NOLOOP, invalidation pushes; most of the root package's tests talk to mock
        # connections). Left out: the integration tests against its docker-compose's other servers
        # (cluster on 7001-7006, sentinels, Redis 5, KeyDB, Dragonfly, Kvrocks). Its compose file gives
        # the 6379 server no configuration. ~6 min per server. TestSingleClientMultiplex fails on
        # either server on 2 cores (it expects the multiplexing a larger machine gets); TestBackgroundPing
        # and TestConnLifetime time pings and reconnections and failed once on real Redis on 2 busy cores.
        port=6379
        conf=()
        version="${2:-v1.0.79}"; [[ $version == v* ]] || version="v$version"
        command -v go >/dev/null || { echo "needs go (https://go.dev/dl/)" >&2; exit 2; }
        src="$work/rueidis-$version"
        go_module_copy "github.com/redis/rueidis@$version" "$src"
        [[ -x $src/rueidis.test ]] || (cd "$src" && GOFLAGS=-mod=mod go test -c -o rueidis.test .)
        [[ -x $src/rueidislock.test ]] || (cd "$src" && GOFLAGS=-mod=mod go test -c -o rueidislock.test ./rueidislock)
        run_suite() {
            echo "### rueidis" >"$1"
            (cd "$src" && timeout -k 10 1500 ./rueidis.test -test.v -test.timeout 20m \
                -test.skip '^(TestSentinel.*Integration.*|TestClusterClientIntegration.*|TestSingleClient5Integration|TestCluster5ClientIntegration|TestSentinel5ClientIntegration|TestKeyDB.*|TestDragonfly.*|TestKvrocks.*)$' \
                >>"$1" 2>&1) || true
            echo "### rueidislock" >>"$1"
            (cd "$src/rueidislock" && timeout -k 10 900 ../rueidislock.test -test.v -test.timeout 12m >>"$1" 2>&1) || true
        }
        # One line per failed test or subtest: "package :: Test/Subtest" (go test -v's "--- FAIL: NAME"),
        # and the test a timeout panicked in.
        failures() {
            awk '/^### / { p = $2; next }
                 /^ *--- FAIL: / { print p " :: " $3 }
                 /^panic: test timed out/ { timedout = 1 }
                 timedout && /^\t+[^ \t]+ \([0-9]/ { sub(/^\t+/, ""); print p " :: " $1 " (timed out)" }' "$1" | sort -u
        }
        ran() { grep -q -- '--- PASS: ' "$1"; }
        ;;
    rueidiscompat)
        # Its go-redis-compatible adapter's tests: the Ginkgo suite (each command family through the adapter,
        # over RESP3 with client-side caching and over RESP2, pipelines, transactions, pub/sub, scans) and
        # its plain Go tests (most on mocks). Its BeforeSuite connects to its docker-compose's servers:
        # redis-stack 7.4 on 6378 (RESP3), Redis 5 on 6356 (RESP2), redis-stack on 6381 (search), Redis 8.6
        # on 6382 and clusters on 7007/7010; in the test copy all of them are 6379 (the cluster clients fall
        # back to a single-node client on a server without cluster support). Left out: the specs of the
        # clusters ("Cluster"), of Redis 8.6 ("Redis 8.6+ commands"), of modules (RediSearch, RedisJSON,
        # probabilistic, TimeSeries, Gears labels, and the unlabeled Bloom/Cuckoo specs among the sorted
        # sets' and the transaction one that sends JSON.GET) and of 7.4's hash field expiry (its label).
        # ~730 specs, ~1 min per server. Fail on both servers: 7.2's ZRANK/ZREVRANK WITHSCORE (twice
        # each), 7.4's HSCAN NOVALUES, XINFO STREAM/GROUPS over RESP2 (they expect Redis 5's replies),
        # CONFIG REWRITE (expected to fail: compose starts its server without a config file), ACL LOG
        # (expects the 6 entries 7.4 logs for its denied commands and rueidis's handshake; 7.0 logs 5), whose
        # user then stays and fails the next two ACL specs (they pass on both when run alone).
        port=6379
        conf=()
        version="${2:-v1.0.79}"; [[ $version == v* ]] || version="v$version"
        command -v go >/dev/null || { echo "needs go (https://go.dev/dl/)" >&2; exit 2; }
        src="$work/rueidiscompat-$version"
        if [[ ! -d $src ]]; then
            # Its go.mod replaces rueidis and rueidis/mock with ../ and ../mock: the three modules at the
            # same version in rueidis's layout, in a writable copy (the module cache is read-only).
            mod_dir() { go_module_dir "$1@$version"; }
            rm -rf "$src.tmp"
            cp -r "$(mod_dir github.com/redis/rueidis)" "$src.tmp"
            cp -r "$(mod_dir github.com/redis/rueidis/rueidiscompat)" "$src.tmp/rueidiscompat"
            cp -r "$(mod_dir github.com/redis/rueidis/mock)" "$src.tmp/mock"
            chmod -R u+w "$src.tmp"
            sed -i -E 's/127\.0\.0\.1:(6378|6356|6381|6382|7010|7007)"/127.0.0.1:6379"/' "$src.tmp/rueidiscompat/adapter_test.go"
            mv "$src.tmp" "$src"
        fi
        [[ -x $src/rueidiscompat.test ]] || (cd "$src/rueidiscompat" && GOFLAGS=-mod=mod go test -c -o ../rueidiscompat.test .)
        run_suite() {
            rm -f "$1.json"
            (cd "$src/rueidiscompat" && timeout -k 10 1500 ../rueidiscompat.test -test.v -test.timeout 20m \
                -ginkgo.no-color -ginkgo.v -ginkgo.seed 1 -ginkgo.json-report "$1.json" \
                -ginkgo.label-filter '!json && !search && !bloom && !cms && !cuckoo && !tdigest && !topk && !timeseries && !gears && !hash-expiration' \
                -ginkgo.skip '\bCluster\b|Redis 8\.6\+ commands|should (BF|CF)[A-Z]|should catch first cmder error' >"$1" 2>&1) || true
        }
        # One line per failed spec (Ginkgo's JSON report: file, containers and text) and per failed plain Go
        # test ("--- FAIL: NAME", TestAdapter, which runs the specs, left out).
        failures() {
            { python3 -c 'import json, os, sys
for suite in json.load(open(sys.argv[1])):
    for s in suite["SpecReports"]:
        if s["State"] in ("passed", "skipped", "pending"): continue
        name = " ".join(s.get("ContainerHierarchyTexts") or []) + " :: " + (s.get("LeafNodeText") or s["LeafNodeType"])
        print(os.path.basename(s["LeafNodeLocation"]["FileName"]) + " :: " + name)' "$1.json" 2>/dev/null
              awk '/^ *--- FAIL: / && $3 != "TestAdapter" { print "go test :: " $3 }' "$1"; } | sort -u
        }
        ran() {
            python3 -c 'import json, sys
sys.exit(not any(s["LeafNodeType"] == "It" and s["State"] not in ("skipped", "pending")
                 for suite in json.load(open(sys.argv[1])) for s in suite["SpecReports"]))' "$1.json" 2>/dev/null
        }
        ;;
    redis-plus-plus)
        # test_redis++ against one server: its Redis tests (sanity, connection, redlock, each command
        # family, scripts, pub/sub, pipelines and transactions, threads (-m), streams) over RESP2, ~1.5 min.
        # Its cluster tests need a cluster (-n/-c), not given. With Debian's hiredis 0.14 neither RESP3
        # (-3: hiredis 0.14 reads no RESP3 reply) nor AsyncRedis (it needs hiredis 1.0's
        # redisAsyncConnectWithOptions). The binary stops at its first failing test, so one failure
        # hides those after it.
        port=6379
        conf=()
        src="$(cd "${2:?give the path of a redis-plus-plus checkout}" && pwd)"
        command -v cmake >/dev/null || { echo "needs cmake and g++" >&2; exit 2; }
        [[ -f /usr/include/hiredis/hiredis.h ]] || { echo "needs hiredis (apt-get install libhiredis-dev)" >&2; exit 2; }
        if [[ ! -x $work/build/test/test_redis++ ]]; then
            mkdir -p "$work/build"
            (cd "$work/build" && cmake -DCMAKE_BUILD_TYPE=Release -DREDIS_PLUS_PLUS_BUILD_STATIC=OFF "$src" >cmake.log 2>&1 \
                && make -j2 test_redis++ >make.log 2>&1) || { echo "redis-plus-plus did not build (see $work/build)" >&2; exit 2; }
        fi
        run_suite() {
            (cd "$work/build" && timeout -k 10 900 ./test/test_redis++ -h 127.0.0.1 -p "$port" -m >"$1" 2>&1) || true
        }
        # The group it stopped in (the one after the last "Pass ... tests") and its message.
        failures() {
            awk '/^Pass .* tests$/ { last = $0 } /^Test failed: / { print "after \"" (last == "" ? "start" : last) "\" :: " $0 }' "$1"
            grep -q '^Pass all tests' "$1" || grep -q '^Test failed: ' "$1" || echo "(ended without a verdict)"
        }
        ran() { grep -qE '^(Pass .* tests|Test failed: )' "$1"; }
        ;;
    node-redis)
        # @redis/client's own mocha specs (packages/client/lib/**/*.spec.ts: each command's arguments and
        # replies, the client, pool, pub/sub, client-side cache, scripts and functions), told the server
        # is Redis 7.0 (--redis-version: the specs of newer commands skip themselves). Its test-utils
        # start a server per set of server arguments in Docker (5.x: `docker run -e PORT=N ... IMAGE
        # ARGS`; 4.x: `docker build` of an image whose entrypoint is `redis-server ARGS`, then `docker
        # run`; N: the first free port from 6379 up) and remove it with `docker rm -f ID`; here a
        # `docker` first in PATH starts redis-server from PATH instead, and the helpers that need Docker's
        # clusters, sentinels, TLS certificates or fault-injecting proxies (testWithCluster, the cluster
        # half of each testAll, ...) register their tests as skipped (a failing `before` of a cluster
        # would skip the client tests beside it). Left out: lib/sentinel/index.spec.ts (its own
        # sentinels in Docker). Protocol 3 (5.x): the tests' clients speak RESP3 unless a test chose.
        # Its package-lock.json is out of date for npm 10+ (`npm ci` refuses it), so `npm install`; the
        # specs load test-utils' and the modules' built dist/, so the monorepo is built once (~1 min).
        # At redis@5.12.1, 2,086 tests, ~20 s per server: RESP2 1,568 pass, 511 skip (~360 clusters,
        # sentinels, TLS; the rest newer than 7.0), 7 fail on both (CLIENT INFO's lib-name and
        # lib-ver, Redis 7.2's, tested from 7.0 on); RESP3 1,547 pass, 28 fail on both (those 7, and
        # tests that expect RESP2's reply shapes). At redis@4.7.1, 1,266 tests, 1,121 pass, none fail.
        own_servers=1
        src="$(cd "${2:?give the path of a node-redis checkout}" && pwd)"
        protocol="${3:-2}"
        [[ $protocol == [23] ]] || { echo "node-redis: protocol 2 or 3" >&2; exit 2; }
        [[ -d $src/node_modules ]] || (cd "$src" && npm install --no-audit --no-fund --ignore-scripts >/dev/null)
        # 4.x builds what the specs load with build:tests-tools (its `build` is the root package's only).
        [[ -d $src/packages/test-utils/dist ]] || (cd "$src" && { npm run build:tests-tools || npm run build; } >/dev/null)
        # The loaders its own `npm test` gives mocha (5.x: tsx; 4.x: ts-node and source maps).
        read -ra loaders <<<"$(cd "$src/packages/client" && node -p \
            'require("./package.json").scripts.test.split(/\bmocha\b/)[1].match(/-r [^ ]+/g).join(" ")')"
        mkdir -p "$work/docker-bin"
        cat >"$work/docker-bin/docker" <<'SH'
#!/usr/bin/env bash
# Stands in for Docker for node-redis's test-utils. 5.x: `docker run ... -e PORT=N ... IMAGE ARGS`
# starts redis-server (from PATH) on N with ARGS and prints its pid as the container id. 4.x:
# `docker build DIR -q --build-arg REDIS_ARGUMENTS="--save '' --port N ARGS" ...` prints an image
# id, a file holding those arguments, and `docker run -d --network host ID` starts the server with
# them. `docker rm -f ID` stops it. Anything else (volumes for sentinels, exec for TLS
# certificates) fails as Docker would.
set -euo pipefail
start() { # port args...
    local dir="$NODE_REDIS_SERVERS/$1"; shift
    mkdir -p "$dir"
    setsid redis-server --save "" --appendonly no --dir "$dir" "$@" >"$dir/server.log" 2>&1 </dev/null &
    echo $! >>"$NODE_REDIS_SERVERS/pids"
    echo $!
}
case ${1:-} in
    build)
        shift; image="$(mktemp "$NODE_REDIS_SERVERS/image.XXXXXX")"
        while (($#)); do
            [[ $1 == --build-arg && $2 == REDIS_ARGUMENTS=* ]] && printf '%s\n' "${2#REDIS_ARGUMENTS=}" >"$image"
            shift
        done
        echo "$image"
        ;;
    run)
        shift; port=""
        while (($#)); do
            case $1 in
                -e) [[ $2 == PORT=* ]] && port=${2#PORT=}; shift 2 ;;
                --network) shift 2 ;;
                -v) echo "docker stand-in: no volumes (sentinels)" >&2; exit 1 ;;
                -*) shift ;;
                *) image=$1; shift; break ;;   # the server's arguments follow
            esac
        done
        if [[ -n $port ]]; then
            start "$port" --port "$port" "$@"
        elif [[ -f $image ]]; then
            # The entrypoint's unquoted $REDIS_ARGUMENTS, but with '' read as an empty argument.
            eval "set -- $(<"$image")"
            port=""; for ((i = 1; i < $#; i++)); do [[ ${!i} == --port ]] && { j=$((i + 1)); port=${!j}; }; done
            start "${port:?docker stand-in: no --port}" "$@"
        else
            echo "docker stand-in: no -e PORT= and no image built here" >&2; exit 1
        fi
        ;;
    rm) kill "${@: -1}" 2>/dev/null || true ;;
    *) echo "docker stand-in: docker $* is not supported" >&2; exit 1 ;;
esac
SH
        chmod +x "$work/docker-bin/docker"
        cat >"$work/standalone-only.js" <<'JS'
// Loaded by mocha before the specs (-r): once @redis/test-utils is loaded, its helpers that need
// Docker's clusters, sentinels, TLS certificates or proxies register their tests as skipped.
const Module = require('module');
const load = Module._load;
Module._load = function (request) {
    const exports = load.apply(this, arguments);
    const TestUtils = request === '@redis/test-utils' && exports.default;
    if (TestUtils && !TestUtils.standaloneOnly) {
        for (const name of ['testWithCluster', 'testWithClientSentinel', 'testWithTlsClient',
                            'testWithProxiedCluster', 'testWithRECluster']) {
            TestUtils.prototype[name] = function (title) { it(title, function () { this.skip(); }); };
        }
        // Protocol 3: the tests' clients speak RESP3 unless a test chose a protocol itself.
        if (process.env.NODE_REDIS_RESP === '3') {
            for (const name of ['testWithClient', 'testWithClientPool']) {
                const test = TestUtils.prototype[name];
                TestUtils.prototype[name] = function (title, fn, options) {
                    const clientOptions = { RESP: 3, unstableResp3: true, ...options.clientOptions };
                    return test.call(this, title, fn, { ...options, clientOptions });
                };
            }
        }
        TestUtils.standaloneOnly = true;
    }
    return exports;
};
JS
        run_suite() {
            local servers="$(dirname "$1")/servers" pid
            rm -f "$1.json"; mkdir -p "$servers"
            (cd "$src/packages/client" && PATH="$work/docker-bin:$PATH" NODE_REDIS_SERVERS="$servers" NODE_REDIS_RESP="$protocol" \
                TS_NODE_TRANSPILE_ONLY=true timeout -k 10 1800 npx mocha "${loaders[@]}" -r "$work/standalone-only.js" --exit \
                --reporter json --reporter-option "output=$1.json" --ignore './lib/sentinel/index.spec.ts' \
                './lib/**/*.spec.ts' --redis-tag=7.0.15 --redis-version=7.0 >"$1" 2>&1) || true
            # Its root `after` removes the servers; these are the ones a timeout left behind.
            while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$servers/pids" 2>/dev/null || true
        }
        # One line per failed test: its file and full title (mocha's JSON report).
        failures() {
            node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
                for (const f of r.failures) console.log((f.file || "").replace(/.*\/packages\/client\//, "") + " :: " + f.fullTitle);' \
                "$1.json" 2>/dev/null | sort -u
        }
        ran() { [[ -s $1.json ]]; }
        ;;
    phpredis)
        # phpredis (the PHP C extension) and its tests/TestRedis.php, class Redis: Debian's php-redis and the
        # tests of Debian's source package of the installed version (its PECL tarball; phpredis's git tag
        # has the same tests), or a checkout given (e.g. github.com/phpredis/phpredis at 6.1.0, which has
        # the 7.0 commands 5.3.7 lacks), built there with phpize (php-dev) and loaded instead of Debian's.
        # As its CI runs them: an ACL file whose default user and user phpredis have the password phpredis
        # (its tests/users.acl, absent from the tarball), --user phpredis --auth phpredis, and a unix socket
        # at /tmp/redis.sock (the path its testUnixSocket expects). Its session tests start PHP processes
        # that save sessions to tcp://127.0.0.1:6379. Its RedisArray, RedisCluster and RedisSentinel classes
        # need 4 more servers, a cluster and sentinels: not run. testHighPorts skips itself (no servers on
        # 32767-32769). ~1 min per server.
        port=6379
        php -m 2>/dev/null | grep -qx redis || apt-get install -y -q php-cli php-redis >/dev/null \
            || { echo "needs php-cli and php-redis (apt-get install php-cli php-redis)" >&2; exit 2; }
        if [[ -n ${2:-} ]]; then
            src="$(cd "$2" && pwd)"
            command -v phpize >/dev/null || apt-get install -y -q php-dev >/dev/null \
                || { echo "needs php-dev (apt-get install php-dev)" >&2; exit 2; }
            [[ -f $src/modules/redis.so ]] || (cd "$src" && phpize && ./configure && make -j2) >"$work/build.log" 2>&1 \
                || { echo "phpredis did not build (see $work/build.log)" >&2; exit 2; }
            # No php.ini (-n): Debian's redis.so is not loaded beside this one.
            php_args=(-n -d "extension=$src/modules/redis.so")
        else
            version="$(php -r 'echo phpversion("redis");')"
            src="$work/redis-$version"
            if [[ ! -d $src ]]; then
                debian_source php-redis
                tar xJf "$work/debsrc"/php-redis_*.orig.tar.xz -C "$work" "redis-$version"
            fi
            php_args=(-e)
        fi
        printf 'user default on >phpredis ~* +@all\nuser phpredis on >phpredis ~* +@all\n' >"$work/users.acl"
        conf=("aclfile $work/users.acl" "acl-pubsub-default allchannels" "unixsocket /tmp/redis.sock" "unixsocketperm 777")
        # PHP 8.2 deprecates what 5.3.7's tests (2022) do (dynamic properties, null to strtolower): a handler
        # run before them silences those notices, which would otherwise come before most verdicts.
        echo '<?php set_error_handler(fn() => true, E_DEPRECATED);' >"$work/quiet.php"
        php_args+=(-d "auto_prepend_file=$work/quiet.php")
        run_suite() {
            # TEST_PHP_ARGS (its CI sets -e) are the session tests' PHP processes' options: the same extension.
            (cd "$src" && TEST_PHP_ARGS="${php_args[*]}" timeout -k 10 900 php "${php_args[@]}" tests/TestRedis.php \
                --class Redis --host 127.0.0.1 --port "$port" --user phpredis --auth phpredis --nocolors >"$1" 2>&1) || true
        }
        # Each test's name is printed, then its warnings if any, then "[PASSED]", "[FAILED]" or "[SKIPPED]".
        failures() {
            awk 'match($0, /^test[A-Za-z0-9_]+ /) { cur = substr($0, 1, RLENGTH - 1) }
                 /\[(PASSED|FAILED|SKIPPED)\]$/ { if ($0 ~ /\[FAILED\]$/) print cur; cur = "" }
                 END { if (cur != "") print cur " (PHP died in it)" }' "$1" | sort -u
        }
        ran() { grep -qE '\[PASSED\]$' "$1"; }
        ;;
    redis-rb)
        # redis-rb (Ruby, Debian's ruby-redis) and its test/redis and test/distributed tests, as its CI runs
        # them (`make start` then `rake test:redis test:distributed`): one server on 6381 with its
        # test/support/conf/redis-7.0.conf and a unix socket, TIMEOUT=30 and LOW_TIMEOUT=0.01, its pure-Ruby
        # driver or the other two its CI tests (hiredis and em-synchrony, Debian's ruby-hiredis and
        # ruby-em-synchrony), minitest and mocha from Debian (rubygems.org is not needed). The tests come from
        # Debian's source package of the installed version, or from a checkout given (e.g. github.com/redis/
        # redis-rb at v4.8.0: the same files as Debian's tarball, which is GitHub's), and run with that tree's
        # lib/ (4.8.0 is Debian's too). Its sentinel and cluster tests need sentinels, a replica and a
        # cluster: not run. ~850 tests, ~15 s per server (4.8.0). Given a redis-rb 5 checkout (e.g. v5.4.1), also a
        # checkout of the redis-client gem it is built on (e.g. github.com/redis-rb/redis-client at v0.25.1,
        # RESP3; needs Debian's ruby-connection-pool), driver ruby: ~8 min per server, 8 of its tests wait 60 s
        # each on a mock server with its CI's TIMEOUT=30. TestInternals#test_connection_timeout connects to
        # the unroutable 10.255.255.254 and expects a connect timeout, where this machine's network answers
        # (an HTTP reply): it fails on both servers. test_bubble_timeout_without_retrying listens on 6380
        # itself, so that port must be free too.
        port=6381
        for p in ruby ruby-minitest ruby-mocha ruby-redis ruby-connection-pool; do
            dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || apt-get install -y -q "$p" >/dev/null \
                || { echo "needs $p (apt-get install ruby ruby-minitest ruby-mocha ruby-redis ruby-connection-pool)" >&2; exit 2; }
        done
        driver="${2:-ruby}"
        case $driver in
            ruby) ;;
            hiredis | synchrony) pkg="ruby-$driver"; [[ $driver == synchrony ]] && pkg=ruby-em-synchrony
                dpkg-query -W -f '${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || apt-get install -y -q "$pkg" >/dev/null \
                    || { echo "needs $pkg (apt-get install $pkg)" >&2; exit 2; } ;;
            *) echo "redis-rb: driver ruby, hiredis or synchrony" >&2; exit 2 ;;
        esac
        libs=(-Ilib -Itest)
        if [[ -n ${3:-} ]]; then
            src="$(cd "$3" && pwd)"
            # redis-rb 5 is built on the redis-client gem (not in Debian): a checkout of it, its lib/ first.
            [[ -z ${4:-} ]] || libs+=(-I "$(cd "$4" && pwd)/lib")
        else
            version="$(dpkg-query -W -f '${Version}' ruby-redis)"; version="${version%-*}"
            src="$work/redis-rb-$version"
            if [[ ! -d $src ]]; then
                debian_source ruby-redis
                mkdir -p "$src.tmp" && tar xzf "$work/debsrc/ruby-redis_$version.orig.tar.gz" -C "$src.tmp" --strip-components 1
                mv "$src.tmp" "$src"
            fi
        fi
        conf=("include $src/test/support/conf/redis-7.0.conf" "unixsocket $work/redis.sock" "unixsocketperm 777")
        run_suite() {
            # Minitest's -v prints "Class#test = 0.01 s = ." per test (F or E when it fails); rake's loader,
            # without rake: the test files required, the options after "--" left to minitest.
            (cd "$src" && REDIS_SOCKET_PATH="$work/redis.sock" TIMEOUT=30 LOW_TIMEOUT=0.01 DRIVER="$driver" timeout -k 10 900 \
                ruby "${libs[@]}" -e 'files = ARGV.shift(ARGV.index("--")); ARGV.shift; files.each { |f| require File.expand_path(f) }' \
                test/redis/*_test.rb test/distributed/*_test.rb -- -v >"$1" 2>&1) || true
        }
        failures() { sed -nE 's/^([A-Za-z0-9_:]+#[^ ]+) = [0-9.]+ s = [FE]$/\1/p' "$1" | sort -u; }
        ran() { grep -qE '^[0-9]+ runs, [0-9]+ assertions' "$1"; }
        ;;
    redigo)
        # The redis package's tests (connections, pool, pub/sub, scripts, reply helpers and Scan's
        # struct mapping, examples), over RESP2. Its TestMain starts one server itself: `redis-server
        # --port 16379 --bind 127.0.0.1 --save "" --appendonly no --enable-debug-command local` (after
        # asking `redis-server --version` for 7+), from PATH, and waits for "Ready to accept connections"
        # on its stdout. Left out: redisx, an experimental package whose 3 tests need a server on 6379
        # (run by hand at v1.9.3 they pass on both). At v1.9.3, 130 tests and subtests, ~2 s per
        # server (plus Cinnabar's start): all pass on real Redis and on Cinnabar.
        own_servers=1
        version="${2:-v1.9.3}"; [[ $version == v* ]] || version="v$version"
        command -v go >/dev/null || { echo "needs go (https://go.dev/dl/)" >&2; exit 2; }
        src="$work/redigo-$version"
        go_module_copy "github.com/gomodule/redigo@$version" "$src"
        [[ -x $src/redigo.test ]] || (cd "$src/redis" && GOFLAGS=-mod=mod go test -c -o ../redigo.test .)
        ! redis-cli -p 16379 ping >/dev/null 2>&1 || { echo "port 16379 is in use" >&2; exit 2; }
        run_suite() {
            (cd "$src/redis" && timeout -k 10 900 ../redigo.test -test.v -test.timeout 10m \
                -redis-log "$(dirname "$1")/server.log" >"$1" 2>&1) || true
        }
        # One line per failed test or subtest ("--- FAIL: NAME"), and the test it hung in.
        failures() {
            awk '/^ *--- FAIL: / { print $3 }
                 /^panic: test timed out/ { timedout = 1 }
                 timedout && /^\t+[^ \t]+ \([0-9]/ { sub(/^\t+/, ""); print $1 " (timed out)" }' "$1" | sort -u
        }
        ran() { grep -q -- '--- PASS: ' "$1"; }
        ;;
    radix)
        # The root package's tests (connections and their deadlines, pools, pipelines, pub/sub, scanners,
        # streams, Lua scripts, actions, and the cluster and sentinel clients against its stubs), with the
        # -resp3 flag its CI's matrix gives for protocol 3, against a plain server on 6379 (its CI's redis
        # service). Left out: the resp, resp3 and bytesutil packages (encoders and decoders, no server).
        # At v4.1.4, 195 tests and subtests, ~6 s per server: over RESP2 and RESP3, 194 pass and 1 skips
        # (TestPoolConnCollChaotic skips itself) on real Redis and on Cinnabar. Flaky on either server:
        # TestConnDeadlineExceeded/pubsub, which reads 1,000 published messages with a deadline that
        # shrinks by 3/4 on each success (down to a microsecond or two) and grows by 4/3 on each
        # timeout; now and then a read times out part-way through a message ("after partial read off
        # Conn"), radix closes the connection, and the test spins on it until its 30 s context panics.
        # Looped (the package's tests, RESP2 and RESP3 alternately, both servers at once on 2 cores) it
        # hung in 2 runs of ~280 on real Redis and in ~1 of 70 on Cinnabar (the bytes of each message
        # identical, no output-limit close).
        port=6379
        conf=()
        protocol="${2:-2}"
        [[ $protocol == [23] ]] || { echo "radix: protocol 2 or 3" >&2; exit 2; }
        version=v4.1.4
        command -v go >/dev/null || { echo "needs go (https://go.dev/dl/)" >&2; exit 2; }
        src="$work/radix-$version"
        go_module_copy "github.com/mediocregopher/radix/v4@$version" "$src"
        [[ -x $src/radix.test ]] || (cd "$src" && GOFLAGS=-mod=mod go test -c -o radix.test .)
        run_suite() {
            local resp3=false; [[ $protocol == 3 ]] && resp3=true
            (cd "$src" && timeout -k 10 900 ./radix.test -test.v -test.timeout 10m -resp3="$resp3" >"$1" 2>&1) || true
        }
        # One line per failed test or subtest ("--- FAIL: NAME"), and the test it hung in.
        failures() {
            awk '/^ *--- FAIL: / { print $3 }
                 /^panic: test timed out/ { timedout = 1 }
                 timedout && /^\t+[^ \t]+ \([0-9]/ { sub(/^\t+/, ""); print $1 " (timed out)" }' "$1" | sort -u
        }
        ran() { grep -q -- '--- PASS: ' "$1"; }
        ;;
    *) echo "unknown suite $suite (redis-py, jedis, lettuce, ioredis, go-redis, redis-rs, hiredis, redisson, spring-data-redis, rueidis, rueidiscompat, redis-plus-plus, node-redis, phpredis, redis-rb, redigo, radix)" >&2; exit 2 ;;
esac

# conf/jvm.options names the class data sharing archive relative to the repository, where a user
# starts the server; the suites start it from their own directories, so its absolute path is given
# too (without it the JVM silently loads every class from the jar, as a user's server does not).
archive=""; [[ -f $repo/target/cinnabar.jsa ]] && archive="-XX:SharedArchiveFile=$repo/target/cinnabar.jsa"

server_pid=""
trap '[[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null; true' EXIT

run_against() { # redis|cinnabar
    local server=$1 dir="$work/$1"
    rm -rf "$dir" && mkdir -p "$dir"
    if [[ -n $own_servers ]]; then
        run_own "$server" "$dir"
    else
        run_server "$server" "$dir"
    fi
    # A suite that did not build or start would otherwise look like one with no failures.
    ran "$dir/suite.log" || { echo "$suite ran no tests against $server (see $dir/suite.log)" >&2; exit 2; }
    failures "$dir/suite.log" >"$work/$server.failures"
}

# The suite against a server started here with the suite's configuration.
run_server() { # redis|cinnabar dir
    local server=$1 dir=$2
    { echo "port $port"; echo "save \"\""; echo "appendonly no"; echo "protected-mode no"; echo "dir $dir"
      printf '%s\n' "${conf[@]}"; } >"$dir/server.conf"
    # Another server on the port would answer the pings below and be tested instead.
    ! redis-cli -p "$port" ping >/dev/null 2>&1 || { echo "port $port is in use" >&2; exit 2; }
    if [[ $server == redis ]]; then
        redis-server "$dir/server.conf" >"$dir/server.log" 2>&1 &
    else
        java @"$repo/conf/jvm.options" ${archive:+"$archive"} -jar "$jar" "$dir/server.conf" >"$dir/server.log" 2>&1 &
    fi
    server_pid=$!
    for _ in $(seq 1 300); do
        redis-cli -p "$port" ping 2>/dev/null | grep -qE 'PONG|NOAUTH' && break
        sleep 0.1
    done
    echo "$suite against $server ..." >&2
    run_suite "$dir/suite.log"
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}

# The suite with a redis-server first in PATH that is real Redis or Cinnabar, for suites that start
# their own servers.
run_own() { # redis|cinnabar dir
    local server=$1 dir=$2
    mkdir -p "$dir/bin"
    if [[ $server == redis ]]; then
        ln -s "$(command -v redis-server)" "$dir/bin/redis-server"
    else
        # Cinnabar with the JVM options a user gets (conf/jvm.options), its 1 s JIT warm-up included,
        # though each test starts a server of its own (redis-rs: ~160 starts per run of all its
        # targets): -Dcinnabar.warmupMs=0 would be faster (redis-rs's test_basic took 104 s against
        # 61 s, on 2 busy cores; 3 s on real Redis), but would test a start-up, first commands on a
        # cold JIT, that a user replacing redis-server with conf/jvm.options does not get.
        { echo '#!/usr/bin/env bash'
          echo 'for a in "$@"; do'
          echo '    case $a in -v | --version) echo "Redis server v=7.0.15 sha=00000000:0 malloc=libc bits=64 build=0"; exit 0 ;; esac'
          echo 'done'
          printf 'exec java @%q %s -jar %q "$@"\n' "$repo/conf/jvm.options" "${archive:+$(printf %q "$archive")}" "$jar"; } >"$dir/bin/redis-server"
        chmod +x "$dir/bin/redis-server"
    fi
    echo "$suite against $server ..." >&2
    (PATH="$dir/bin:$PATH" && run_suite "$dir/suite.log")
}

run_against redis
run_against cinnabar
echo "$suite: $(wc -l <"$work/redis.failures") tests fail on real Redis, $(wc -l <"$work/cinnabar.failures") on Cinnabar"
echo "Failing on Cinnabar only (logs: $work/cinnabar/suite.log):"
comm -13 "$work/redis.failures" "$work/cinnabar.failures" | sed 's/^/  /'
echo "Failing on real Redis only:"
comm -23 "$work/redis.failures" "$work/cinnabar.failures" | sed 's/^/  /'
[[ -z $(comm -13 "$work/redis.failures" "$work/cinnabar.failures") ]]
