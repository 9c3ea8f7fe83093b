package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.HelpReply;
import io.cinnabar.command.CommandError;
import io.cinnabar.keyspace.Entry;
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

    /**
     * Redis 7.0's DEBUG HELP word for word, as a Redis built without jemalloc prints it (no
     * MALLCTL). Named but answered as unknown here: CRASH-AND-RECOVER and RESTART (a JVM does not
     * exec itself in place), SDSLEN and STRUCTSIZE (C layouts), CLIENT-EVICTION, and the cluster
     * bus's DROP-CLUSTER-PACKET-FILTER and CLUSTERLINK.
     */
    private static final String[] HELP = {
        "AOF-FLUSH-SLEEP <microsec>",
        "    Server will sleep before flushing the AOF, this is used for testing.",
        "ASSERT",
        "    Crash by assertion failed.",
        "CHANGE-REPL-ID",
        "    Change the replication IDs of the instance.",
        "    Dangerous: should be used only for testing the replication subsystem.",
        "CONFIG-REWRITE-FORCE-ALL",
        "    Like CONFIG REWRITE but writes all configuration options, including",
        "    keywords not listed in original configuration file or default values.",
        "CRASH-AND-RECOVER [<milliseconds>]",
        "    Hard crash and restart after a <milliseconds> delay (default 0).",
        "DIGEST",
        "    Output a hex signature representing the current DB content.",
        "DIGEST-VALUE <key> [<key> ...]",
        "    Output a hex signature of the values of all the specified keys.",
        "ERROR <string>",
        "    Return a Redis protocol error with <string> as message. Useful for clients",
        "    unit tests to simulate Redis errors.",
        "LEAK <string>",
        "    Create a memory leak of the input string.",
        "LOG <message>",
        "    Write <message> to the server log.",
        "HTSTATS <dbid>",
        "    Return hash table statistics of the specified Redis database.",
        "HTSTATS-KEY <key>",
        "    Like HTSTATS but for the hash table stored at <key>'s value.",
        "LOADAOF",
        "    Flush the AOF buffers on disk and reload the AOF in memory.",
        "REPLICATE <string>",
        "    Replicates the provided string to replicas, allowing data divergence.",
        "OBJECT <key>",
        "    Show low level info about `key` and associated value.",
        "DROP-CLUSTER-PACKET-FILTER <packet-type>",
        "    Drop all packets that match the filtered type. Set to -1 allow all packets.",
        "OOM",
        "    Crash the server simulating an out-of-memory error.",
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
        "RELOAD [option ...]",
        "    Save the RDB on disk and reload it back to memory. Valid <option> values:",
        "    * MERGE: conflicting keys will be loaded from RDB.",
        "    * NOFLUSH: the existing database will not be removed before load, but",
        "      conflicting keys will generate an exception and kill the server.",
        "    * NOSAVE: the database will be loaded from an existing RDB file.",
        "    Examples:",
        "    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
        "      the database.",
        "    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
        "      existing RDB file.",
        "    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
        "      file to the database.",
        "RESTART [<milliseconds>]",
        "    Graceful restart: save config, db, restart after a <milliseconds> delay (default 0).",
        "SDSLEN <key>",
        "    Show low level SDS string info representing `key` and value.",
        "SEGFAULT",
        "    Crash the server with sigsegv.",
        "SET-ACTIVE-EXPIRE <0|1>",
        "    Setting it to 0 disables expiring keys in background when they are not",
        "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
        "    default.",
        "QUICKLIST-PACKED-THRESHOLD <size>",
        "    Sets the threshold for elements to be inserted as plain vs packed nodes",
        "    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
        "SET-SKIP-CHECKSUM-VALIDATION <0|1>",
        "    Enables or disables checksum checks for RDB files and RESTORE's payload.",
        "SLEEP <seconds>",
        "    Stop the server for <seconds>. Decimals allowed.",
        "STRINGMATCH-TEST",
        "    Run a fuzz tester against the stringmatchlen() function.",
        "STRUCTSIZE",
        "    Return the size of different Redis core C structures.",
        "LISTPACK <key>",
        "    Show low level info about the listpack encoding of <key>.",
        "QUICKLIST <key> [<0|1>]",
        "    Show low level info about the quicklist encoding of <key>.",
        "    The optional argument (0 by default) sets the level of detail",
        "CLIENT-EVICTION",
        "    Show low level client eviction pools info (maxmemory-clients).",
        "PAUSE-CRON <0|1>",
        "    Stop periodic cron job processing.",
        "REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
        "    Sets the time (in milliseconds) to wait between client reply buffer peak resets.",
        "    In case NEVER is provided the last observed peak will never be reset",
        "    In case RESET is provided the peak reset time will be restored to the default value",
        "REPLYBUFFER RESIZING <0|1>",
        "    Enable or disable the reply buffer resize cron job",
        "CLUSTERLINK KILL <to|from|all> <node-id>",
        "    Kills the link based on the direction to/from (both) with the provided node."
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
                // Without a file Redis opens a NULL path: EFAULT.
                throw new CommandError("ERR CONFIG-REWRITE-FORCE-ALL failed: "
                        + (file == null ? "Bad address" : io.cinnabar.persistence.aof.IoErrors.strerror(e)));
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
            DebugValues.object(c);
        } else if (c.argIs(1, "HTSTATS") && c.argCount() == 3) {
            DebugValues.htstats(c);
        } else if (c.argIs(1, "HTSTATS-KEY") && c.argCount() == 3) {
            DebugValues.htstatsKey(c);
        } else if (c.argIs(1, "LISTPACK") && c.argCount() == 3) {
            DebugValues.listpack(c);
        } else if (c.argIs(1, "QUICKLIST") && (c.argCount() == 3 || c.argCount() == 4)) {
            DebugValues.quicklist(c);
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
        } else if (c.argIs(1, "LEAK") && c.argCount() == 3) {
            // Redis leaks a copy of the string to test its leak checkers; a collected heap has none to find.
            c.reply().ok();
        } else if (c.argIs(1, "CHANGE-REPL-ID") && c.argCount() == 2) {
            log.warn("Changing replication IDs after receiving DEBUG change-repl-id");
            c.server().history().changeIds();
            c.reply().ok();
        } else if (c.argIs(1, "STRINGMATCH-TEST") && c.argCount() == 2) {
            StringMatchFuzz.run();
            c.reply().simple("Apparently Redis did not crash: test passed");
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
        } else if (c.argIs(1, "SEGFAULT") || c.argIs(1, "PANIC") || c.argIs(1, "ASSERT") || c.argIs(1, "OOM")) {
            crash(c);
        } else if (c.argIs(1, "HELP") && c.argCount() == 2) {
            HelpReply.reply(c, HELP);
        } else {
            throw new CommandError("ERR unknown subcommand or wrong number of arguments for '"
                    + c.quoted(1) + "'. Try DEBUG HELP.");
        }
    }

    /**
     * DEBUG SEGFAULT | PANIC | ASSERT | OOM: the crash Redis's debug.c causes, with its report (the
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
        } else if (c.argIs(1, "OOM")) {
            // Redis asks its allocator for SIZE_MAX/2 bytes; the refusal ends in its out-of-memory handler.
            log.warn("Out Of Memory allocating {} bytes!", Long.MAX_VALUE);
            CrashReport.panic("Redis aborting for OUT OF MEMORY. Allocating " + Long.MAX_VALUE + " bytes!", "server.c:6658",
                    details, info);
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
}
