package io.cinnabar.command.server;

import io.cinnabar.command.LatencyMonitor;
import io.cinnabar.command.ServerContext;
import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/** LATENCY DOCTOR's report: Redis's createLatencyReport, its analysis and advice texts word for word. */
final class LatencyDoctor {
    private LatencyDoctor() {}

    /** Redis's latencyStats of one event's samples. */
    private record Stats(int samples, long avg, long mad, long period) { }

    private static Stats analyze(LatencyMonitor.Series s, long now) {
        int samples = 0;
        long sum = 0, oldest = 0;
        for (int j = 0; j < LatencyMonitor.HISTORY; j++) {
            if (s.time(j) == 0) continue;
            samples++;
            sum += s.latency(j);
            if (oldest == 0 || s.time(j) < oldest) oldest = s.time(j);
        }
        if (samples == 0) return new Stats(0, 0, 0, 0);
        long avg = sum / samples;
        long period = now - oldest;
        if (period == 0) period = 1;
        long deviations = 0;
        for (int j = 0; j < LatencyMonitor.HISTORY; j++) {
            if (s.time(j) != 0) deviations += Math.abs(avg - s.latency(j));
        }
        return new Stats(samples, avg, deviations / samples, period);
    }

    static String report(ServerContext server) {
        Config cfg = server.config();
        LatencyMonitor monitor = server.latencyMonitor();
        long threshold = cfg.getLong(ConfigOptions.LATENCY_MONITOR_THRESHOLD);
        StringBuilder report = new StringBuilder();
        if (monitor.events().isEmpty() && threshold == 0) {
            return "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n";
        }
        boolean slowlogEnabled = false, slowlogTuning = false, slowlogInspect = false, diskContention = false,
                scheduler = false, dataWriteback = false, noAppendfsync = false, localDisk = false, ssd = false,
                writeLoadInfo = false, hz = false, largeObjects = false, massEviction = false,
                relaxFsyncPolicy = false, disableThp = false;
        int advices = 0, eventnum = 0;
        for (Map.Entry<String, LatencyMonitor.Series> e : monitor.events().entrySet()) {
            String event = e.getKey();
            LatencyMonitor.Series ts = e.getValue();
            if (++eventnum == 1) {
                report.append("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n");
            }
            Stats ls = analyze(ts, monitor.nowSeconds());
            report.append(String.format(Locale.ROOT,
                    "%d. %s: %d latency spikes (average %dms, mean deviation %dms, period %.2f sec). Worst all time event %dms.",
                    eventnum, event, ls.samples, ls.avg, ls.mad, (double) ls.period / ls.samples, ts.max()));
            // No "fork" event: snapshots are taken without fork().
            switch (event.toLowerCase(Locale.ROOT)) {
                case "command" -> {
                    long slower = cfg.getLong(ConfigOptions.SLOWLOG_LOG_SLOWER_THAN);
                    if (slower < 0) {
                        slowlogEnabled = true;
                        advices++;
                    } else if (slower / 1000 > threshold) {
                        slowlogTuning = true;
                        advices++;
                    }
                    slowlogInspect = largeObjects = true;
                    advices += 2;
                }
                case "fast-command" -> {
                    scheduler = true;
                    advices++;
                }
                case "aof-write-pending-fsync" -> {
                    localDisk = diskContention = ssd = dataWriteback = true;
                    advices += 4;
                }
                case "aof-write-active-child" -> {
                    noAppendfsync = dataWriteback = ssd = true;
                    advices += 3;
                }
                case "aof-write-alone" -> {
                    localDisk = dataWriteback = ssd = true;
                    advices += 3;
                }
                case "aof-fsync-always" -> {
                    relaxFsyncPolicy = true;
                    advices++;
                }
                case "aof-fstat", "rdb-unlink-temp-file" -> {
                    diskContention = localDisk = true;
                    advices += 2;
                }
                case "aof-rewrite-diff-write", "aof-rename" -> {
                    writeLoadInfo = dataWriteback = ssd = localDisk = true;
                    advices += 4;
                }
                case "expire-cycle" -> {
                    hz = largeObjects = true;
                    advices += 2;
                }
                case "eviction-del" -> {
                    largeObjects = true;
                    advices++;
                }
                case "eviction-cycle" -> {
                    massEviction = true;
                    advices++;
                }
                default -> { }
            }
            report.append('\n');
        }
        if (anonHugePages() > 0) {
            disableThp = true;
            advices++;
        }
        if (eventnum == 0 && advices == 0) {
            report.append("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n");
            return report.toString();
        }
        if (eventnum > 0 && advices == 0) {
            report.append("\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n");
            return report.toString();
        }
        report.append("\nI have a few advices for you:\n\n");
        if (slowlogEnabled) {
            report.append("- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than ")
                    .append(threshold * 1000).append("'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n");
        }
        if (slowlogTuning) {
            report.append("- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than ")
                    .append(threshold * 1000).append("'.\n");
        }
        if (slowlogInspect) {
            report.append("- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n");
        }
        if (scheduler) {
            report.append("- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n"
                    + "  1) Lower the system load.\n"
                    + "  2) Use a computer / VM just for Redis if you are running other software in the same system.\n"
                    + "  3) Check if you have a \"noisy neighbour\" problem.\n"
                    + "  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n"
                    + "  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n");
        }
        if (localDisk) {
            report.append("- It is strongly advised to use local disks for persistence, especially if you are using AOF. Remote disks provided by platform-as-a-service providers are known to be slow.\n");
        }
        if (ssd) {
            report.append("- SSD disks are able to reduce fsync latency, and total time needed for snapshotting and AOF log rewriting (resulting in smaller memory usage). With extremely high write load SSD disks can be a good option. However Redis should perform reasonably with high load using normal disks. Use this advice as a last resort.\n");
        }
        if (dataWriteback) {
            report.append("- Mounting ext3/4 filesystems with data=writeback can provide a performance boost compared to data=ordered, however this mode of operation provides less guarantees, and sometimes it can happen that after a hard crash the AOF file will have a half-written command at the end and will require to be repaired before Redis restarts.\n");
        }
        if (diskContention) {
            report.append("- Try to lower the disk contention. This is often caused by other disk intensive processes running in the same computer (including other Redis instances).\n");
        }
        if (noAppendfsync) {
            report.append("- Assuming from the point of view of data safety this is viable in your environment, you could try to enable the 'no-appendfsync-on-rewrite' option, so that fsync will not be performed while there is a child rewriting the AOF file or producing an RDB file (the moment where there is high disk contention).\n");
        }
        if (relaxFsyncPolicy && "always".equals(cfg.print(ConfigOptions.APPENDFSYNC))) {
            report.append("- Your fsync policy is set to 'always'. It is very hard to get good performances with such a setup, if possible try to relax the fsync policy to 'onesec'.\n");
        }
        if (writeLoadInfo) {
            report.append("- Latency during the AOF atomic rename operation or when the final difference is flushed to the AOF file at the end of the rewrite, sometimes is caused by very high write load, causing the AOF buffer to get very large. If possible try to send less commands to accomplish the same work, or use Lua scripts to group multiple operations into a single EVALSHA call.\n");
        }
        if (hz && cfg.getLong(ConfigOptions.HZ) < 100) {
            report.append("- In order to make the Redis keys expiring process more incremental, try to set the 'hz' configuration parameter to 100 using 'CONFIG SET hz 100'.\n");
        }
        if (largeObjects) {
            report.append("- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n");
        }
        if (massEviction) {
            report.append("- Sudden changes to the 'maxmemory' setting via 'CONFIG SET', or allocation of large objects via sets or sorted sets intersections, STORE option of SORT, Redis Cluster large keys migrations (RESTORE command), may create sudden memory pressure forcing the server to block trying to evict keys. \n");
        }
        if (disableThp) {
            report.append("- I detected a non zero amount of anonymous huge pages used by your process. This creates very serious latency events in different conditions, especially when Redis is persisting on disk. To disable THP support use the command 'echo never > /sys/kernel/mm/transparent_hugepage/enabled', make sure to also add it into /etc/rc.local so that the command will be executed again after a reboot. Note that even if you have already disabled THP, you still need to restart the Redis process to get rid of the huge pages already created.\n");
        }
        return report.toString();
    }

    /** Redis's THPGetAnonHugePagesSize, in kB (0 where /proc does not say). */
    private static long anonHugePages() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/smaps_rollup"))) {
                if (line.startsWith("AnonHugePages:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        } catch (Exception e) {
            // Not Linux, or an older kernel: nothing to advise.
        }
        return 0;
    }
}
