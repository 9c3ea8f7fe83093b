package io.cinnabar.command;

import io.cinnabar.config.ConfigOptions;

/**
 * What the server does when the keyspace reports a key created, expired or missed: wakes clients
 * blocked on it, fires the keyspace event, and for an expiry invalidates tracking clients' caches
 * and propagates the deletion.
 */
final class KeyspaceHooks {
    private KeyspaceHooks() {}

    static void install(ServerContext server) {
        KeyspaceEvents events = server.events();
        server.keyspace().onKeyAdded((db, key) -> {
            server.blocking().signal(db, key);
            events.fire(KeyspaceEvents.NEW, "new", key, db);
        });
        // Redis's deleteExpiredKeyAndPropagate: the key is gone, "expired" fires, then the DEL goes out.
        server.keyspace().onKeyExpired((db, key) -> {
            events.fire(KeyspaceEvents.EXPIRED, "expired", key, db);
            if (server.tracking().active()) server.tracking().invalidate(null, key);
            // UNLINK with lazyfree-lazy-expire, as Redis.
            boolean lazy = server.config().getBool(ConfigOptions.LAZYFREE_LAZY_EXPIRE);
            server.propagation().also(db, new byte[][] {PropagatedCommands.deletion(lazy), key});
        });
        // Redis's performEvictions: signalModifiedKey, the "evicted" event, then the DEL goes out.
        server.keyspace().onKeyEvicted((db, key) -> {
            if (server.tracking().active()) server.tracking().invalidate(null, key);
            events.fire(KeyspaceEvents.EVICTED, "evicted", key, db);
            boolean lazy = server.config().getBool(ConfigOptions.LAZYFREE_LAZY_EVICTION);
            server.propagation().also(db, new byte[][] {PropagatedCommands.deletion(lazy), key});
        });
        server.keyspace().onStreamGone((db, key) -> server.blocking().signal(db, key));
        server.keyspace().onKeyMissed((db, key) -> events.fire(KeyspaceEvents.KEY_MISS, "keymiss", key, db));
    }
}
