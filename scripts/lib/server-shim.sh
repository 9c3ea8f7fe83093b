# Shared by scripts that run a Redis Tcl harness which starts src/redis-server itself (compat.sh's
# spawn mode, sentinel-suite.sh); sourced.

# write_server_shim FILE PIDS_FILE RUN_MARK SERVER JAVA_OPTS JAR: FILE becomes the harness's
# src/redis-server, starting real Redis (SERVER redis) or Cinnabar's jar with JAVA_OPTS. The harness
# waits for " PID: <pid>" of that very process in its log: exec keeps the pid. The pid (appended
# to PIDS_FILE) and RUN_MARK (NAME=value, put in the server's environment) let the caller stop
# servers a killed harness left behind, and only those.
write_server_shim() {
    local file=$1 pids=$2 mark=$3 server=$4 java_opts=$5 jar=$6 exec_line
    if [ "$server" = redis ]; then
        exec_line="exec $(command -v redis-server) \"\$@\""
    else
        # A process started in the background of a non-interactive shell (CI runners do that)
        # inherits SIGINT ignored, and a JVM cannot take back an ignored signal, where
        # redis-server's sigaction does: perl resets it to the default before java starts.
        exec_line="exec perl -e '\$SIG{INT} = \"DEFAULT\"; exec @ARGV or die' java $java_opts -jar '$jar' \"\$@\""
    fi
    cat >"$file" <<SHIM
#!/bin/sh
# Written by scripts/lib/server-shim.sh for a Redis test harness that starts its own servers.
echo \$\$ >>'$pids'
export $mark
$exec_line
SHIM
    chmod +x "$file"
}
