#!/usr/bin/env bash
# Start-up time of an in-JVM cluster (CinnabarCluster, 3 masters by default): builder -> every
# node answers CLUSTER INFO with cluster_state:ok, median of the warm half of N starts in one JVM.
# Usage: scripts/cluster-startup.sh [runs] [masters]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-30}"
masters="${2:-3}"
mvn -q -B test-compile dependency:build-classpath -Dmdep.outputFile=target/test.classpath -Dmdep.includeScope=test
java -cp "target/classes:target/test-classes:$(cat target/test.classpath)" io.cinnabar.bench.ClusterStartup "$runs" "$masters"
