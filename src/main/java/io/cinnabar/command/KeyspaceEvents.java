package io.cinnabar.command;

import io.cinnabar.command.pubsub.PubSub;
import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.config.KeyspaceEventFlags;

import java.nio.charset.StandardCharsets;

/**
 * Keyspace notifications (Redis's notify.c): an event on a key is published as
 * {@code __keyspace@<db>__:<key>} with the event name as message and as
 * {@code __keyevent@<db>__:<event>} with the key as message, if notify-keyspace-events enables
 * its class. Handlers fire them through {@link Call#notify}. Keyspace thread only.
 */
public final class KeyspaceEvents {
    // The classes handlers name, as in Redis's NOTIFY_* (the bits live with the option's parser).
    public static final int GENERIC = KeyspaceEventFlags.GENERIC;
    public static final int STRING = KeyspaceEventFlags.STRING;
    public static final int LIST = KeyspaceEventFlags.LIST;
    public static final int SET = KeyspaceEventFlags.SET;
    public static final int HASH = KeyspaceEventFlags.HASH;
    public static final int ZSET = KeyspaceEventFlags.ZSET;
    public static final int STREAM = KeyspaceEventFlags.STREAM;
    public static final int EXPIRED = KeyspaceEventFlags.EXPIRED;
    public static final int EVICTED = KeyspaceEventFlags.EVICTED;
    public static final int KEY_MISS = KeyspaceEventFlags.KEY_MISS;
    public static final int NEW = KeyspaceEventFlags.NEW;

    private static final byte[] KEYSPACE_PREFIX = "__keyspace@".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] KEYEVENT_PREFIX = "__keyevent@".getBytes(StandardCharsets.US_ASCII);

    private final Config config;
    private final PubSub pubSub;
    /**
     * The classes that publish something, 0 when neither K nor E is on: the one test every event
     * site pays while notifications are off. Re-read only when the option changes.
     */
    private int firing;
    private boolean keyspaceChannel, keyeventChannel;

    KeyspaceEvents(Config config, PubSub pubSub) {
        this.config = config;
        this.pubSub = pubSub;
        configure();
        config.onChange(o -> {
            if (o == ConfigOptions.NOTIFY_KEYSPACE_EVENTS) configure();
        });
    }

    private void configure() {
        int mask = ((KeyspaceEventFlags) config.get(ConfigOptions.NOTIFY_KEYSPACE_EVENTS)).mask();
        keyspaceChannel = (mask & KeyspaceEventFlags.KEYSPACE) != 0;
        keyeventChannel = (mask & KeyspaceEventFlags.KEYEVENT) != 0;
        firing = keyspaceChannel || keyeventChannel ? mask : 0;
    }

    /** Publishes event (of class type) on key of database db, if that class is enabled. */
    public void fire(int type, String event, byte[] key, int db) {
        if ((firing & type) == 0) return;
        publish(event, key, db);
    }

    /** Runs r firing nothing: keys read from an RDB are not announced (Redis's dbAddRDBLoad). */
    void quietly(Runnable r) {
        int saved = firing;
        firing = 0;
        try {
            r.run();
        } finally {
            firing = saved;
        }
    }

    private void publish(String event, byte[] key, int db) {
        byte[] eventBytes = event.getBytes(StandardCharsets.US_ASCII);
        byte[] dbBytes = Integer.toString(db).getBytes(StandardCharsets.US_ASCII);
        if (keyspaceChannel) pubSub.publish(channel(KEYSPACE_PREFIX, dbBytes, key), eventBytes);
        if (keyeventChannel) pubSub.publish(channel(KEYEVENT_PREFIX, dbBytes, eventBytes), key);
    }

    /** prefix + db + "__:" + name. */
    private static byte[] channel(byte[] prefix, byte[] db, byte[] name) {
        byte[] out = new byte[prefix.length + db.length + 3 + name.length];
        System.arraycopy(prefix, 0, out, 0, prefix.length);
        System.arraycopy(db, 0, out, prefix.length, db.length);
        int at = prefix.length + db.length;
        out[at] = '_';
        out[at + 1] = '_';
        out[at + 2] = ':';
        System.arraycopy(name, 0, out, at + 3, name.length);
        return out;
    }
}
