#!/usr/bin/env bash
# Start-up time of the embedded server: median of N starts (builder -> PING answered) in one JVM.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-20}"
mvn -q -B test-compile dependency:build-classpath -Dmdep.outputFile=target/test.classpath -Dmdep.includeScope=test
java -cp "target/classes:target/test-classes:$(cat target/test.classpath)" io.cinnabar.bench.EmbeddedStartup "$runs"
