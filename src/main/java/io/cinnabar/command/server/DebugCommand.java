package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.HelpReply;
import io.cinnabar.command.CommandError;
import io.cinnabar.keyspace.Entry;
import io.cinnabar.keyspace.TypedValue;
import io.cinnabar.log.CrashReport;
import io.cinnabar.protocol.Reply;
import io.cinnabar.util.Numbers;

/**
 * DEBUG subcommands the test suite and operators use; the rest answer like Redis's unknown ones.
 * As in Redis 7.0, DEBUG runs only as enable-debug-command allows (default no; the Dispatcher
 * refuses it otherwise): the test suite's default.conf turns it on.
 */
final class DebugCommand {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(DebugCommand.class);

    private static final String[] HELP = {
        "ASSERT",
        "    Crash by assertion failed.",
        "CONFIG-REWRITE-FORCE-ALL",
        "    Like CONFIG REWRITE but writes all configuration options, including",
        "    keywords not listed in original configuration file or default values.",
        "DIGEST",
        "    Output a hex signature representing the current DB content.",
        "DIGEST-VALUE <key> [<key> ...]",
        "    Output a hex signature of the values of all the specified keys.",
        "ERROR <string>",
        "    Return a Redis protocol error with <string> as message. Useful for clients",
        "    unit tests to simulate Redis errors.",
        "PAUSE-CRON <0|1>",
        "    Stop periodic cron job processing.",
        "REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
        "    Sets the time (in milliseconds) to wait between client reply buffer peak resets.",
        "    In case NEVER is provided the last observed peak will never be reset",
        "    In case RESET is provided the peak reset time will be restored to the default value",
        "REPLYBUFFER RESIZING <0|1>",
        "    Enable or disable the reply buffer resize cron job",
        "OBJECT <key>",
        "    Show low level info about the `key` and associated value.",
        "PANIC",
        "    Crash the server simulating a panic.",
        "POPULATE <count> [<prefix>] [<size>]",
        "    Create <count> string keys named key:<num>. If <prefix> is specified then",
        "    it is used instead of the 'key' prefix. These are not propagated to",
        "    replicas. Cluster slots are not respected so keys not belonging to the",
        "    current node can be created in cluster mode.",
        "PROTOCOL <type>",
        "    Reply with a test value of the specified type. <type> can be: string,",
        "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
        "    true, false.",
        "SET-ACTIVE-EXPIRE <0|1>",
        "    Setting it to 0 disables expiring keys in background when they are not accessed.",
        "QUICKLIST-PACKED-THRESHOLD <size>",
        "    Sets the threshold for elements to be inserted as plain vs packed nodes",
        "    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
        "RELOAD [option ...]",
        "    Save the RDB on disk and reload it back to memory. Available options:",
        "    * MERGE: Merge the content of the RDB with the current data set.",
        "    * NOFLUSH: Do not empty the current data set before loading the RDB.",
        "    * NOSAVE: Do not save the RDB, just load it back.",
        "LOADAOF",
        "    Flush the AOF buffers on disk and reload the AOF in memory.",
        "REPLICATE <string>",
        "    Replicates the provided string to replicas, allowing data divergence.",
        "AOF-FLUSH-SLEEP <microsec>",
        "    Server will sleep before flushing the AOF, this is used for testing.",
        "LOG <message>",
        "    Write <message> to the server log.",
        "SEGFAULT",
        "    Crash the server with sigsegv.",
        "SLEEP <seconds>",
        "    Stop the server for <seconds>. Decimals allowed."
    };

    /**
     * DEBUG ERROR's reply: the text as it is after a '-' (its own error code, or none), newlines
     * made spaces. Written raw as Redis does, so it counts in no error statistics.
     */
    private static byte[] errorLine(byte[] text) {
        byte[] line = new byte[text.length + 3];
        line[0] = '-';
        for (int i = 0; i < text.length; i++) line[i + 1] = text[i] == '\r' || text[i] == '\n' ? (byte) ' ' : text[i];
        line[line.length - 2] = '\r';
        line[line.length - 1] = '\n';
        return line;
    }

    /** DEBUG SLEEP seconds | DEBUG SET-ACTIVE-EXPIRE 0|1 | DEBUG PROTOCOL type | DEBUG OBJECT key | ... */
    void debug(Call c) {
        if (c.argIs(1, "SLEEP") && c.argCount() == 3) {
            double seconds = c.doubleArg(2);
            try {
                // Blocking the keyspace thread is the point: it simulates a slow command.
                Thread.sleep((long) (seconds * 1000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            c.reply().ok();
        } else if (c.argIs(1, "CONFIG-REWRITE-FORCE-ALL") && c.argCount() == 2) {
            String file = c.config().configFile();
            try {
                if (file == null) throw new java.io.FileNotFoundException();
                io.cinnabar.config.ConfigRewriter.rewrite(c.config(), file, c.server().acl().configLines(), true);
            } catch (java.io.IOException e) {
                throw new CommandError("ERR CONFIG-REWRITE-FORCE-ALL failed: "
                        + (file == null ? "No such file or directory" : io.cinnabar.persistence.aof.IoErrors.strerror(e)));
            }
            c.reply().ok();
        } else if (c.argIs(1, "PAUSE-CRON") && c.argCount() == 3) {
            // atoi, as Redis: anything not a number is 0.
            c.server().pauseCron(io.cinnabar.util.Numbers.parseLongOr(c.arg(2), 0) != 0);
            c.reply().ok();
        } else if (c.argIs(1, "REPLYBUFFER") && c.argCount() == 4
                && (c.argIs(2, "PEAK-RESET-TIME") || c.argIs(2, "RESIZING"))) {
            // Accepted as Redis does; replies are written from Netty's pooled buffers, so there is
            // no per-client reply buffer to resize and nothing to tune.
            if (c.argIs(2, "PEAK-RESET-TIME") && !c.argIs(3, "NEVER") && !c.argIs(3, "RESET")) c.longArg(3);
            c.reply().ok();
        } else if (c.argIs(1, "SET-ACTIVE-EXPIRE") && c.argCount() == 3) {
            c.server().activeExpireEnabled(c.longArg(2) != 0);
            c.reply().ok();
        } else if (c.argIs(1, "PROTOCOL") && c.argCount() == 3) {
            protocol(c);
        } else if (c.argIs(1, "OBJECT") && c.argCount() == 3) {
            object(c);
        } else if (c.argIs(1, "DIGEST") && c.argCount() == 2) {
            c.reply().simple(hex(io.cinnabar.keyspace.ValueDigest.dataset(c.keyspace())));
        } else if (c.argIs(1, "DIGEST-VALUE")) {
            digestValue(c);
        } else if (c.argIs(1, "QUICKLIST-PACKED-THRESHOLD") && c.argCount() == 3) {
            // Lists here have no "plain" nodes to tune (a node always takes one element, however
            // large), so the threshold is validated as Redis does and otherwise ignored.
            long sz;
            try {
                sz = io.cinnabar.config.MemoryUnits.parse(c.argString(2));
            } catch (NumberFormatException e) {
                sz = -1;
            }
            if (sz < 0 || sz > (1L << 32) - (1 << 20)) {
                throw new CommandError("ERR argument must be a memory value bigger than 1 and smaller than 4gb");
            }
            c.reply().ok();
        } else if (c.argIs(1, "POPULATE") && c.argCount() >= 3 && c.argCount() <= 5) {
            populate(c);
        } else if (c.argIs(1, "AOF-FLUSH-SLEEP") && c.argCount() == 3) {
            c.server().persistence().aof().flushSleepMicros(c.longArg(2));
            c.reply().ok();
        } else if (c.argIs(1, "ERROR") && c.argCount() == 3) {
            c.reply().raw(errorLine(c.arg(2)));
        } else if (c.argIs(1, "LOG") && c.argCount() == 3) {
            log.warn("DEBUG LOG: {}", c.argString(2));
            c.reply().ok();
        } else if (c.argIs(1, "SET-DISABLE-DENY-SCRIPTS") && c.argCount() == 3) {
            c.server().scriptsMayRunNoscript(io.cinnabar.util.Numbers.parseLongOr(c.arg(2), 0) != 0);
            c.reply().ok();
        } else if (c.argIs(1, "SET-SKIP-CHECKSUM-VALIDATION") && c.argCount() == 3) {
            c.server().skipChecksumValidation(c.longArg(2) != 0);
            c.reply().ok();
        } else if (c.argIs(1, "RELOAD")) {
            reload(c);
        } else if (c.argIs(1, "REPLICATE") && c.argCount() >= 3) {
            // Straight into the replicas' stream, unchecked: what Redis's tests use to make a replica fail.
            io.cinnabar.command.ReplicaLinks replicas = c.server().component(io.cinnabar.command.ReplicaLinks.class, null);
            if (replicas != null) replicas.toReplicasOnly(java.util.Arrays.copyOfRange(c.args(), 2, c.argCount()));
            c.reply().ok();
        } else if (c.argIs(1, "LOADAOF") && c.argCount() == 2) {
            c.preventPropagation();
            c.server().dataSets().loadAof();
            c.reply().ok();
        } else if (c.argIs(1, "SEGFAULT") || c.argIs(1, "PANIC") || c.argIs(1, "ASSERT")) {
            crash(c);
        } else if (c.argIs(1, "HELP") && c.argCount() == 2) {
            HelpReply.reply(c, HELP);
        } else {
            throw new CommandError("ERR unknown subcommand or wrong number of arguments for '"
                    + c.quoted(1) + "'. Try DEBUG HELP.");
        }
    }

    /**
     * DEBUG SEGFAULT | PANIC | ASSERT: the crash Redis's debug.c causes, with its report (the
     * INFO in it read here, on the keyspace thread). crash-log-enabled no leaves out the details,
     * and for SEGFAULT the report too, as Redis's unhandled SIGSEGV does. The process ends (see
     * CrashReport); an embedded server stops without saving instead.
     */
    private static void crash(Call c) {
        boolean details = c.config().getBool(io.cinnabar.config.ConfigOptions.CRASH_LOG_ENABLED);
        String info = details ? new InfoCommand().generate(c.server(), java.util.Set.of(), true) : null;
        if (c.argIs(1, "SEGFAULT")) {
            if (details) CrashReport.signal(CrashReport.SIGSEGV, SEGV_ACCERR, info);
            else CrashReport.die(CrashReport.SIGSEGV);
        } else if (c.argIs(1, "PANIC")) {
            CrashReport.panic("DEBUG PANIC called at Unix time " + c.mstime() / 1000, "debug.c:506", details, info);
        } else {
            CrashReport.assertion("1 == 2", "debug.c:526", details, info);
        }
        c.server().shutdown(false, true, true);
    }

    /** The si_code of Redis's DEBUG SEGFAULT: a write to a read-only page. */
    private static final int SEGV_ACCERR = 2;

    /**
     * DEBUG POPULATE count [prefix] [size]: keys prefix:0.. (default "key") holding "value:N", cut
     * or zero-padded to size; existing keys are left alone. As in Redis this is not a change:
     * neither counted (save points) nor propagated.
     */
    private static void populate(Call c) {
        long count = positive(c, 2);
        long size = c.argCount() == 5 ? positive(c, 4) : 0;
        byte[] prefix = c.argCount() >= 4 ? c.arg(3) : "key".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        io.cinnabar.keyspace.Database db = c.db();
        long dirty = c.keyspace().dirty();
        for (long j = 0; j < count; j++) {
            byte[] n = Long.toString(j).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            byte[] key = java.util.Arrays.copyOf(prefix, prefix.length + 1 + n.length);
            key[prefix.length] = ':';
            System.arraycopy(n, 0, key, prefix.length + 1, n.length);
            if (db.exists(key)) continue;
            byte[] value = ("value:" + j).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            if (size > 0) value = java.util.Arrays.copyOf(value, (int) Math.min(size, Integer.MAX_VALUE - 8));
            db.set(key, value);
        }
        c.keyspace().dirty(dirty - c.keyspace().dirty());
        c.preventPropagation();
        c.reply().ok();
    }

    private static long positive(Call c, int i) {
        long v = c.longArg(i);
        if (v < 0) throw new CommandError("ERR value is out of range, must be positive");
        return v;
    }

    /** DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: save the dump, empty the keyspace, load the dump back. */
    private static void reload(Call c) {
        boolean merge = false, flush = true, save = true;
        for (int j = 2; j < c.argCount(); j++) {
            if (c.argIs(j, "MERGE")) merge = true;
            else if (c.argIs(j, "NOFLUSH")) flush = false;
            else if (c.argIs(j, "NOSAVE")) save = false;
            else throw new CommandError("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
        }
        // The data set comes back as it was: nothing to propagate.
        c.preventPropagation();
        String error = c.server().dataSets().reload(merge, flush, save);
        if (error != null) throw new CommandError(error);
        c.reply().ok();
    }

    /** DEBUG DIGEST-VALUE key [key ...]: 40 hex digits per key, zeros for a missing one. */
    private static void digestValue(Call c) {
        c.reply().array(c.argCount() - 2);
        for (int i = 2; i < c.argCount(); i++) {
            Entry e = c.db().lookup(c.arg(i));
            byte[] d = e == null ? new byte[20] : io.cinnabar.keyspace.ValueDigest.of(e.value(), e.expireAt() >= 0);
            if (d == null) throw new CommandError("ERR DEBUG DIGEST-VALUE does not support this type yet");
            c.reply().simple(hex(d));
        }
    }

    private static String hex(byte[] digest) {
        StringBuilder hex = new StringBuilder(40);
        for (byte b : digest) hex.append(Character.forDigit((b >> 4) & 15, 16)).append(Character.forDigit(b & 15, 16));
        return hex.toString();
    }

    /** DEBUG PROTOCOL type: one sample reply of each RESP type (protocol.tcl reads them). */
    private static void protocol(Call c) {
        Reply r = c.reply();
        switch (c.option(2)) {
            case "STRING" -> r.bulk("Hello World");
            case "INTEGER" -> r.integer(12345);
            case "DOUBLE" -> r.doubleValue(3.141);
            case "BIGNUM" -> r.bigNumber("1234567999999999999999999999999999999");
            case "NULL" -> r.nullBulk();
            case "ARRAY" -> {
                r.array(3);
                for (int j = 0; j < 3; j++) r.integer(j);
            }
            case "SET" -> {
                r.set(3);
                for (int j = 0; j < 3; j++) r.integer(j);
            }
            case "MAP" -> {
                r.map(3);
                for (int j = 0; j < 3; j++) {
                    r.integer(j);
                    r.bool(j == 1);
                }
            }
            case "ATTRIB" -> {
                if (r.protocol() >= 3) {
                    r.attribute(1);
                    r.bulk("key-popularity");
                    r.array(2);
                    r.bulk("key:123");
                    r.integer(90);
                }
                r.bulk("Some real reply following the attribute");
            }
            case "PUSH" -> {
                if (r.protocol() < 3) throw new CommandError("ERR RESP2 is not supported by this command");
                r.push(2);
                r.bulk("server-cpu-usage");
                r.integer(42);
                r.bulk("Some real reply following the push reply");
            }
            case "TRUE" -> r.bool(true);
            case "FALSE" -> r.bool(false);
            case "VERBATIM" -> r.verbatim("txt", "This is a verbatim\nstring".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            default -> throw new CommandError("ERR Wrong protocol type name. Please use one of the following: "
                    + "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false");
        }
    }

    /** DEBUG OBJECT key: Redis's one-line description of the stored object. */
    private static void object(Call c) {
        c.keyspace().touchEnabled(false);
        Entry e = c.db().stored(c.arg(2)); // an expired key is shown, not reclaimed, as Redis's dictFind
        if (e == null) throw new CommandError("ERR no such key");
        Object v = e.value();
        String encoding;
        long serialized;
        if (v instanceof byte[] b) {
            encoding = e.stringEncoding();
            serialized = encoding.equals("int") ? intSerializedLength(b) : lengthPrefix(b.length) + b.length;
        } else {
            encoding = ((TypedValue) v).encoding();
            serialized = 0;
        }
        String text = "Value at:0x" + Long.toHexString(0x7f0000000000L | (System.identityHashCode(v) & 0xffffffffL))
                + " refcount:" + (e.privateCopy() ? 1 : refcount(v, encoding)) + " encoding:" + encoding + " serializedlength:" + serialized
                + " lru:" + (e.lru() & ((1 << 24) - 1)) + " lru_seconds_idle:" + c.keyspace().idleSeconds(e);
        c.reply().simple(text);
    }

    /** Redis shares the integers 0..9999 (OBJ_SHARED_INTEGERS), reporting them as immortal. */
    private static int refcount(Object v, String encoding) {
        if (!encoding.equals("int")) return 1;
        long n = Numbers.parseLongOr((byte[]) v, -1);
        return n >= 0 && n < 10000 ? Integer.MAX_VALUE : 1;
    }

    /** Bytes rdbSaveLongLongAsStringObject writes for an integer-encoded string. */
    private static long intSerializedLength(byte[] b) {
        long v = Numbers.parseLongOr(b, 0);
        if (v >= -(1 << 7) && v <= (1 << 7) - 1) return 2;
        if (v >= -(1 << 15) && v <= (1 << 15) - 1) return 3;
        if (v >= -(1L << 31) && v <= (1L << 31) - 1) return 5;
        return lengthPrefix(b.length) + b.length;
    }

    /** Size of an RDB length prefix. */
    private static long lengthPrefix(long len) {
        if (len < (1 << 6)) return 1;
        if (len < (1 << 14)) return 2;
        return len <= 0xffffffffL ? 5 : 9;
    }
}
