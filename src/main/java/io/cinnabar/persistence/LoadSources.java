package io.cinnabar.persistence;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.persistence.aof.AofLayout;
import io.cinnabar.persistence.aof.AofLoadStatus;
import io.cinnabar.persistence.aof.AofLoader;
import io.cinnabar.persistence.aof.AofManifest;
import io.cinnabar.persistence.rdb.RdbFormatException;
import io.cinnabar.persistence.rdb.RdbLoadOptions;
import io.cinnabar.persistence.rdb.RdbReader;
import io.cinnabar.persistence.rdb.RdbVisitor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * What start-up, DEBUG RELOAD and DEBUG LOADAOF load from: an RDB file, or the AOF (its base
 * and incr files). Each runs on a loader thread ({@link Loading}) and logs what Redis logs while
 * loading, word for word where Redis's tests look for it.
 */
public final class LoadSources {
    private static final Logger log = LoggerFactory.getLogger(LoadSources.class);

    private LoadSources() {}

    /** The options deciding loaded values' encodings, from the config now. */
    public static RdbLoadOptions rdbOptions(Config config) {
        return new RdbLoadOptions(config.getLong(ConfigOptions.HASH_MAX_LISTPACK_ENTRIES),
                config.getLong(ConfigOptions.HASH_MAX_LISTPACK_VALUE),
                config.getLong(ConfigOptions.ZSET_MAX_LISTPACK_ENTRIES),
                config.getLong(ConfigOptions.ZSET_MAX_LISTPACK_VALUE),
                config.getLong(ConfigOptions.SET_MAX_INTSET_ENTRIES),
                config.getInt(ConfigOptions.LIST_MAX_LISTPACK_SIZE),
                config.getInt(ConfigOptions.LIST_COMPRESS_DEPTH),
                "yes".equals(config.getString(ConfigOptions.SANITIZE_DUMP_PAYLOAD)));
    }

    /** The dump file; loading a missing one loads nothing. Counts keys for INFO through stats. */
    public static Loading.Source rdb(Config config, Path file, LoadStats stats) {
        return (sink, progress) -> {
            if (!Files.exists(file)) return null;
            long start = System.nanoTime();
            progress.total(Files.size(file));
            try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 64 * 1024)) {
                RdbReader reader = new RdbReader(in, rdbOptions(config));
                reader.read(visitor(config, sink, stats, reader, progress, true));
            } catch (RdbFormatException e) {
                String where = "Error loading " + file + " at offset " + e.offset() + ": " + e.reason();
                reportRdbError(e, where);
                return where;
            } catch (IOException e) {
                String reason = RdbSaves.reason(e);
                log.warn("Fatal error loading the DB: {}. Exiting.", reason);
                return "Error loading " + file + ": " + reason;
            }
            doneLoading(stats);
            log.info("DB loaded from disk: {} seconds", seconds(start));
            return null;
        };
    }

    /** The AOF in config's dir: base (RDB or commands) then incr files, as the manifest lists them. */
    public static Loading.Source aof(Config config, AofLayout layout, LoadStats stats, AofManifest[] loadedManifest) {
        return (sink, progress) -> {
            long start = System.nanoTime();
            AofManifest manifest;
            try {
                manifest = AofManifest.loadFromDisk(layout);
            } catch (IOException e) {
                // AofManifest logged Redis's FATAL block already.
                return "Bad AOF manifest";
            }
            AofLoader loader = new AofLoader(layout, config.getBool(ConfigOptions.AOF_LOAD_TRUNCATED), in -> {
                RdbReader reader = new RdbReader(in, rdbOptions(config));
                reader.read(visitor(config, sink, stats, reader, progress, false));
                doneLoading(stats);
                // The reader buffers ahead: the AOF tail starts right after the RDB, not after the buffer.
                return reader.bytesRead();
            }, sink::command);
            AofLoader.Result result = loader.loadAll(manifest);
            loadedManifest[0] = result.manifest();
            progress.loaded(result.totalSize());
            if (result.status() == AofLoadStatus.FAILED || result.status() == AofLoadStatus.OPEN_ERR) {
                return "Bad file format reading the append only file";
            }
            if (result.status() != AofLoadStatus.NOT_EXIST) {
                log.info("DB loaded from append only file: {} seconds", seconds(start));
            }
            return null;
        };
    }

    /** A key a load left out because it had expired. */
    public record ExpiredKey(int db, byte[] key) { }

    /** Keys loaded and skipped as expired, for the log line and INFO. */
    public static final class LoadStats {
        volatile long loaded, expired, emptySkipped;
        /** The aux field repl-stream-db: the database a master's stream after this payload is in. */
        volatile int replStreamDb;
        /** The aux fields repl-id and repl-offset: where in a replication stream the data is (null: in none). */
        volatile String replId;
        volatile long replOffset = -1;
        /**
         * The keys found expired and left out, when asked for (non-null): a master restarted from
         * a dump passes their deletion on to its replicas (Redis's RDBFLAGS_FEED_REPL).
         */
        private java.util.List<ExpiredKey> expiredKeys;

        /** Keeps the keys found expired (see {@link #expiredKeys()}). */
        public void keepExpiredKeys() {
            expiredKeys = new java.util.ArrayList<>();
        }

        /** The keys found expired, in the file's order, or null when not kept. */
        public java.util.List<ExpiredKey> expiredKeys() {
            return expiredKeys;
        }

        public int replStreamDb() {
            return replStreamDb;
        }

        /** The replication stream the file's data is at, or null when it names none. */
        public ReplicationPoint replicationPoint() {
            return replId == null || replOffset < 0 ? null : new ReplicationPoint(replId, replOffset, replStreamDb);
        }

        public long loaded() {
            return loaded;
        }

        public long expired() {
            return expired;
        }
    }

    private static RdbVisitor visitor(Config config, Loading.Sink sink, LoadStats stats, RdbReader reader,
                                      Loading.Progress progress, boolean dropExpired) {
        long delayMicros = config.getLong(ConfigOptions.KEY_LOAD_DELAY);
        long now = sink.now();
        return new RdbVisitor() {
            @Override
            public void aux(byte[] key, byte[] value) {
                String k = new String(key, StandardCharsets.ISO_8859_1);
                String v = new String(value, StandardCharsets.ISO_8859_1);
                switch (k) {
                    case "redis-ver" -> log.info("Loading RDB produced by version {}", v);
                    case "ctime" -> {
                        try {
                            long age = now / 1000 - Long.parseLong(v);
                            log.info("RDB age {} seconds", Math.max(0, age));
                        } catch (NumberFormatException ignored) {
                            // a malformed aux value is only informational
                        }
                    }
                    case "used-mem" -> {
                        try {
                            log.info("RDB memory usage when created {} Mb",
                                    String.format(java.util.Locale.ROOT, "%.2f", Long.parseLong(v) / 1024.0 / 1024.0));
                        } catch (NumberFormatException ignored) {
                            // informational only
                        }
                    }
                    case "aof-base" -> {
                        if ("1".equals(v)) log.info("RDB is base AOF");
                    }
                    case "repl-id" -> stats.replId = v;
                    case "repl-offset" -> {
                        try {
                            stats.replOffset = Long.parseLong(v);
                        } catch (NumberFormatException ignored) {
                            // no replication point then
                        }
                    }
                    case "repl-stream-db" -> {
                        try {
                            stats.replStreamDb = Math.max(0, Math.min(Integer.parseInt(v), config.getInt(ConfigOptions.DATABASES) - 1));
                        } catch (NumberFormatException ignored) {
                            // database 0, as Redis's rdbLoad takes a bad one
                        }
                    }
                    default -> log.debug("RDB '{}': {}", k, v);
                }
            }

            @Override
            public void entry(int db, byte[] key, Object value, long expireAtMs, long idleSeconds, int freq)
                    throws IOException {
                if (db >= config.getInt(ConfigOptions.DATABASES)) {
                    throw new RdbFormatException(RdbFormatException.Kind.CORRUPT, reader.bytesRead(),
                            "FATAL: Data file was created with a Redis server configured to handle more than "
                                    + config.getInt(ConfigOptions.DATABASES) + " databases. Exiting\n");
                }
                progress.loaded(reader.bytesRead());
                if (dropExpired && expireAtMs != -1 && expireAtMs < now) {
                    stats.expired++;
                    if (stats.expiredKeys != null) stats.expiredKeys.add(new ExpiredKey(db, key));
                } else {
                    sink.entry(db, key, value, expireAtMs, idleSeconds, freq);
                    stats.loaded++;
                }
                if (delayMicros > 0) LockSupport.parkNanos(delayMicros * 1000);
            }

            @Override
            public void function(byte[] code) {
                sink.function(code);
            }

            @Override
            public void emptyKeySkipped(int db, byte[] key) {
                stats.emptySkipped++;
                log.warn("rdbLoadObject skipping empty key: {}", new String(key, StandardCharsets.UTF_8));
            }
        };
    }

    private static void doneLoading(LoadStats stats) {
        if (stats.emptySkipped > 0) {
            log.warn("Done loading RDB, keys loaded: {}, keys expired: {}, empty keys skipped: {}.",
                    stats.loaded, stats.expired, stats.emptySkipped);
        } else {
            log.info("Done loading RDB, keys loaded: {}, keys expired: {}.", stats.loaded, stats.expired);
        }
    }

    /** Logs a bad RDB as Redis does, with where (file and offset) before Redis's last line. */
    private static void reportRdbError(RdbFormatException e, String where) {
        switch (e.kind()) {
            case SHORT_READ -> {
                log.warn("Short read or OOM loading DB. Unrecoverable error, aborting now.");
                log.warn("Internal error in RDB reading offset {}, function at rdb.c:0 -> Unexpected EOF reading RDB file",
                        e.offset());
            }
            case BAD_SIGNATURE -> log.warn("Wrong signature trying to load DB from file");
            case UNSUPPORTED_VERSION, UNSUPPORTED_TYPE -> log.warn("{}", e.reason());
            case CHECKSUM -> log.warn("Internal error in RDB reading offset {}, function at rdb.c:0 -> RDB CRC error",
                    e.offset());
            default -> log.warn("Internal error in RDB reading offset {}, function at rdb.c:0 -> {}", e.offset(),
                    e.reason());
        }
        log.warn("{}", where);
        log.warn("Terminating server after rdb file reading failure.");
    }

    private static String seconds(long startNanos) {
        return String.format(java.util.Locale.ROOT, "%.3f", (System.nanoTime() - startNanos) / 1e9);
    }
}
