package io.cinnabar.command.acl;

import io.cinnabar.command.Client;
import io.cinnabar.command.ServerContext;
import io.cinnabar.command.server.ClientInfo;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.protocol.Reply;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;

/**
 * ACL LOG (Redis's ACLLog): denied commands, keys, channels and failed AUTHs, newest first. An
 * event like one of the last ten within a minute bumps that entry's count instead of adding one.
 */
final class AclLog {
    static final int TOPLEVEL = 0, MULTI = 1, LUA = 2;
    private static final String[] CONTEXTS = {"toplevel", "multi", "lua"};
    private static final long GROUPING_MS = 60_000;

    private static final class Entry {
        long count = 1;
        int reason, context;
        String object, username, clientInfo;
        long timeMs;
    }

    private final ServerContext server;
    private final Deque<Entry> entries = new ArrayDeque<>();

    AclLog(ServerContext server) {
        this.server = server;
    }

    /** Redis's addACLLogEntry; user null means the client's own (userName then given for AUTH). */
    void add(Client c, AclUser user, int reason, int context, String userName, String object) {
        Entry e = new Entry();
        e.reason = reason;
        e.context = context;
        e.username = userName != null ? userName : user != null ? user.name() : c.user();
        e.object = object;
        // The server's clock (a test may drive it), as the client's ages are.
        e.timeMs = server.keyspace().mstime();
        e.clientInfo = ClientInfo.line(c, e.timeMs);
        int scanned = 0;
        for (Iterator<Entry> it = entries.iterator(); it.hasNext() && scanned++ < 10; ) {
            Entry old = it.next();
            if (old.reason == e.reason && old.context == e.context && Math.abs(old.timeMs - e.timeMs) <= GROUPING_MS
                    && old.object.equals(e.object) && old.username.equals(e.username)) {
                it.remove();
                old.count++;
                old.timeMs = e.timeMs;
                old.clientInfo = e.clientInfo;
                entries.addFirst(old);
                return;
            }
        }
        entries.addFirst(e);
        long max = server.config().getLong(ConfigOptions.ACLLOG_MAX_LEN);
        while (entries.size() > max) entries.removeLast();
    }

    void reset() {
        entries.clear();
    }

    /** ACL LOG [count]: up to count entries, newest first, as Redis 7.0 shows them. */
    void reply(Reply r, long count) {
        int n = (int) Math.min(Math.max(count, 0), entries.size());
        r.array(n);
        long now = server.keyspace().mstime();
        Iterator<Entry> it = entries.iterator();
        for (int i = 0; i < n; i++) {
            Entry e = it.next();
            r.map(7);
            r.bulk("count");
            r.integer(e.count);
            r.bulk("reason");
            r.bulk(switch (e.reason) {
                case AclSelector.DENIED_CMD -> "command";
                case AclSelector.DENIED_KEY -> "key";
                case AclSelector.DENIED_CHANNEL -> "channel";
                case AclSelector.DENIED_AUTH -> "auth";
                default -> "unknown";
            });
            r.bulk("context");
            r.bulk(CONTEXTS[e.context]);
            r.bulk("object");
            r.bulk(e.object);
            r.bulk("username");
            r.bulk(e.username);
            r.bulk("age-seconds");
            r.doubleValue((now - e.timeMs) / 1000.0);
            r.bulk("client-info");
            r.bulk(e.clientInfo);
        }
    }
}
