package io.cinnabar.command.server;

import io.cinnabar.Version;
import io.cinnabar.command.Call;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandSpec;
import io.cinnabar.command.CommandStats;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.GoodReplicas;
import io.cinnabar.command.MasterLink;
import io.cinnabar.command.ServerContext;
import io.cinnabar.command.ServerStats;
import io.cinnabar.persistence.AppendOnly;
import io.cinnabar.persistence.Loading;
import io.cinnabar.persistence.Persistence;
import io.cinnabar.persistence.RdbSaves;
import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Keyspace;
import io.cinnabar.keyspace.KeyspaceStats;
import io.cinnabar.util.DoubleFormat;
import io.cinnabar.util.Numbers;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import static io.cinnabar.command.CommandFlag.LOADING;
import static io.cinnabar.command.CommandFlag.STALE;
import static io.cinnabar.command.CommandSpec.spec;

/** INFO [section ...]: Redis 7.0's sections, field names and section selection rules. */
public final class InfoCommand implements CommandFamily {
    /** What INFO and INFO default print (Redis's default_sections; module_list prints "# Modules"). */
    private static final String[] DEFAULT_SECTIONS = {
        "server", "clients", "memory", "persistence", "stats", "replication", "cpu", "module_list",
        "errorstats", "cluster", "keyspace"};
    private static final Set<String> DEFAULT_SECTION_SET = Set.of(DEFAULT_SECTIONS);
    private static final ThreadLocal<Section> SECTIONS = ThreadLocal.withInitial(Section::new);

    /** Writes counted (from commandstats) at the last save, for rdb_changes_since_last_save. */

    @Override
    public String group() {
        return "server";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("INFO", -1, LOADING, STALE).doc("1.0.0", "Get information and statistics about the server", "O(1)")
                .history("7.0.0", "Added support for taking multiple section arguments.")
                .acl("@dangerous").tips("nondeterministic_output", "request_policy:all_shards", "response_policy:special"),
                this::info);
    }

    /** INFO [section [section ...]] */
    private void info(Call c) {
        Set<String> sections = DEFAULT_SECTION_SET;
        boolean all = false;
        if (c.argCount() > 1) {
            sections = new HashSet<>();
            for (int i = 1; i < c.argCount(); i++) {
                String s = c.argString(i).toLowerCase(Locale.ROOT);
                switch (s) {
                    case "default" -> sections.addAll(DEFAULT_SECTION_SET);
                    case "all", "everything" -> all = true;
                    default -> sections.add(s);
                }
            }
        }
        Section text = SECTIONS.get();
        fill(text, c.server(), sections, all);
        c.reply().verbatim("txt", text.bytes, 0, text.length);
    }

    /** The INFO text for the chosen sections; all = every section. */
    String generate(ServerContext server, Set<String> sections, boolean all) {
        Section text = new Section();
        fill(text, server, sections, all);
        return new String(text.bytes, 0, text.length, StandardCharsets.UTF_8);
    }

    private void fill(Section s, ServerContext server, Set<String> sections, boolean all) {
        s.clear();
        if (s.begin(all, sections, "Server", "server")) server(s, server);
        if (s.begin(all, sections, "Clients", "clients")) clients(s, server);
        if (s.begin(all, sections, "Memory", "memory")) memory(s, server);
        if (s.begin(all, sections, "Persistence", "persistence")) persistence(s, server);
        if (s.begin(all, sections, "Stats", "stats")) stats(s, server);
        if (s.begin(all, sections, "Replication", "replication")) replication(s, server);
        if (s.begin(all, sections, "CPU", "cpu")) cpu(s);
        s.begin(all || sections.contains("modules"), sections, "Modules", "module_list");
        if (s.begin(all, sections, "Commandstats", "commandstats")) commandStats(s, server);
        if (s.begin(all, sections, "Errorstats", "errorstats")) errorStats(s, server.stats());
        if (s.begin(all, sections, "Latencystats", "latencystats")) latencyStats(s, server);
        if (s.begin(all, sections, "Cluster", "cluster")) s.field("cluster_enabled", server.cluster() != null ? 1 : 0);
        if (s.begin(all, sections, "Keyspace", "keyspace")) keyspace(s, server.keyspace());
    }

    private static void server(Section s, ServerContext server) {
        Config cfg = server.config();
        long now = System.currentTimeMillis();
        long uptime = (now - server.startTimeMs()) / 1000;
        // The server's clock (a test may drive it): the time commands and OBJECT IDLETIME see.
        long clock = server.keyspace().mstime();
        s.field("redis_version", Version.REDIS_VERSION);
        s.field("redis_git_sha1", "00000000");
        s.field("redis_git_dirty", 0);
        s.field("redis_build_id", "0");
        s.field("redis_mode", server.cluster() != null ? "cluster" : "standalone");
        s.field("cinnabar_version", Version.CINNABAR_VERSION);
        s.field("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        s.field("arch_bits", 64);
        s.field("monotonic_clock", "POSIX clock_gettime");
        s.field("multiplexing_api", "netty");
        s.field("atomicvar_api", "java");
        s.field("gcc_version", "0.0.0");
        s.field("java_version", System.getProperty("java.version"));
        s.field("process_id", ProcessHandle.current().pid());
        s.field("process_supervised", "no");
        s.field("run_id", server.runId());
        s.field("tcp_port", server.port());
        s.field("server_time_usec", clock * 1000);
        s.field("uptime_in_seconds", uptime);
        s.field("uptime_in_days", uptime / 86400);
        s.field("hz", cfg.getLong(ConfigOptions.HZ));
        s.field("configured_hz", cfg.getLong(ConfigOptions.HZ));
        s.field("lru_clock", (clock / 1000) & ((1 << 24) - 1));
        s.field("executable", ProcessFacts.EXECUTABLE);
        s.field("config_file", cfg.configFile() == null ? "" : Path.of(cfg.configFile()).toAbsolutePath().toString());
        s.field("io_threads_active", 0);
        long shutdownIn = server.shutdownInMs();
        if (shutdownIn >= 0) s.field("shutdown_in_milliseconds", shutdownIn);
    }

    private static void clients(Section s, ServerContext server) {
        // Replicas are not counted, as Redis's listLength(server.clients) - listLength(server.slaves).
        int replicas = 0;
        for (io.cinnabar.command.Client c : server.clients()) if (c.isReplica()) replicas++;
        s.field("connected_clients", server.clients().size() - replicas);
        s.field("cluster_connections", 0);
        s.field("maxclients", server.config().getLong(ConfigOptions.MAXCLIENTS));
        s.field("client_recent_max_input_buffer", 0);
        s.field("client_recent_max_output_buffer", 0);
        s.field("blocked_clients", server.blockedClients());
        s.field("tracking_clients", server.tracking().clients());
        s.field("clients_in_timeout_table", 0);
    }

    private void memory(Section s, ServerContext server) {
        MemoryFigures m = MemoryFigures.of(server);
        long used = m.used();
        long rss = m.rss();
        long systemMemory = ProcessFacts.TOTAL_SYSTEM_MEMORY;
        long maxmemory = server.config().getLong(ConfigOptions.MAXMEMORY);
        s.field("used_memory", used);
        s.field("used_memory_human", human(used));
        s.field("used_memory_rss", rss);
        s.field("used_memory_rss_human", human(rss));
        s.field("used_memory_peak", m.peak());
        s.field("used_memory_peak_human", human(m.peak()));
        s.field("used_memory_peak_perc", fixed2(m.peakPercentage()) + "%");
        s.field("used_memory_overhead", m.overhead());
        s.field("used_memory_startup", m.startup());
        s.field("used_memory_dataset", m.dataset());
        s.field("used_memory_dataset_perc", fixed2(m.datasetPercentage()) + "%");
        // The JVM's heap plays jemalloc's part: in use, committed, and resident with the rest of the process.
        long committed = m.heapCommitted();
        long heapUsed = m.heapUsed();
        s.field("allocator_allocated", heapUsed);
        s.field("allocator_active", committed);
        s.field("allocator_resident", rss);
        s.field("total_system_memory", systemMemory);
        s.field("total_system_memory_human", human(systemMemory));
        var engine = server.component(io.cinnabar.command.scripting.ScriptEngine.class, null);
        var scripts = engine == null ? io.cinnabar.command.scripting.ScriptMemory.NONE : engine.memory();
        // Scripts run on the JVM's heap: there is no separate Lua VM to measure.
        s.field("used_memory_lua", 0);
        s.field("used_memory_vm_eval", 0);
        s.field("used_memory_lua_human", "0B");
        s.field("used_memory_scripts_eval", scripts.scriptsEvalBytes());
        s.field("number_of_cached_scripts", scripts.cachedScripts());
        s.field("number_of_functions", scripts.functions());
        s.field("number_of_libraries", scripts.libraries());
        s.field("used_memory_vm_functions", 0);
        s.field("used_memory_vm_total", 0);
        s.field("used_memory_vm_total_human", "0B");
        s.field("used_memory_functions", scripts.functionsBytes());
        long scriptBytes = scripts.scriptsEvalBytes() + scripts.functionsBytes();
        s.field("used_memory_scripts", scriptBytes);
        s.field("used_memory_scripts_human", human(scriptBytes));
        s.field("maxmemory", maxmemory);
        s.field("maxmemory_human", human(maxmemory));
        s.field("maxmemory_policy", server.config().print(ConfigOptions.MAXMEMORY_POLICY));
        s.field("allocator_frag_ratio", ratio(committed, heapUsed));
        s.field("allocator_frag_bytes", committed - heapUsed);
        s.field("allocator_rss_ratio", ratio(rss, committed));
        s.field("allocator_rss_bytes", rss - committed);
        s.field("rss_overhead_ratio", "1.00");
        s.field("rss_overhead_bytes", 0);
        s.field("mem_fragmentation_ratio", ratio(rss, used));
        s.field("mem_fragmentation_bytes", rss - used);
        s.field("mem_not_counted_for_evict", server.memoryLimit().notCountedForEvict());
        s.field("mem_replication_backlog", m.replicationBacklog());
        s.field("mem_total_replication_buffers", server.memoryLimit().replicationBytes());
        s.field("mem_clients_slaves", m.replicaClients());
        s.field("mem_clients_normal", m.clients());
        s.field("mem_cluster_links", 0);
        s.field("mem_aof_buffer", 0);
        s.field("mem_allocator", "jvm");
        s.field("active_defrag_running", 0);
        s.field("lazyfree_pending_objects", server.keyspace().lazyFree().pendingObjects());
        s.field("lazyfreed_objects", server.keyspace().lazyFree().freedObjects());
    }

    private static String ratio(long a, long b) {
        return fixed2(b == 0 ? 0.0 : (double) a / b);
    }

    private void persistence(Section s, ServerContext server) {
        Persistence p = server.persistence();
        RdbSaves rdb = p.rdb();
        AppendOnly aof = p.aof();
        Loading loading = p.loading();
        MasterLink link = server.masterLink();
        s.field("loading", loading.inProgress() || link.loadingPayload() ? 1 : 0);
        s.field("async_loading", link.asyncLoadingPayload() ? 1 : 0);
        // Without fork() the copy-on-write figures count what the running snapshot holds because
        // writes changed keys before its walk reached them.
        long cow = rdb.currentCopiedBytes() + aof.currentCopiedBytes();
        long keysTotal = rdb.keysInCurrentSave() + aof.keysInCurrentRewrite();
        long processed = rdb.keysSavedSoFar() + aof.keysRewrittenSoFar();
        s.field("current_cow_peak", cow);
        s.field("current_cow_size", cow);
        s.field("current_cow_size_age", 0);
        s.field("current_fork_perc", fixed2(keysTotal == 0 ? 0.0 : processed * 100.0 / keysTotal));
        s.field("current_save_keys_processed", processed);
        s.field("current_save_keys_total", keysTotal);
        s.field("rdb_changes_since_last_save", rdb.changesSinceLastSave());
        s.field("rdb_bgsave_in_progress", rdb.bgsaveInProgress() ? 1 : 0);
        s.field("rdb_last_save_time", rdb.lastSaveSeconds());
        s.field("rdb_last_bgsave_status", rdb.lastBgsaveOk() ? "ok" : "err");
        s.field("rdb_last_bgsave_time_sec", rdb.lastBgsaveSeconds());
        s.field("rdb_current_bgsave_time_sec", rdb.currentBgsaveSeconds());
        s.field("rdb_saves", rdb.saves());
        s.field("rdb_last_cow_size", rdb.lastCopiedBytes());
        s.field("rdb_last_load_keys_expired", rdb.lastLoadKeysExpired());
        s.field("rdb_last_load_keys_loaded", rdb.lastLoadKeysLoaded());
        s.field("aof_enabled", aof.enabled() ? 1 : 0);
        s.field("aof_rewrite_in_progress", aof.rewriteInProgress() ? 1 : 0);
        s.field("aof_rewrite_scheduled", aof.rewriteScheduled() ? 1 : 0);
        s.field("aof_last_rewrite_time_sec", aof.lastRewriteSeconds());
        s.field("aof_current_rewrite_time_sec", aof.currentRewriteSeconds());
        s.field("aof_last_bgrewrite_status", aof.lastRewriteOk() ? "ok" : "err");
        s.field("aof_rewrites", aof.rewrites());
        s.field("aof_rewrites_consecutive_failures", aof.consecutiveFailures());
        s.field("aof_last_write_status", aof.lastWriteOk() ? "ok" : "err");
        s.field("aof_last_cow_size", aof.lastCopiedBytes());
        s.field("module_fork_in_progress", 0);
        s.field("module_fork_last_cow_size", 0);
        if (aof.enabled()) {
            s.field("aof_current_size", aof.currentSize());
            s.field("aof_base_size", aof.baseSize());
            s.field("aof_pending_rewrite", aof.rewriteScheduled() ? 1 : 0);
            s.field("aof_buffer_length", aof.pendingBytes());
            s.field("aof_pending_bio_fsync", aof.backgroundFsyncs());
            s.field("aof_delayed_fsync", 0);
        }
        boolean payload = link.loadingPayload() || link.asyncLoadingPayload();
        if (loading.inProgress() || payload) {
            // A master's payload loads as it arrives (repl-diskless-load): its transfer is the load.
            long start = payload ? link.payloadSinceSeconds() : loading.startSeconds();
            long elapsed = System.currentTimeMillis() / 1000 - start;
            long total = payload ? Math.max(0, link.transferSize()) : loading.totalBytes();
            long loaded = payload ? link.transferRead() : loading.loadedBytes();
            double perc = total == 0 ? 0 : (double) loaded / total * 100;
            long eta = elapsed == 0 ? 1 : elapsed * Math.max(1, total - loaded) / (loaded + 1);
            s.field("loading_start_time", start);
            s.field("loading_total_bytes", total);
            s.field("loading_rdb_used_mem", 0);
            s.field("loading_loaded_bytes", loaded);
            s.field("loading_loaded_perc", fixed2(perc));
            s.field("loading_eta_seconds", eta);
        }
    }

    private void stats(Section s, ServerContext server) {
        ServerStats st = server.stats();
        KeyspaceStats ks = server.keyspace().stats();
        s.field("total_connections_received", st.totalConnectionsReceived);
        s.field("total_commands_processed", st.totalCommandsProcessed);
        s.field("instantaneous_ops_per_sec", st.opsPerSecond.perSecond());
        s.field("total_net_input_bytes", st.netInputBytes.sum());
        s.field("total_net_output_bytes", st.netOutputBytes);
        s.field("total_net_repl_input_bytes", 0);
        s.field("total_net_repl_output_bytes", 0);
        s.field("instantaneous_input_kbps", fixed2(st.inputPerSecond.perSecond() / 1024f));
        s.field("instantaneous_output_kbps", fixed2(st.outputPerSecond.perSecond() / 1024f));
        s.field("instantaneous_input_repl_kbps", "0.00");
        s.field("instantaneous_output_repl_kbps", "0.00");
        s.field("rejected_connections", st.rejectedConnections);
        s.field("sync_full", st.syncFull);
        s.field("sync_partial_ok", st.syncPartialOk);
        s.field("sync_partial_err", st.syncPartialErr);
        s.field("expired_keys", ks.expiredKeys);
        s.field("expired_stale_perc", fixed2(ks.expiredStalePerc * 100));
        s.field("expired_time_cap_reached_count", ks.expiredStalePercentTimes);
        s.field("expire_cycle_cpu_milliseconds", ks.expireCycleMicros / 1000);
        s.field("evicted_keys", ks.evictedKeys);
        s.field("evicted_clients", st.evictedClients);
        s.field("total_eviction_exceeded_time", server.memoryLimit().totalExceededMs());
        s.field("current_eviction_exceeded_time", server.memoryLimit().currentExceededMs());
        s.field("keyspace_hits", ks.keyspaceHits);
        s.field("keyspace_misses", ks.keyspaceMisses);
        s.field("pubsub_channels", server.pubSub().channelCount());
        s.field("pubsub_patterns", server.pubSub().patternCount());
        s.field("pubsubshard_channels", server.pubSub().shardChannelCount());
        s.field("latest_fork_usec", st.lastBackgroundSaveStartMicros);
        s.field("total_forks", st.backgroundSavesStarted);
        s.field("migrate_cached_sockets", io.cinnabar.command.keys.MigrateSockets.count(server));
        s.field("slave_expires_tracked_keys", 0);
        s.field("active_defrag_hits", 0);
        s.field("active_defrag_misses", 0);
        s.field("active_defrag_key_hits", 0);
        s.field("active_defrag_key_misses", 0);
        s.field("total_active_defrag_time", 0);
        s.field("current_active_defrag_time", 0);
        s.field("tracking_total_keys", server.tracking().totalKeys());
        s.field("tracking_total_items", server.tracking().totalItems());
        s.field("tracking_total_prefixes", server.tracking().totalPrefixes());
        s.field("unexpected_error_replies", st.unexpectedErrorReplies);
        s.field("total_error_replies", st.totalErrorReplies);
        s.field("dump_payload_sanitizations", 0);
        s.field("total_reads_processed", st.reads.sum());
        s.field("total_writes_processed", st.writes);
        s.field("io_threaded_reads_processed", 0);
        s.field("io_threaded_writes_processed", 0);
        s.field("reply_buffer_shrinks", 0);
        s.field("reply_buffer_expands", 0);
    }

    private static void replication(Section s, ServerContext server) {
        MasterLink master = server.masterLink();
        if (master.host() == null) {
            s.field("role", "master");
        } else {
            s.field("role", "slave");
            s.field("master_host", master.host());
            s.field("master_port", master.port());
            s.field("master_link_status", master.linkUp() ? "up" : "down");
            s.field("master_last_io_seconds_ago", master.lastIoSecondsAgo());
            s.field("master_sync_in_progress", master.syncing() ? 1 : 0);
            s.field("slave_read_repl_offset", master.replicaOffset());
            s.field("slave_repl_offset", master.replicaOffset());
            if (master.syncing()) {
                long size = master.transferSize(), read = master.transferRead();
                s.field("master_sync_total_bytes", size);
                s.field("master_sync_read_bytes", read);
                s.field("master_sync_left_bytes", size - read);
                s.field("master_sync_perc", fixed2(size > 0 ? 100.0 * read / size : 0.0));
                s.field("master_sync_last_io_seconds_ago", master.transferLastIoSecondsAgo());
            }
            if (!master.linkUp()) s.field("master_link_down_since_seconds", master.downSinceSeconds());
            s.field("slave_priority", server.config().getLong(io.cinnabar.config.Config.option("replica-priority")));
            s.field("slave_read_only", server.config().getBool(io.cinnabar.config.Config.option("replica-read-only")) ? 1 : 0);
            s.field("replica_announced", server.config().getBool(io.cinnabar.config.Config.option("replica-announced")) ? 1 : 0);
        }
        Replicas syncs = Replicas.ifAny(server);
        java.util.List<String> replicas = syncs == null ? java.util.List.of() : syncs.infoLines();
        s.field("connected_slaves", replicas.size());
        for (int i = 0; i < replicas.size(); i++) s.field("slave" + i, replicas.get(i));
        if (GoodReplicas.inForce(server.config())) s.field("min_slaves_good_slaves", GoodReplicas.count(server));
        s.field("master_failover_state", Failover.infoState(server));
        io.cinnabar.command.ReplicationHistory history = server.history();
        s.field("master_replid", history.id());
        s.field("master_replid2", history.secondId());
        s.field("master_repl_offset", history.offset());
        s.field("second_repl_offset", history.secondOffset());
        io.cinnabar.command.ReplicationBacklog backlog = history.backlog();
        s.field("repl_backlog_active", backlog != null ? 1 : 0);
        s.field("repl_backlog_size", backlog != null ? backlog.size() : server.config().getLong(io.cinnabar.config.Config.option("repl-backlog-size")));
        s.field("repl_backlog_first_byte_offset", backlog != null ? backlog.firstByteOffset() : 0);
        s.field("repl_backlog_histlen", backlog != null ? backlog.histlen() : 0);
    }

    /** Redis's getrusage figures: the process's, then the thread running commands (its "main thread"). */
    private static void cpu(Section s) {
        double[] process = userAndSystem(ProcStats.processTicks(), () ->
                ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime());
        double[] thread = userAndSystem(ProcStats.threadTicks(), () -> ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime());
        s.field("used_cpu_sys", seconds(process[1]));
        s.field("used_cpu_user", seconds(process[0]));
        s.field("used_cpu_sys_children", "0.000000");
        s.field("used_cpu_user_children", "0.000000");
        s.field("used_cpu_sys_main_thread", seconds(thread[1]));
        s.field("used_cpu_user_main_thread", seconds(thread[0]));
    }

    /** User and system seconds from /proc's ticks; without them (not Linux) the JDK's total counts as user time. */
    private static double[] userAndSystem(long[] ticks, java.util.function.LongSupplier totalNanos) {
        if (ticks != null) return new double[] {ticks[0] / ProcStats.TICKS_PER_SECOND, ticks[1] / ProcStats.TICKS_PER_SECOND};
        return new double[] {Math.max(0, totalNanos.getAsLong()) / 1e9, 0};
    }

    private static void commandStats(Section s, ServerContext server) {
        for (CommandSpec spec : server.commands().allWithSubcommands()) {
            CommandStats st = spec.stats();
            if (st.calls == 0 && st.failedCalls == 0 && st.rejectedCalls == 0) continue;
            long usec = st.usec();
            s.line("cmdstat_" + spec.fullName() + ":calls=" + st.calls + ",usec=" + usec
                    + ",usec_per_call=" + fixed2(st.calls == 0 ? 0.0 : (double) usec / st.calls)
                    + ",rejected_calls=" + st.rejectedCalls + ",failed_calls=" + st.failedCalls);
        }
    }

    /** latency_percentiles_usec_CMD:p50=1.003,p99=... per command with a histogram, as Redis. */
    private static void latencyStats(Section s, ServerContext server) {
        Config cfg = server.config();
        if (!cfg.getBool(ConfigOptions.LATENCY_TRACKING)) return;
        String text = cfg.getString(ConfigOptions.LATENCY_TRACKING_INFO_PERCENTILES);
        String[] names = text.isEmpty() ? new String[0] : text.split(" ");
        double[] percentiles = new double[names.length];
        for (int i = 0; i < names.length; i++) percentiles[i] = Double.parseDouble(names[i]);
        for (CommandSpec spec : server.commands().allWithSubcommands()) {
            var h = spec.stats().histogram;
            if (h == null) continue;
            StringBuilder line = new StringBuilder("latency_percentiles_usec_").append(safe(spec.fullName())).append(':');
            for (int i = 0; i < names.length; i++) {
                if (i > 0) line.append(',');
                line.append('p').append(names[i]).append('=')
                        .append(DoubleFormat.fixed(h.valueAtPercentile(percentiles[i]) / 1000.0, 3));
            }
            s.line(line.toString());
        }
    }

    private static void errorStats(Section s, ServerStats stats) {
        for (Map.Entry<String, long[]> e : stats.errorCodes().entrySet()) {
            s.line("errorstat_" + safe(e.getKey()) + ":count=" + e.getValue()[0]);
        }
    }

    private static void keyspace(Section s, Keyspace ks) {
        for (int i = 0; i < ks.databaseCount(); i++) {
            var db = ks.db(i);
            if (db.size() == 0 && db.volatileCount() == 0) continue;
            s.line("db" + i + ":keys=" + db.size() + ",expires=" + db.volatileCount() + ",avg_ttl=" + ks.averageTtl(i));
        }
    }

    // ---- helpers ----

    /**
     * Where the text is built: "# Name" headers, a blank line between sections, CRLF line ends, as
     * bytes. Each thread that runs INFO keeps one (the keyspace thread, a script's helper thread):
     * a StringBuilder of 8 KB per call, then its String and that String's bytes, were a quarter
     * of the command's CPU.
     */
    private static final class Section {
        byte[] bytes = new byte[8192];
        int length;
        private int count;

        void clear() {
            length = 0;
            count = 0;
        }

        /** Starts the section if selected; true when its fields should follow. */
        boolean begin(boolean all, Set<String> wanted, String title, String key) {
            if (!all && !wanted.contains(key) && !(key.equals("module_list") && wanted.contains("modules"))) {
                return false;
            }
            if (count++ > 0) crlf();
            text("# ");
            text(title);
            crlf();
            return true;
        }

        void field(String name, String value) {
            name(name);
            room(1);
            bytes[length++] = ':';
            text(value);
            crlf();
        }

        void field(String name, long value) {
            name(name);
            room(21);
            bytes[length++] = ':';
            length += Numbers.decimalLength(value);
            Numbers.writeDecimal(bytes, length, value);
            crlf();
        }

        void line(String text) {
            text(text);
            crlf();
        }

        /** A field's name: an ASCII literal, copied as a whole (the deprecated copy drops a char's high byte). */
        @SuppressWarnings("deprecation")
        private void name(String name) {
            int n = name.length();
            room(n);
            name.getBytes(0, n, bytes, length);
            length += n;
        }

        /** ASCII a byte a char; from the first other char on, the rest as UTF-8. */
        private void text(String s) {
            int n = s.length();
            room(n);
            byte[] b = bytes;
            int p = length;
            for (int i = 0; i < n; i++) {
                char ch = s.charAt(i);
                if (ch >= 0x80) {
                    length = p;
                    byte[] rest = s.substring(i).getBytes(StandardCharsets.UTF_8);
                    room(rest.length);
                    System.arraycopy(rest, 0, bytes, length, rest.length);
                    length += rest.length;
                    return;
                }
                b[p++] = (byte) ch;
            }
            length = p;
        }

        private void crlf() {
            room(2);
            bytes[length++] = '\r';
            bytes[length++] = '\n';
        }

        private void room(int n) {
            if (length + n > bytes.length) bytes = java.util.Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + n));
        }
    }

    /** Redis's getSafeInfoString: '#', ':' and line ends would break the line format. */
    private static String safe(String s) {
        return s.replace('#', '_').replace(':', '_').replace('\r', '_').replace('\n', '_');
    }

    private static final char[] HUMAN_UNITS = {'K', 'M', 'G', 'T', 'P'};

    /** Redis's bytesToHuman. */
    static String human(long n) {
        if (n < 1024) return n + "B";
        double d = n;
        int u = -1;
        while (d >= 1024 && u < HUMAN_UNITS.length - 1) {
            d /= 1024;
            u++;
        }
        return fixed2(d) + HUMAN_UNITS[u];
    }

    private static String seconds(double s) {
        return DoubleFormat.fixed(s, 6);
    }

    /** C's "%.2f", which most of INFO's ratios and percentages use. */
    private static String fixed2(double d) {
        return DoubleFormat.fixed(d, 2);
    }

    /**
     * What stays the same while the process runs, looked up at the first INFO. Each lookup read
     * /proc (the JDK's container-aware memory size also its cgroup files): 44% of an INFO's CPU in
     * a profile, where a whole INFO took ~0.8 ms against Redis's ~0.08 ms. Cached, a fresh
     * server's first 2000 INFOs cost 4.2-4.8 s of its CPU instead of 7.1-7.5 s (JIT included).
     * Sentinel sends INFO to each server every second, ten times a second while it acts.
     */
    private static final class ProcessFacts {
        static final String EXECUTABLE = ProcessHandle.current().info().command().orElse("");
        static final long TOTAL_SYSTEM_MEMORY = systemMemory();

        /**
         * Redis's zmalloc_get_memory_size(): the machine's physical memory, which /proc/meminfo's
         * MemTotal is, also inside a container (the JDK's figure is the container's limit, and
         * its first call costs ~20 ms of a cold server's first INFO).
         */
        private static long systemMemory() {
            try {
                String first = Files.readAllLines(Path.of("/proc/meminfo")).get(0);
                if (first.startsWith("MemTotal:") && first.endsWith(" kB")) {
                    return Long.parseLong(first.substring(9, first.length() - 3).trim()) * 1024;
                }
            } catch (java.io.IOException | RuntimeException e) {
                // not Linux: the JDK knows
            }
            try {
                return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                        .getTotalMemorySize();
            } catch (Throwable t) {
                return 0;
            }
        }
    }
}
