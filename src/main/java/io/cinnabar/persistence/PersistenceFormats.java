package io.cinnabar.persistence;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.persistence.aof.AofRewriteEmitter;
import io.cinnabar.persistence.rdb.RdbWriter;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.function.Supplier;

/**
 * The snapshot formats: RDB files (dumps and AOF bases) and AOF command bases, with the config's
 * settings. Each snapshot also carries the function libraries, before the databases as in Redis:
 * libraries gives their codes, and is asked on the keyspace thread when the snapshot is taken.
 */
public final class PersistenceFormats {
    private PersistenceFormats() {}

    /**
     * dump.rdb as SAVE/BGSAVE write it, and what replicas get. A dump carries where its data is in
     * a replication stream (replication, asked when the snapshot starts; null for none), so that a
     * restarted server continues that stream (PSYNC) rather than synchronising anew.
     */
    public static RdbFormats rdb(Config config, Supplier<List<byte[]>> libraries, Supplier<ReplicationPoint> replication) {
        return new RdbFormats() {
            @Override
            public SnapshotFormat get() {
                return new Rdb(config, false, libraries.get(), replication.get(), false);
            }

            @Override
            public SnapshotFormat forReplicas(ReplicationPoint where, boolean functionsOnly) {
                return new Rdb(config, false, libraries.get(), where, functionsOnly);
            }
        };
    }

    /** What an AOF rewrite writes: an RDB marked as AOF base, or commands. */
    public static AppendOnly.Formats aof(Config config, Supplier<List<byte[]>> libraries) {
        return new AppendOnly.Formats() {
            @Override
            public SnapshotFormat rdbBase() {
                return new Rdb(config, true, libraries.get(), null, false);
            }

            @Override
            public SnapshotFormat commandsBase() {
                return new Commands(config, libraries.get());
            }
        };
    }

    private static final class Rdb implements SnapshotFormat {
        private final Config config;
        private final boolean aofBase;
        private final List<byte[]> libraries;
        /** A replica's: the repl-* aux fields, else null. */
        private final ReplicationPoint replication;
        private final boolean functionsOnly;
        private RdbWriter writer;

        Rdb(Config config, boolean aofBase, List<byte[]> libraries, ReplicationPoint replication, boolean functionsOnly) {
            this.config = config;
            this.aofBase = aofBase;
            this.libraries = libraries;
            this.replication = replication;
            this.functionsOnly = functionsOnly;
        }

        @Override
        public void begin(OutputStream out) throws IOException {
            writer = new RdbWriter(out, config.getBool(ConfigOptions.RDBCOMPRESSION), config.getBool(ConfigOptions.RDBCHECKSUM));
            Runtime rt = Runtime.getRuntime();
            long ctime = System.currentTimeMillis() / 1000, used = rt.totalMemory() - rt.freeMemory();
            writer.begin(replication == null ? RdbWriter.standardAux(ctime, used, aofBase)
                    : RdbWriter.standardAux(ctime, used, aofBase, replication.streamDb(), replication.id(), replication.offset()));
            for (byte[] code : libraries) writer.function(code);
        }

        @Override
        public void beginDatabase(int db, long keys, long expires) throws IOException {
            if (!functionsOnly) writer.selectDb(db, keys, expires);
        }

        @Override
        public void entry(byte[] key, Object value, long expireAtMs, long idleSeconds, int freq) throws IOException {
            if (!functionsOnly) writer.key(key, value, expireAtMs, idleSeconds, freq);
        }

        @Override
        public void end() throws IOException {
            writer.end();
        }
    }

    private static final class Commands implements SnapshotFormat {
        private final Config config;
        private final List<byte[]> libraries;
        private AofRewriteEmitter emitter;
        private int db;

        Commands(Config config, List<byte[]> libraries) {
            this.config = config;
            this.libraries = libraries;
        }

        @Override
        public void begin(OutputStream out) throws IOException {
            emitter = new AofRewriteEmitter(out);
            if (config.getBool(ConfigOptions.AOF_TIMESTAMP_ENABLED)) emitter.timestamp(System.currentTimeMillis() / 1000);
            for (byte[] code : libraries) emitter.functionLoad(code);
        }

        @Override
        public void beginDatabase(int db, long keys, long expires) {
            this.db = db;
        }

        @Override
        public void entry(byte[] key, Object value, long expireAtMs, long idleSeconds, int freq) throws IOException {
            emitter.key(db, key, value, expireAtMs);
        }

        @Override
        public void end() throws IOException {
            emitter.finish();
        }
    }
}
