package io.cinnabar.command.cluster;

import io.cinnabar.keyspace.Database;
import io.cinnabar.persistence.LoadSources;
import io.cinnabar.persistence.rdb.DumpPayload;
import io.cinnabar.persistence.rdb.RdbFormatException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Moves keys between the keyspaces of two nodes as MIGRATE does: each value serialized in DUMP's
 * format with its expiry, restored on the target, then deleted on the source. Each step runs on
 * the thread of the keyspace it touches.
 */
public final class KeyMover {
    /** A key on its way: its serialized value and absolute expiry (-1: none). */
    public record Dumped(byte[] key, byte[] payload, long expireAt) { }

    private KeyMover() {}

    /** The live keys of db 0 in slot (only key when it is not null), serialized. */
    public static List<Dumped> dump(Database db0, int slot, byte[] key, boolean compression) {
        List<Dumped> out = new ArrayList<>();
        List<byte[]> keys = key != null ? List.of(key) : ClusterMember.keysInSlot(db0, slot, Long.MAX_VALUE);
        for (byte[] k : keys) {
            var e = db0.stored(k);
            if (e == null || db0.isExpired(e)) continue;
            try {
                out.add(new Dumped(k, DumpPayload.create(e.value(), compression), e.expireAt()));
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }
        return out;
    }

    /** Stores the dumped keys in db0, replacing what is there (RESTORE-ASKING ... REPLACE). */
    public static void restore(Database db0, io.cinnabar.config.Config config, List<Dumped> keys) {
        for (Dumped d : keys) {
            Object value;
            try {
                value = DumpPayload.restore(d.payload(), LoadSources.rdbOptions(config), true);
            } catch (RdbFormatException e) {
                throw new IllegalStateException("cannot restore " + new String(d.key()) + ": " + e.getMessage(), e);
            }
            db0.delete(d.key());
            if (d.expireAt() >= 0) db0.set(d.key(), value, d.expireAt()); else db0.set(d.key(), value);
        }
    }

    public static void delete(Database db0, List<Dumped> keys) {
        for (Dumped d : keys) db0.delete(d.key());
    }
}
