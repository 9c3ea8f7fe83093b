package io.cinnabar.config;

import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static io.cinnabar.config.ConfigOption.bool;
import static io.cinnabar.config.ConfigOption.custom;
import static io.cinnabar.config.ConfigOption.enumeration;
import static io.cinnabar.config.ConfigOption.enumerationWithSynonyms;
import static io.cinnabar.config.ConfigOption.integer;
import static io.cinnabar.config.ConfigOption.memory;
import static io.cinnabar.config.ConfigOption.memoryOrPercent;
import static io.cinnabar.config.ConfigOption.octal;
import static io.cinnabar.config.ConfigOption.optionalBinaryString;
import static io.cinnabar.config.ConfigOption.optionalString;
import static io.cinnabar.config.ConfigOption.string;
import static io.cinnabar.config.ConfigOption.text;
import static io.cinnabar.config.ConfigOption.unsignedMemory;

/**
 * Every option Cinnabar understands, declared once (Redis's static_configs[]). Defaults are
 * Redis 7.0's. conf/cinnabar.conf documents each of them.
 */
public final class ConfigOptions {
    private static final List<ConfigOption> ALL = new ArrayList<>();
    private static final long INT_MAX = Integer.MAX_VALUE;
    private static final long LONG_MAX = Long.MAX_VALUE;
    private static final long UINT_MAX = 0xffffffffL;

    private ConfigOptions() {}

    // ---- network ----
    public static final ConfigOption CLUSTER_ENABLED = add(bool("cluster-enabled", false).immutable());
    public static final ConfigOption CLUSTER_REQUIRE_FULL_COVERAGE = add(bool("cluster-require-full-coverage", true));
    public static final ConfigOption CLUSTER_ALLOW_READS_WHEN_DOWN = add(bool("cluster-allow-reads-when-down", false));
    public static final ConfigOption CLUSTER_ALLOW_PUBSUBSHARD_WHEN_DOWN = add(bool("cluster-allow-pubsubshard-when-down", true));
    public static final ConfigOption PORT = add(integer("port", 0, 65535, 6379));
    public static final ConfigOption BIND = add(text("bind", words -> String.join(" ", words), "* -::*").multiArg()
            .rewrittenAs(ConfigOptions::rewriteBind));
    public static final ConfigOption TRACKING_TABLE_MAX_KEYS = add(integer("tracking-table-max-keys", 0, LONG_MAX, 1000000));
    public static final ConfigOption PROTECTED_MODE = add(bool("protected-mode", true));
    /** A unix socket to listen on too ("" none); epoll transports only. */
    public static final ConfigOption UNIXSOCKET = add(optionalString("unixsocket").immutable());
    public static final ConfigOption UNIXSOCKETPERM = add(octal("unixsocketperm", 0, 0777, 0).immutable());
    public static final ConfigOption TCP_BACKLOG = add(integer("tcp-backlog", 0, INT_MAX, 511).immutable());
    public static final ConfigOption TIMEOUT = add(integer("timeout", 0, INT_MAX, 0));
    public static final ConfigOption TCP_KEEPALIVE = add(integer("tcp-keepalive", 0, INT_MAX, 300));
    public static final ConfigOption MAXCLIENTS = add(integer("maxclients", 1, 4294967295L, 10000));
    public static final ConfigOption IO_THREADS = add(integer("io-threads", 1, 128, 1).immutable());

    // ---- general ----
    public static final ConfigOption DAEMONIZE = add(bool("daemonize", false).immutable().inert());
    public static final ConfigOption PIDFILE = add(optionalString("pidfile").immutable());
    public static final ConfigOption LOGLEVEL = add(enumeration("loglevel", "notice",
            "debug", "verbose", "notice", "warning"));
    public static final ConfigOption LOGFILE = add(string("logfile", "").immutable());
    public static final ConfigOption DATABASES = add(integer("databases", 1, INT_MAX, 16).immutable());
    /** Any integer is accepted and capped to 1..500: a hint, as in Redis. */
    public static final ConfigOption HZ = add(custom("hz",
            words -> Math.max(1L, Math.min(500L, ConfigOption.parseInteger(ConfigOption.single(words), 0, INT_MAX))),
            String::valueOf, "10"));
    public static final ConfigOption DYNAMIC_HZ = add(bool("dynamic-hz", true).inert());
    public static final ConfigOption ALWAYS_SHOW_LOGO = add(bool("always-show-logo", false).immutable());
    public static final ConfigOption ENABLE_DEBUG_COMMAND = add(enumeration("enable-debug-command", "no",
            "no", "yes", "local").immutable());
    /**
     * Cinnabar's test controls: the CINNABAR command exists only with yes. Hidden, as Redis's
     * testing knobs are, so CONFIG GET * (and Redis's own config tests) see only Redis's options.
     */
    public static final ConfigOption ENABLE_TEST_COMMANDS = add(bool("enable-test-commands", false).immutable().hidden()
            .rewrittenAs(ConfigOption.UNLESS_DEFAULT));
    /** system: the server's time is the system's; manual: it stands still until moved (CINNABAR CLOCK, ManualClock). */
    public static final ConfigOption CLOCK = add(enumeration("clock", "system", "system", "manual").immutable().hidden()
            .rewrittenAs(ConfigOption.UNLESS_DEFAULT));
    public static final ConfigOption ENABLE_PROTECTED_CONFIGS = add(enumeration("enable-protected-configs", "no",
            "no", "yes", "local").immutable());
    /** Gates MODULE LOAD/LOADEX/UNLOAD (which then fail: no native module runs on the JVM). */
    public static final ConfigOption ENABLE_MODULE_COMMAND = add(enumeration("enable-module-command", "no",
            "no", "yes", "local").immutable());
    public static final ConfigOption ACTIVE_EXPIRE_EFFORT = add(integer("active-expire-effort", 1, 10, 1));

    // ---- security ----
    public static final ConfigOption REQUIREPASS = add(optionalBinaryString("requirepass"));

    // ---- limits ----
    /** proto-max-bulk-len's lowest value (Redis's): the decoder reads it only for longer bulks. */
    public static final long SMALLEST_PROTO_MAX_BULK_LEN = 1024 * 1024;
    public static final ConfigOption PROTO_MAX_BULK_LEN = add(memory("proto-max-bulk-len",
            SMALLEST_PROTO_MAX_BULK_LEN, LONG_MAX, 512L * 1024 * 1024));
    /** client-query-buffer-limit's lowest (Redis's): the decoder reads it only above this. */
    public static final long SMALLEST_CLIENT_QUERY_BUFFER_LIMIT = 1024 * 1024;
    public static final ConfigOption CLIENT_QUERY_BUFFER_LIMIT = add(memory("client-query-buffer-limit",
            SMALLEST_CLIENT_QUERY_BUFFER_LIMIT, LONG_MAX, 1024L * 1024 * 1024));
    public static final ConfigOption CLIENT_OUTPUT_BUFFER_LIMIT = add(custom("client-output-buffer-limit",
            ClientOutputBufferLimit.PARSER, ClientOutputBufferLimit.PARSER, ClientOutputBufferLimit.DEFAULT).multiArg()
            .rewrittenAs(ClientOutputBufferLimit::rewrite));
    public static final ConfigOption MAXMEMORY = add(unsignedMemory("maxmemory", 0));
    /** Bytes, or a negative percentage of maxmemory ("10%" is -10). */
    public static final ConfigOption MAXMEMORY_CLIENTS = add(memoryOrPercent("maxmemory-clients", -100, LONG_MAX, 0));
    public static final ConfigOption MAXMEMORY_POLICY = add(enumeration("maxmemory-policy", "noeviction",
            "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru", "allkeys-lfu",
            "allkeys-random", "noeviction"));
    public static final ConfigOption MAXMEMORY_SAMPLES = add(integer("maxmemory-samples", 1, INT_MAX, 5));
    public static final ConfigOption MAXMEMORY_EVICTION_TENACITY = add(integer("maxmemory-eviction-tenacity", 0, 100, 10));
    public static final ConfigOption LFU_LOG_FACTOR = add(integer("lfu-log-factor", 0, INT_MAX, 10));
    public static final ConfigOption LFU_DECAY_TIME = add(integer("lfu-decay-time", 0, INT_MAX, 1));

    // ---- persistence ----
    public static final ConfigOption DIR = add(text("dir", ConfigOptions::parseDir, new File("").getAbsolutePath()).guarded()
            .deniedWhileLoading().rewrittenAs(ConfigOptions::rewriteDir));
    public static final ConfigOption DBFILENAME = add(text("dbfilename", ConfigOptions::parseDbFilename, "dump.rdb").guarded()
            .rewrittenAs(ConfigOption.QUOTED));
    public static final ConfigOption SAVE = add(text("save", SavePoints::parse, "3600 1 300 100 60 10000").multiArg()
            .rewrittenAs(SavePoints::rewrite));
    public static final ConfigOption APPENDONLY = add(bool("appendonly", false).deniedWhileLoading());
    public static final ConfigOption APPENDFILENAME = add(text("appendfilename",
            words -> plainName(words, "appendfilename", "filename"), "appendonly.aof").immutable()
            .rewrittenAs(ConfigOption.QUOTED));
    public static final ConfigOption APPENDDIRNAME = add(text("appenddirname",
            words -> plainName(words, "appenddirname", "dirname"), "appendonlydir").immutable()
            .rewrittenAs(ConfigOption.QUOTED));
    public static final ConfigOption APPENDFSYNC = add(enumeration("appendfsync", "everysec",
            "everysec", "always", "no"));
    public static final ConfigOption RDBCOMPRESSION = add(bool("rdbcompression", true));
    public static final ConfigOption RDBCHECKSUM = add(bool("rdbchecksum", true).immutable());
    public static final ConfigOption STOP_WRITES_ON_BGSAVE_ERROR = add(bool("stop-writes-on-bgsave-error", true));
    public static final ConfigOption RDB_DEL_SYNC_FILES = add(bool("rdb-del-sync-files", false));
    public static final ConfigOption RDB_SAVE_INCREMENTAL_FSYNC = add(bool("rdb-save-incremental-fsync", true));
    public static final ConfigOption AOF_REWRITE_INCREMENTAL_FSYNC = add(bool("aof-rewrite-incremental-fsync", true));
    public static final ConfigOption NO_APPENDFSYNC_ON_REWRITE = add(bool("no-appendfsync-on-rewrite", false));
    public static final ConfigOption AOF_LOAD_TRUNCATED = add(bool("aof-load-truncated", true));
    public static final ConfigOption AOF_USE_RDB_PREAMBLE = add(bool("aof-use-rdb-preamble", true));
    public static final ConfigOption AOF_TIMESTAMP_ENABLED = add(bool("aof-timestamp-enabled", false));
    public static final ConfigOption AOF_DISABLE_AUTO_GC = add(bool("aof-disable-auto-gc", false));
    public static final ConfigOption AUTO_AOF_REWRITE_PERCENTAGE = add(integer("auto-aof-rewrite-percentage",
            0, INT_MAX, 100));
    public static final ConfigOption AUTO_AOF_REWRITE_MIN_SIZE = add(memory("auto-aof-rewrite-min-size",
            0, LONG_MAX, 64L * 1024 * 1024));
    /** Hidden in Redis: microseconds to sleep per key saved, so tests can catch a save in progress. */
    public static final ConfigOption RDB_KEY_SAVE_DELAY = add(integer("rdb-key-save-delay",
            Integer.MIN_VALUE, INT_MAX, 0).hidden());
    /** Hidden in Redis: microseconds to sleep per key loaded. */
    public static final ConfigOption KEY_LOAD_DELAY = add(integer("key-load-delay", Integer.MIN_VALUE, INT_MAX, 0)
            .hidden());
    public static final ConfigOption LOADING_PROCESS_EVENTS_INTERVAL_BYTES = add(integer(
            "loading-process-events-interval-bytes", 1024, INT_MAX, 2L * 1024 * 1024).hidden());
    public static final ConfigOption SANITIZE_DUMP_PAYLOAD = add(enumeration("sanitize-dump-payload", "no",
            "no", "yes", "clients"));
    public static final ConfigOption SHUTDOWN_TIMEOUT = add(integer("shutdown-timeout", 0, INT_MAX, 10));
    public static final ConfigOption SHUTDOWN_ON_SIGTERM = add(text("shutdown-on-sigterm",
            ConfigOptions::parseShutdownFlags, "default").multiArg());
    public static final ConfigOption SHUTDOWN_ON_SIGINT = add(text("shutdown-on-sigint",
            ConfigOptions::parseShutdownFlags, "default").multiArg());

    // ---- encodings (used by the collection types) ----
    public static final ConfigOption HASH_MAX_LISTPACK_ENTRIES = add(integer("hash-max-listpack-entries",
            0, LONG_MAX, 512).alias("hash-max-ziplist-entries"));
    public static final ConfigOption HASH_MAX_LISTPACK_VALUE = add(memory("hash-max-listpack-value",
            0, LONG_MAX, 64).alias("hash-max-ziplist-value"));
    public static final ConfigOption SET_MAX_INTSET_ENTRIES = add(integer("set-max-intset-entries",
            0, LONG_MAX, 512));
    public static final ConfigOption ZSET_MAX_LISTPACK_ENTRIES = add(integer("zset-max-listpack-entries",
            0, LONG_MAX, 128).alias("zset-max-ziplist-entries"));
    public static final ConfigOption ZSET_MAX_LISTPACK_VALUE = add(memory("zset-max-listpack-value",
            0, LONG_MAX, 64).alias("zset-max-ziplist-value"));
    public static final ConfigOption LIST_MAX_LISTPACK_SIZE = add(integer("list-max-listpack-size",
            Integer.MIN_VALUE, INT_MAX, -2).alias("list-max-ziplist-size"));
    public static final ConfigOption STREAM_NODE_MAX_BYTES = add(memory("stream-node-max-bytes", 0, LONG_MAX, 4096));
    public static final ConfigOption STREAM_NODE_MAX_ENTRIES = add(integer("stream-node-max-entries", 0, LONG_MAX, 100));
    public static final ConfigOption LIST_COMPRESS_DEPTH = add(integer("list-compress-depth", 0, INT_MAX, 0).inert());
    public static final ConfigOption HLL_SPARSE_MAX_BYTES = add(memory("hll-sparse-max-bytes", 0, LONG_MAX, 3000));

    // ---- diagnostics and events ----
    public static final ConfigOption SLOWLOG_LOG_SLOWER_THAN = add(integer("slowlog-log-slower-than",
            -1, LONG_MAX, 10000));
    public static final ConfigOption SLOWLOG_MAX_LEN = add(integer("slowlog-max-len", 0, LONG_MAX, 128));
    public static final ConfigOption LATENCY_MONITOR_THRESHOLD = add(integer("latency-monitor-threshold",
            0, LONG_MAX, 0));
    public static final ConfigOption LATENCY_TRACKING = add(bool("latency-tracking", true));
    public static final ConfigOption LATENCY_TRACKING_INFO_PERCENTILES = add(text("latency-tracking-info-percentiles",
            LatencyPercentiles::parse, "50 99 99.9").multiArg()
            .rewrittenAs(LatencyPercentiles::rewrite));
    public static final ConfigOption NOTIFY_KEYSPACE_EVENTS = add(custom("notify-keyspace-events",
            KeyspaceEventFlags::parse, v -> ((KeyspaceEventFlags) v).text(), "")
            .rewrittenAs(ConfigOption.QUOTED));
    public static final ConfigOption LAZYFREE_LAZY_USER_DEL = add(bool("lazyfree-lazy-user-del", false));
    public static final ConfigOption LAZYFREE_LAZY_USER_FLUSH = add(bool("lazyfree-lazy-user-flush", false));
    public static final ConfigOption LAZYFREE_LAZY_EXPIRE = add(bool("lazyfree-lazy-expire", false));
    public static final ConfigOption LAZYFREE_LAZY_EVICTION = add(bool("lazyfree-lazy-eviction", false));
    public static final ConfigOption LAZYFREE_LAZY_SERVER_DEL = add(bool("lazyfree-lazy-server-del", false));
    public static final ConfigOption BUSY_REPLY_THRESHOLD = add(integer("busy-reply-threshold", 0, LONG_MAX,
            5000).alias("lua-time-limit"));

    /** Whether a crash logs Redis's whole bug report (CrashReport). */
    public static final ConfigOption CRASH_LOG_ENABLED = add(bool("crash-log-enabled", true));

    // ---- accepted for compatibility, without effect in Cinnabar yet (warned about once when given) ----
    static {
        // general
        add(bool("set-proc-title", true).immutable().inert());
        add(text("proc-title-template", ProcTitleTemplate::parse, "{title} {listen-addr} {server-mode}").inert()
                .rewrittenAs(ConfigOption.QUOTED));
        add(enumeration("supervised", "no", "upstart", "systemd", "auto", "no").immutable().inert());
        add(bool("syslog-enabled", false).immutable().inert());
        add(string("syslog-ident", "redis").immutable().inert());
        add(enumeration("syslog-facility", "local0", "user", "local0", "local1", "local2", "local3", "local4",
                "local5", "local6", "local7").immutable().inert());
        add(bool("crash-memcheck-enabled", true).inert());
        add(bool("use-exit-on-panic", false).hidden().inert());
        add(integer("watchdog-period", 0, INT_MAX, 0).hidden().inert());
        add(bool("disable-thp", true).immutable().inert());
        add(bool("jemalloc-bg-thread", true).inert());
        add(string("ignore-warnings", "").inert());
        for (String cpulist : new String[] {"server_cpulist", "bio_cpulist", "aof_rewrite_cpulist", "bgsave_cpulist"}) {
            add(optionalString(cpulist).immutable().inert());
        }
        add(enumerationWithSynonyms("oom-score-adj", "no", "no", "yes", "relative=yes", "absolute"));
        add(text("oom-score-adj-values", OomScoreAdjValues::parse, "0 200 800").multiArg());
        add(bool("activerehashing", true).inert());
        add(bool("io-threads-do-reads", false).immutable().inert());
        // network and security
        add(integer("socket-mark-id", 0, UINT_MAX, 0).immutable().inert());
        add(optionalString("bind-source-addr"));
    }

    public static final ConfigOption ACLFILE = add(string("aclfile", "").immutable());
    public static final ConfigOption ACLLOG_MAX_LEN = add(integer("acllog-max-len", 0, LONG_MAX, 128));
    public static final ConfigOption ACL_PUBSUB_DEFAULT = add(enumeration("acl-pubsub-default", "resetchannels", "allchannels", "resetchannels"));

    static {
        // memory
        add(bool("activedefrag", false).inert());
        add(memory("active-defrag-ignore-bytes", 1, LONG_MAX, 100L << 20).inert());
        add(integer("active-defrag-threshold-lower", 0, 1000, 10).inert());
        add(integer("active-defrag-threshold-upper", 0, 1000, 100).inert());
        add(integer("active-defrag-cycle-min", 1, 99, 1).inert());
        add(integer("active-defrag-cycle-max", 1, 99, 25).inert());
        add(integer("active-defrag-max-scan-fields", 1, LONG_MAX, 1000).inert());
        // replication
        add(text("replicaof", ReplicaOf::parse, "").alias("slaveof").multiArg().immutable()
                .rewrittenAs(ReplicaOf::rewrite));
        add(optionalString("masteruser"));
        add(optionalBinaryString("masterauth"));
        add(bool("replica-serve-stale-data", true).alias("slave-serve-stale-data"));
        add(bool("replica-read-only", true).alias("slave-read-only"));
        add(bool("replica-ignore-maxmemory", true).alias("slave-ignore-maxmemory"));
        add(bool("replica-lazy-flush", false).alias("slave-lazy-flush").inert());
        add(bool("replica-announced", true));
        add(integer("replica-priority", 0, INT_MAX, 100).alias("slave-priority"));
        add(optionalString("replica-announce-ip").alias("slave-announce-ip"));
        add(integer("replica-announce-port", 0, 65535, 0).alias("slave-announce-port"));
        add(bool("replica-ignore-disk-write-errors", false).inert());
        add(bool("repl-diskless-sync", true));
        add(integer("repl-diskless-sync-delay", 0, INT_MAX, 5));
        add(integer("repl-diskless-sync-max-replicas", 0, INT_MAX, 0));
        add(enumeration("repl-diskless-load", "disabled", "disabled", "on-empty-db", "swapdb").deniedWhileLoading());
        add(integer("repl-ping-replica-period", 1, INT_MAX, 10).alias("repl-ping-slave-period"));
        add(integer("repl-timeout", 1, INT_MAX, 60));
        add(bool("repl-disable-tcp-nodelay", false).inert());
        // Redis's resizeReplicationBacklog raises a smaller size to 16 KB, which CONFIG GET then shows.
        add(custom("repl-backlog-size", words -> Math.max(ConfigOption.memoryInRange(words, 1, LONG_MAX), 16 * 1024L),
                String::valueOf, String.valueOf(1024 * 1024)).writtenInFileAs(ConfigOption.MEMORY_IN_FILE));
        add(integer("repl-backlog-ttl", 0, LONG_MAX, 3600));
        add(integer("min-replicas-to-write", 0, INT_MAX, 0).alias("min-slaves-to-write"));
        add(integer("min-replicas-max-lag", 0, INT_MAX, 10).alias("min-slaves-max-lag"));
        add(enumeration("propagation-error-behavior", "ignore", "ignore", "panic", "panic-on-replicas").inert());
        // cluster
        add(string("cluster-config-file", "nodes.conf").immutable().inert());
        add(integer("cluster-port", 0, 65535, 0).immutable().inert());
        add(integer("cluster-node-timeout", 0, LONG_MAX, 15000).inert());
        add(optionalString("cluster-announce-ip").inert());
        add(text("cluster-announce-hostname", ConfigOptions::parseHostname, "").inert()
                .rewrittenAs(ConfigOption.QUOTED_UNLESS_EMPTY));
        add(integer("cluster-announce-port", 0, 65535, 0).inert());
        add(integer("cluster-announce-bus-port", 0, 65535, 0).inert());
        add(integer("cluster-announce-tls-port", 0, 65535, 0).inert());
        add(integer("cluster-replica-validity-factor", 0, INT_MAX, 10).alias("cluster-slave-validity-factor").inert());
        add(integer("cluster-migration-barrier", 0, INT_MAX, 1).inert());
        add(bool("cluster-allow-replica-migration", true).inert());
        add(bool("cluster-replica-no-failover", false).alias("cluster-slave-no-failover").inert());
        add(unsignedMemory("cluster-link-sendbuf-limit", 0).inert());
        add(enumeration("cluster-preferred-endpoint-type", "ip", "ip", "hostname", "unknown-endpoint").inert());
    }

    // ---- TLS (Redis's tls-* options; the client side, for replication and cluster, is checked but not used) ----
    public static final ConfigOption TLS_PORT = add(integer("tls-port", 0, 65535, 0));
    public static final ConfigOption TLS_CERT_FILE = add(optionalString("tls-cert-file"));
    public static final ConfigOption TLS_KEY_FILE = add(optionalString("tls-key-file"));
    public static final ConfigOption TLS_KEY_FILE_PASS = add(optionalString("tls-key-file-pass"));
    public static final ConfigOption TLS_CLIENT_CERT_FILE = add(optionalString("tls-client-cert-file").inert());
    public static final ConfigOption TLS_CLIENT_KEY_FILE = add(optionalString("tls-client-key-file").inert());
    public static final ConfigOption TLS_CLIENT_KEY_FILE_PASS = add(optionalString("tls-client-key-file-pass").inert());
    /** Checked to be a DH parameters file, as Redis does; the JDK picks its own DHE groups. */
    public static final ConfigOption TLS_DH_PARAMS_FILE = add(optionalString("tls-dh-params-file").inert());
    public static final ConfigOption TLS_CA_CERT_FILE = add(optionalString("tls-ca-cert-file"));
    public static final ConfigOption TLS_CA_CERT_DIR = add(optionalString("tls-ca-cert-dir"));
    public static final ConfigOption TLS_PROTOCOLS = add(optionalString("tls-protocols"));
    public static final ConfigOption TLS_CIPHERS = add(optionalString("tls-ciphers"));
    public static final ConfigOption TLS_CIPHERSUITES = add(optionalString("tls-ciphersuites"));
    public static final ConfigOption TLS_AUTH_CLIENTS = add(enumeration("tls-auth-clients", "yes", "no", "yes", "optional"));
    public static final ConfigOption TLS_REPLICATION = add(bool("tls-replication", false));
    public static final ConfigOption TLS_CLUSTER = add(bool("tls-cluster", false).inert());
    public static final ConfigOption TLS_PREFER_SERVER_CIPHERS = add(bool("tls-prefer-server-ciphers", false));
    public static final ConfigOption TLS_SESSION_CACHING = add(bool("tls-session-caching", true));
    public static final ConfigOption TLS_SESSION_CACHE_SIZE = add(integer("tls-session-cache-size", 0, INT_MAX, 20 * 1024));
    public static final ConfigOption TLS_SESSION_CACHE_TIMEOUT = add(integer("tls-session-cache-timeout", 0, INT_MAX, 300));

    private static ConfigOption add(ConfigOption.Builder b) {
        ConfigOption o = b.build();
        o.index = ALL.size();
        ALL.add(o);
        return o;
    }

    public static List<ConfigOption> all() {
        return Collections.unmodifiableList(ALL);
    }

    /** appendfilename / appenddirname: a plain name inside dir, as Redis's isValidAOFfilename checks. */
    private static Object plainName(String[] words, String option, String kind) throws ConfigException {
        String name = ConfigOption.single(words);
        if (name.isEmpty()) throw new ConfigException(option + " can't be empty");
        if (name.contains("/")) throw new ConfigException(option + " can't be a path, just a " + kind);
        return name;
    }

    private static Object parseDbFilename(String[] words) throws ConfigException {
        String name = ConfigOption.single(words);
        if (name.contains("/")) throw new ConfigException("dbfilename can't be a path, just a filename");
        return name;
    }

    /** shutdown-on-sigterm/sigint: "default", or any of save, nosave, now, force (save and nosave exclusive). */
    private static Object parseShutdownFlags(String[] words) throws ConfigException {
        java.util.List<String> known = java.util.List.of("default", "save", "nosave", "now", "force");
        java.util.Set<String> given = new java.util.HashSet<>();
        for (String w : words) {
            for (String f : w.trim().split("\\s+")) {
                String flag = f.toLowerCase(java.util.Locale.ROOT);
                if (!known.contains(flag)) {
                    throw new ConfigException("argument(s) must be one of the following: default, save, nosave, now, force");
                }
                given.add(flag);
            }
        }
        if (given.contains("save") && given.contains("nosave")) {
            throw new ConfigException("shutdown options SAVE and NOSAVE can't be used simultaneously");
        }
        // Printed in Redis's enum order, whatever order they were given in.
        java.util.List<String> flags = new ArrayList<>();
        for (String k : known) if (!k.equals("default") && given.contains(k)) flags.add(k);
        return flags.isEmpty() ? "default" : String.join(" ", flags);
    }

    /** cluster-announce-hostname: what Redis accepts as a hostname it announces. */
    private static Object parseHostname(String[] words) throws ConfigException {
        String name = ConfigOption.single(words);
        if (name.length() >= 256) throw new ConfigException("Hostnames must be less than 256 characters");
        for (char ch : name.toCharArray()) {
            if (!(Character.isLetterOrDigit(ch) && ch < 128) && ch != '-' && ch != '.') {
                throw new ConfigException("Hostnames may only contain alphanumeric characters, hyphens or dots");
            }
        }
        return name;
    }

    private static Object parseDir(String[] words) throws ConfigException {
        String dir = ConfigOption.single(words);
        // What getcwd says after Redis's chdir there: links resolved ("" is no path for chdir).
        try {
            java.nio.file.Path real = java.nio.file.Path.of(dir).toRealPath();
            if (!dir.isEmpty() && real.toFile().isDirectory()) return real.toString();
        } catch (java.io.IOException | java.nio.file.InvalidPathException notThere) {
            // the error below
        }
        throw new ConfigException("No such file or directory");
    }

    /** Redis writes dir always: the file then works from any working directory. */
    private static void rewriteDir(ConfigOption o, Object value, Object def, ConfigRewriter out) {
        out.line(o.name, o.name + " " + ConfigRewriter.quote((String) value), true);
    }

    /** The default addresses get no line (the file's go); none at all is bind "". */
    private static void rewriteBind(ConfigOption o, Object value, Object def, ConfigRewriter out) {
        if (o.isDefault(value, def)) out.noLine(o.name);
        else out.line(o.name, o.name + " " + (((String) value).isEmpty() ? "\"\"" : value), true);
    }
}
