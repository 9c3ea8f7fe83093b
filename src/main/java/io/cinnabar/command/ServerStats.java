package io.cinnabar.command;

import java.util.Map;
import java.util.TreeMap;

/** Server-wide counters for INFO; keyspace thread only. */
public final class ServerStats {
    /** Redis's ERROR_STATS_NUMBER: distinct error codes tracked before errorstats gives up. */
    private static final int MAX_ERROR_CODES = 128;

    public long totalConnectionsReceived;
    public long totalCommandsProcessed;
    public long rejectedConnections;
    /** Clients closed by maxmemory-clients (INFO evicted_clients). */
    public long evictedClients;
    public long totalErrorReplies;
    public long netInputBytes;
    public long netOutputBytes;
    public long unexpectedErrorReplies;
    /** INFO errorstats: error code (the message's first word) to count, sorted as Redis's rax. */
    private final Map<String, long[]> errorCodes = new TreeMap<>();

    /** Counts one error reply, by its code ("ERR", "WRONGTYPE"...) as INFO errorstats shows it. */
    public void errorReply(String message) {
        totalErrorReplies++;
        int space = message.indexOf(' ');
        String code = space < 0 ? message : message.substring(0, space);
        long[] n = errorCodes.get(code);
        if (n == null) {
            if (errorCodes.size() >= MAX_ERROR_CODES) return;
            errorCodes.put(code, n = new long[1]);
        }
        n[0]++;
    }

    public Map<String, long[]> errorCodes() {
        return errorCodes;
    }

    public void reset() {
        totalConnectionsReceived = 0;
        totalCommandsProcessed = 0;
        rejectedConnections = 0;
        evictedClients = 0;
        totalErrorReplies = 0;
        netInputBytes = 0;
        netOutputBytes = 0;
        unexpectedErrorReplies = 0;
        errorCodes.clear();
    }
}
