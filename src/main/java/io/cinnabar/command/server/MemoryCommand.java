package io.cinnabar.command.server;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.HelpReply;
import io.cinnabar.command.server.HeapReturn;
import io.cinnabar.keyspace.Entry;

import java.nio.charset.StandardCharsets;

import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.RO;
import static io.cinnabar.command.KeySpec.at;

/** MEMORY USAGE, STATS, DOCTOR, MALLOC-STATS, PURGE and HELP. */
public final class MemoryCommand implements CommandFamily {
    private static final String[] ALL_SHARDS = {"nondeterministic_output", "request_policy:all_shards", "response_policy:special"};

    @Override
    public String group() {
        return "server";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("MEMORY", -2).doc("4.0.0", "A container for memory diagnostics commands", "Depends on subcommand.")
                .sub(spec("USAGE", -3, READONLY).keys(at(2, RO))
                        .doc("4.0.0", "Estimate the memory usage of a key", "O(N) where N is the number of samples."), this::usage)
                .sub(spec("STATS", 2).tips(ALL_SHARDS).doc("4.0.0", "Show memory usage details", "O(1)"), this::stats)
                .sub(spec("DOCTOR", 2).tips(ALL_SHARDS).doc("4.0.0", "Outputs memory problems report", "O(1)"), this::doctor)
                .sub(spec("MALLOC-STATS", 2).tips(ALL_SHARDS).doc("4.0.0", "Show allocator internal stats",
                        "Depends on how much memory is allocated, could be slow"),
                        // The JVM's heap is the allocator: no jemalloc report to give.
                        c -> c.reply().bulk("Stats not supported for the current allocator".getBytes(StandardCharsets.US_ASCII)))
                .sub(spec("PURGE", 2).tips("request_policy:all_shards", "response_policy:all_succeeded")
                        .doc("4.0.0", "Ask the allocator to release memory", "Depends on how much memory is allocated, could be slow"),
                        this::purge)
                .sub(spec("HELP", 2, LOADING, STALE).doc("4.0.0", "Show helpful text about the different subcommands", "O(1)"),
                        c -> HelpReply.reply(c,
                                "DOCTOR",
                                "    Return memory problems reports.",
                                "MALLOC-STATS",
                                "    Return internal statistics report from the memory allocator.",
                                "PURGE",
                                "    Attempt to purge dirty pages for reclamation by the allocator.",
                                "STATS",
                                "    Return information about the memory usage of the server.",
                                "USAGE <key> [SAMPLES <count>]",
                                "    Return memory in bytes used by <key> and its value. Nested values are",
                                "    sampled up to <count> times (default: 5, 0 means sample all).")), null);
    }

    /** MEMORY USAGE key [SAMPLES count] */
    private void usage(Call c) {
        for (int i = 3; i < c.argCount(); i += 2) {
            if (c.argIs(i, "SAMPLES") && i + 1 < c.argCount()) {
                if (c.longArg(i + 1) < 0) throw CommandError.syntax();
            } else {
                throw CommandError.syntax();
            }
        }
        // Redis's dictFind: a key past its TTL that nothing has reclaimed yet is measured all the same.
        Entry e = c.db().stored(c.arg(2));
        if (e == null) {
            c.reply().nullBulk();
            return;
        }
        // The same O(1) estimate the running total behind used_memory adds up.
        c.reply().integer(e.memory());
    }

    /** MEMORY STATS: Redis 7.0's fields, in its order. */
    private void stats(Call c) {
        MemoryFigures m = MemoryFigures.of(c.server());
        int dbs = 0;
        for (long t : m.dbTableBytes()) if (t > 0) dbs++;
        var r = c.reply();
        r.map(27 + dbs);
        field(c, "peak.allocated", m.peak());
        field(c, "total.allocated", m.used());
        field(c, "startup.allocated", m.startup());
        field(c, "replication.backlog", m.replicationBacklog());
        field(c, "clients.slaves", m.replicaClients());
        field(c, "clients.normal", m.clients());
        field(c, "cluster.links", 0);
        field(c, "aof.buffer", 0);
        field(c, "lua.caches", m.scripts());
        field(c, "functions.caches", 0);
        for (int i = 0; i < m.dbTableBytes().length; i++) {
            if (m.dbTableBytes()[i] == 0) continue;
            r.bulk(("db." + i).getBytes(StandardCharsets.US_ASCII));
            r.map(3);
            field(c, "overhead.hashtable.main", m.dbTableBytes()[i]);
            field(c, "overhead.hashtable.expires", 0);
            field(c, "overhead.hashtable.slot-to-keys", 0);
        }
        field(c, "overhead.total", m.overhead());
        field(c, "keys.count", m.keys());
        field(c, "keys.bytes-per-key", m.bytesPerKey());
        field(c, "dataset.bytes", m.dataset());
        field(c, "dataset.percentage", m.datasetPercentage());
        field(c, "peak.percentage", m.peakPercentage());
        field(c, "allocator.allocated", m.heapUsed());
        field(c, "allocator.active", m.heapCommitted());
        field(c, "allocator.resident", m.rss());
        field(c, "allocator-fragmentation.ratio", MemoryFigures.ratio(m.heapCommitted(), m.heapUsed()));
        field(c, "allocator-fragmentation.bytes", m.heapCommitted() - m.heapUsed());
        field(c, "allocator-rss.ratio", MemoryFigures.ratio(m.rss(), m.heapCommitted()));
        field(c, "allocator-rss.bytes", m.rss() - m.heapCommitted());
        field(c, "rss-overhead.ratio", 1.0);
        field(c, "rss-overhead.bytes", 0);
        field(c, "fragmentation", MemoryFigures.ratio(m.rss(), m.used()));
        field(c, "fragmentation.bytes", m.rss() - m.used());
    }

    private static void field(Call c, String name, long value) {
        c.reply().bulk(name.getBytes(StandardCharsets.US_ASCII));
        c.reply().integer(value);
    }

    private static void field(Call c, String name, double value) {
        c.reply().bulk(name.getBytes(StandardCharsets.US_ASCII));
        c.reply().doubleValue(value);
    }

    /** MEMORY DOCTOR: Redis's report, its thresholds applied to the figures this server has. */
    private void doctor(Call c) {
        MemoryFigures m = MemoryFigures.of(c.server());
        String report;
        if (m.used() < 5L << 20) {
            report = "Hi Sam, this instance is empty or is using very little memory, "
                    + "my issues detector can't be used in these conditions. "
                    + "Please, leave for your mission on Earth and fill it with some data. "
                    + "The new Sam and I will be back to our programming as soon as I "
                    + "finished rebooting.\n";
        } else {
            StringBuilder s = new StringBuilder();
            if ((double) m.peak() / m.used() > 1.5) {
                s.append(" * Peak memory: In the past this instance used more than 150% the memory that is currently using. The allocator is normally not able to release memory after a peak, so you can expect to see a big fragmentation ratio, however this is actually harmless and is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) is currently bigger than expected, the memory will be used as soon as you fill the Redis instance with more data. If the memory peak was only occasional and you want to try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other option is to shutdown and restart the instance.\n\n");
            }
            if (MemoryFigures.ratio(m.rss(), m.used()) > 1.4 && m.rss() - m.used() > 10 << 20) {
                s.append(" * High total RSS: This instance has a memory fragmentation and RSS overhead greater than 1.4 (this means that the Resident Set Size of the Redis process is much larger than the sum of the logical allocations Redis performed). This problem is usually due either to a large peak memory (check if there is a peak memory entry above in the report) or may result from a workload that causes the allocator to fragment memory a lot. If the problem is a large peak memory, then there is no issue. Otherwise, make sure you are using the Jemalloc allocator and not the default libc malloc. Note: The currently used allocator is \"jvm\".\n\n");
            }
            if (MemoryFigures.ratio(m.heapCommitted(), m.heapUsed()) > 1.1 && m.heapCommitted() - m.heapUsed() > 10 << 20) {
                s.append(" * High allocator fragmentation: This instance has an allocator external fragmentation greater than 1.1. This problem is usually due either to a large peak memory (check if there is a peak memory entry above in the report) or may result from a workload that causes the allocator to fragment memory a lot. You can try enabling 'activedefrag' config option.\n\n");
            }
            if (MemoryFigures.ratio(m.rss(), m.heapCommitted()) > 1.1 && m.rss() - m.heapCommitted() > 10 << 20) {
                s.append(" * High allocator RSS overhead: This instance has an RSS memory overhead is greater than 1.1 (this means that the Resident Set Size of the allocator is much larger than the sum what the allocator actually holds). This problem is usually due to a large peak memory (check if there is a peak memory entry above in the report), you can try the MEMORY PURGE command to reclaim it.\n\n");
            }
            var engine = c.server().component(io.cinnabar.command.scripting.ScriptEngine.class, null);
            if (engine != null && engine.memory().cachedScripts() > 1000) {
                s.append(" * Many scripts: There seem to be many cached scripts in this instance (more than 1000). This may be because scripts are generated and `EVAL`ed, instead of being parameterized (with KEYS and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. Unless `SCRIPT FLUSH` is called periodically, the scripts' caches may end up consuming most of your memory.\n\n");
            }
            report = s.isEmpty()
                    ? "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n"
                    : "Sam, I detected a few issues in this Redis instance memory implants:\n\n" + s
                            + "I'm here to keep you safe, Sam. I want to help you.\n";
        }
        c.reply().verbatim("txt", report.getBytes(StandardCharsets.US_ASCII));
    }

    /** MEMORY PURGE: the heap's garbage goes back in a concurrent collection, as jemalloc's dirty pages. */
    private void purge(Call c) {
        HeapReturn.collectSoon();
        c.reply().ok();
    }
}
