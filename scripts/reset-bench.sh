#!/usr/bin/env bash
# Time of the test controls as a test sees them: server.reset() with 1,000 (and 100,000) keys
# present, server.snapshot() and server.restore() of them; medians of N runs in one warm JVM.
# Prints a table; asserts nothing. Usage: scripts/reset-bench.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-200}"
mvn -q -B test-compile dependency:build-classpath -Dmdep.outputFile=target/test.classpath -Dmdep.includeScope=test
java -cp "target/classes:target/test-classes:$(cat target/test.classpath)" io.cinnabar.bench.ResetBench "$runs"
