package io.cinnabar;

import io.cinnabar.persistence.LocalServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server as a process (java -jar style argv) and as an embedded object. */
class StartupIT {
    @Test
    void unknownOptionStopsStartupWithExitCode1() throws Exception {
        Process p = launch("--port", "0", "--no-such-option", "x");
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(1, p.exitValue());
        assertTrue(err.contains("*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***"), err);
        assertTrue(err.contains("Bad directive or wrong number of arguments"), err);
    }

    @Test
    void unreadableTlsFilesStopStartupWithRedisLines(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("stdout");
        String missing = dir.resolve("missing.crt").toString();
        Process p = launch(log, "--port", "0", "--tls-port", Integer.toString(LocalServers.freePort()), "--tls-cert-file", missing,
                "--tls-key-file", missing, "--tls-auth-clients", "no");
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(1, p.exitValue());
        String text = Files.readString(log);
        assertTrue(text.contains("# Failed to load certificate: " + missing + ": No such file or directory\n"), text);
        assertTrue(text.contains("# Failed to configure TLS. Check logs for more info.\n"), text);
    }

    @Test
    void processServesAndShutsDownOnShutdownCommand() throws Exception {
        int port = LocalServers.freePort();
        Process p = launch("--port", Integer.toString(port), "--save", "", "--bind", "127.0.0.1");
        try {
            LocalServers.awaitPong(port).close();
            try (Jedis j = new Jedis("127.0.0.1", port)) {
                j.set("a", "1");
                assertEquals("1", j.get("a"));
                try {
                    j.shutdown();
                } catch (Exception closedByServer) {
                    // the server closes the connection instead of replying, as Redis does
                }
            }
            assertTrue(p.waitFor(20, TimeUnit.SECONDS), "server did not exit after SHUTDOWN");
            assertEquals(0, p.exitValue());
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void jitWarmUpServesAPrivateServerSilentlyAndLeavesNothingBehind(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("stdout");
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        Path data = Files.createDirectories(dir.resolve("data"));
        int port = LocalServers.freePort();
        Process p = launch(log, List.of("-Dcinnabar.warmupMs=300", "-Djava.io.tmpdir=" + tmp),
                "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes",
                "--dir", data.toString());
        try {
            String text = awaitLine(log, "Ready to accept connections");
            java.util.regex.Matcher served = java.util.regex.Pattern.compile("JIT warm-up: (\\d+) requests").matcher(text);
            assertTrue(served.find(), text);
            assertTrue(Long.parseLong(served.group(1)) > 0, text);
            // The private server's AOF lines are silenced: only the real server's file is announced.
            assertEquals(1, text.split("Creating AOF incr file", -1).length - 1, text);
            try (Stream<Path> left = Files.list(tmp)) {
                assertEquals(List.of(), left.filter(f -> f.getFileName().toString().startsWith("cinnabar-warm-up")).toList());
            }
            try (Jedis j = LocalServers.awaitPong(port)) {
                assertEquals(0, j.dbSize());
                j.set("a", "1");
                assertEquals("1", j.get("a"));
            }
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void sigtermStopsTheServerWithClientsConnected() throws Exception {
        int port = LocalServers.freePort();
        Process p = launch("--port", Integer.toString(port), "--save", "", "--bind", "127.0.0.1");
        try {
            LocalServers.awaitPong(port).close();
            try (Jedis idle = new Jedis("127.0.0.1", port)) {
                idle.set("k", "v");
                p.destroy(); // SIGTERM
                assertTrue(p.waitFor(20, TimeUnit.SECONDS), "server did not exit after SIGTERM");
            }
        } finally {
            p.destroyForcibly();
        }
    }

    /** As redis-server: a signal asks for a shutdown the cron carries out; a failed final save keeps it running. */
    @Test
    void sigtermWhoseFinalSaveFailsLeavesTheServerRunningAndSigintTwiceExitsAtOnce(@TempDir Path dir) throws Exception {
        int port = LocalServers.freePort();
        Path log = dir.resolve("out.log");
        Process p = launch(log, "--port", Integer.toString(port), "--save", "900 1", "--bind", "127.0.0.1",
                "--dir", dir.toString(), "--enable-debug-command", "yes");
        try (Jedis j = LocalServers.awaitPong(port)) {
            j.set("k", "v");
            Files.createDirectory(dir.resolve("dump.rdb")); // the final save cannot rename onto a directory
            p.destroy(); // SIGTERM
            awaitLine(log, "Error trying to save the DB, can't exit.");
            assertEquals("PONG", j.ping());
            assertTrue(p.isAlive());
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.shutdownAbort());
            assertEquals("ERR No shutdown in progress.", e.getMessage(), "the failed shutdown was called off");

            // Pending (the cron is paused), so SHUTDOWN ABORT cancels it.
            j.sendCommand(() -> "DEBUG".getBytes(), "PAUSE-CRON", "1");
            p.destroy();
            awaitOccurrences(log, "Received SIGTERM scheduling shutdown...", 2);
            j.shutdownAbort();
            awaitLine(log, "Shutdown manually aborted.");
            j.sendCommand(() -> "DEBUG".getBytes(), "PAUSE-CRON", "0");
            assertEquals("PONG", j.ping());

            // A second SIGINT while one waits: out at once, exit code 1.
            j.sendCommand(() -> "DEBUG".getBytes(), "PAUSE-CRON", "1");
            long pid = p.pid();
            new ProcessBuilder("kill", "-INT", Long.toString(pid)).start().waitFor();
            awaitLine(log, "Received SIGINT scheduling shutdown...");
            new ProcessBuilder("kill", "-INT", Long.toString(pid)).start().waitFor();
            assertTrue(p.waitFor(20, TimeUnit.SECONDS), "server did not exit after a second SIGINT");
            assertEquals(1, p.exitValue());
            assertTrue(Files.readString(log).contains("You insist... exiting now."));
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void logsWhatTheRedisTestSuiteWaitsForAndFailsOnABusyPort(@TempDir Path dir) throws Exception {
        int port = LocalServers.freePort();
        Path log = dir.resolve("stdout");
        Process p = launch(log, "--port", Integer.toString(port), "--save", "", "--bind", "127.0.0.1",
                "--always-show-logo", "yes", "--loglevel", "verbose");
        try {
            LocalServers.awaitPong(port).close();
            String text = awaitLine(log, "Ready to accept connections");
            int banner = text.indexOf(" PID: " + p.pid() + "\n");
            assertTrue(banner > 0 && banner < text.indexOf("Ready to accept connections"), text);
            assertTrue(text.contains(p.pid() + ":M "), text);
            assertTrue(text.contains("Redis version=7.0.15, bits=64, commit=00000000, modified=0, pid=" + p.pid()
                    + ", just started"), text);

            Path busyLog = dir.resolve("busy");
            Process busy = launch(busyLog, "--port", Integer.toString(port), "--bind", "127.0.0.1");
            assertTrue(busy.waitFor(30, TimeUnit.SECONDS));
            assertEquals(1, busy.exitValue());
            assertTrue(Files.readString(busyLog).contains("# Failed listening on port " + port + " (TCP), aborting."),
                    Files.readString(busyLog));
        } finally {
            p.destroy();
            assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        }
        assertTrue(Files.readString(log).contains("# Redis is now ready to exit, bye bye..."), Files.readString(log));
    }

    /**
     * Redis chdirs into "dir" as it reads it, so relative logfile, pidfile and aclfile paths are in
     * dir (Redis's Sentinel suite reads each server's dir/log.txt), not in the process's directory.
     */
    @Test
    void relativeFilePathsAreInDir(@TempDir Path dir) throws Exception {
        int port = LocalServers.freePort();
        Path data = Files.createDirectory(dir.resolve("data"));
        Files.writeString(data.resolve("users.acl"), "user default on nopass ~* &* +@all\nuser alice on nopass +ping\n");
        Path conf = dir.resolve("cinnabar.conf");
        Files.write(conf, List.of("port " + port, "bind 127.0.0.1", "save \"\"", "dir " + data,
                "logfile log.txt", "pidfile cinnabar.pid", "aclfile users.acl"));
        Process p = launch(conf.toString());
        try (Jedis j = LocalServers.awaitPong(port)) {
            assertTrue(awaitLine(data.resolve("log.txt"), "Ready to accept connections").contains("Server initialized"));
            assertEquals(p.pid() + "\n", Files.readString(data.resolve("cinnabar.pid")));
            assertEquals(List.of("alice", "default"), j.aclUsers());
        } finally {
            p.destroy();
            assertTrue(p.waitFor(20, TimeUnit.SECONDS));
        }
        assertFalse(Files.exists(data.resolve("cinnabar.pid")));
    }

    /**
     * close() closes every client's connection, so that no client waits on a server that is gone
     * (stopping the event loops alone left one open in about 1 close of 15).
     */
    @Test
    void closingAnEmbeddedServerClosesItsClientsConnections() {
        for (int i = 0; i < 50; i++) {
            CinnabarServer server = CinnabarServer.builder().port(0).build().start();
            try (Jedis j = new Jedis("127.0.0.1", server.port())) {
                j.ping();
                server.close();
                j.getConnection().setSoTimeout(5000);
                JedisConnectionException e = assertThrows(JedisConnectionException.class, j::ping);
                assertFalse(e.getMessage().contains("Read timed out"), "the connection stayed open: " + e);
            }
        }
    }

    @Test
    void embeddedPortConflictFailsFastAndCloseFreesThePort() {
        CinnabarServer first = CinnabarServer.builder().port(0).build().start();
        int port = first.port();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> CinnabarServer.builder().port(port).build().start());
        assertTrue(e.getMessage().contains(Integer.toString(port)), e.getMessage());
        first.close();
        try (CinnabarServer again = CinnabarServer.builder().port(port).build().start();
             Jedis j = new Jedis("127.0.0.1", again.port())) {
            assertEquals("PONG", j.ping());
        }
    }

    @Test
    void severalServersInOneJvmKeepSeparateData() {
        try (CinnabarServer a = CinnabarServer.builder().port(0).build().start();
             CinnabarServer b = CinnabarServer.builder().port(0).build().start();
             Jedis ja = new Jedis("127.0.0.1", a.port());
             Jedis jb = new Jedis("127.0.0.1", b.port())) {
            ja.set("k", "a");
            assertEquals(null, jb.get("k"));
            assertEquals("a", ja.get("k"));
        }
    }

    @Test
    void anEmbeddedServerWithoutDirWorksInATemporaryDirectoryItDeletesWhenItStops() {
        Path dir;
        try (CinnabarServer s = CinnabarServer.builder().port(0).option("appendonly", "yes").build().start();
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            dir = Path.of(j.configGet("dir").get("dir"));
            assertTrue(!dir.equals(Path.of("").toAbsolutePath()), dir.toString());
            assertTrue(Files.isDirectory(dir.resolve("appendonlydir")));
            j.set("k", "v");
            assertEquals("OK", j.save());
            assertTrue(Files.exists(dir.resolve("dump.rdb")));
        }
        assertTrue(!Files.exists(dir), dir + " is still there");
    }

    @Test
    void aFullHeapRefusesWritesButKeepsAnsweringAndFlushallMakesRoom() throws Exception {
        int port = LocalServers.freePort();
        // The JVM options users start with (Shenandoah), on a heap too small for what is written.
        Process p = launch(null, List.of("@conf/jvm.options", "-Xmx96m"),
                "--port", Integer.toString(port), "--save", "", "--bind", "127.0.0.1");
        try (Jedis j = LocalServers.awaitPong(port)) {
            String value = "v".repeat(10_000);
            String refused = null;
            int written = 0;
            while (refused == null && written < 30_000) { // 300 MB at most
                try {
                    j.set("k" + written, value);
                    written++;
                } catch (JedisDataException e) {
                    refused = e.getMessage();
                }
            }
            assertEquals("OOM command not allowed when used memory > 'maxmemory'.", refused);
            assertTrue(written > 1000, "refused after " + written + " values only");
            assertEquals("PONG", j.ping());
            assertEquals(value, j.get("k0"));
            assertEquals(1, j.del("k1"));
            assertEquals("OK", j.flushAll());
            // The keys' heap comes back with the collection FLUSHALL asks for.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            String stored = null;
            while (stored == null && System.nanoTime() < deadline) {
                try {
                    stored = j.set("after", value);
                } catch (JedisDataException stillFull) {
                    Thread.sleep(100);
                }
            }
            assertEquals("OK", stored);
            assertTrue(p.isAlive());
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void theProcessMakesItsLuaInterpreterBeforeSayingReady(@TempDir Path dir) throws Exception {
        // As redis-server makes its own at start (scriptingInit): a fresh process's first EVAL waited
        // 140-650 ms for it, and Redisson's tryLock(100 ms) gave up on its lock before subscribing.
        Path log = dir.resolve("stdout");
        int port = LocalServers.freePort();
        Process p = launch(log, "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--dir", dir.toString());
        try {
            awaitLine(log, "Ready to accept connections");
            String histogram = jcmd(p, "GC.class_histogram");
            assertTrue(java.util.regex.Pattern.compile("(?m)^\\s*\\d+:\\s+1\\s+\\d+\\s+io\\.cinnabar\\.command\\.scripting\\.ScriptEngine\\s")
                    .matcher(histogram).find(), histogram);
            try (Jedis j = LocalServers.awaitPong(port)) {
                assertEquals("1", j.eval("redis.call('hincrby', KEYS[1], ARGV[1], 1); redis.call('pexpire', KEYS[1], 30000); "
                        + "return redis.call('hget', KEYS[1], ARGV[1])", 1, "lock", "owner"));
                assertEquals("5", j.eval("return string.format('%d', #'hello')"));
            }
        } finally {
            p.destroyForcibly();
        }
    }

    /** The output of a jcmd command (jcmd beside the running java) for the process. */
    private static String jcmd(Process p, String command) throws IOException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process run = new ProcessBuilder(jcmd.toString(), Long.toString(p.pid()), command).redirectErrorStream(true).start();
        return new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    /** A hung server's log and thread dump (jcmd beside the running java), for a failure message. */
    private static String logAndThreads(Path log, Process p) {
        StringBuilder out = new StringBuilder();
        try {
            out.append(Files.readString(log));
            out.append(jcmd(p, "Thread.print"));
        } catch (IOException e) {
            out.append(e);
        }
        return out.toString();
    }

    @Test
    void anOutOfMemoryErrorEndsTheProcessInsteadOfLeavingItHalfDead(@TempDir Path dir) throws Exception {
        int port = LocalServers.freePort();
        Path log = dir.resolve("stdout");
        Process p = launch(log, List.of("-Xmx64m"), "--port", Integer.toString(port), "--save", "", "--bind", "127.0.0.1");
        try (Jedis j = LocalServers.awaitPong(port)) {
            // One 200 MB string: below every limit until it is allocated.
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.setrange("big", 200_000_000, "x"));
            assertEquals("OOM command not allowed when used memory > 'maxmemory'.", e.getMessage());
            boolean ended = p.waitFor(20, TimeUnit.SECONDS);
            // Seen once in CI (1 of 4 runs of this session, never locally): what it was doing goes into the failure.
            assertTrue(ended, () -> "the server still runs after an OutOfMemoryError; its log and threads:\n" + logAndThreads(log, p));
            assertEquals(1, p.exitValue());
            assertTrue(Files.readString(log).contains("Out of memory (java.lang.OutOfMemoryError: Java heap space): exiting"),
                    Files.readString(log));
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void requestsArrivingDuringAShortLoadWaitForItInsteadOfGettingLoading(@TempDir Path dir) throws Exception {
        try (CinnabarServer first = CinnabarServer.builder().port(0).option("dir", dir.toString()).build().start();
             Jedis j = new Jedis(first.host(), first.port())) {
            j.set("a", "1");
            j.set("b", "2");
            j.save();
        }
        // Redis serves no client before a short load has ended. key-load-delay makes this one last
        // 2 x 40 ms: the request sent before it starts is read while it runs, and answered after it.
        try (CinnabarServer server = CinnabarServer.builder().port(0).option("dir", dir.toString())
                .option("key-load-delay", "40000").build();
             java.net.Socket socket = new java.net.Socket()) {
            server.listen();
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", server.port()));
            socket.getOutputStream().write("GET a\r\nSET c 3\r\nGET c\r\n".getBytes(StandardCharsets.US_ASCII));
            server.loadData();
            java.io.BufferedReader in = new java.io.BufferedReader(
                    new java.io.InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            assertEquals("$1", in.readLine(), "not LOADING");
            assertEquals("1", in.readLine());
            assertEquals("+OK", in.readLine());
            assertEquals("$1", in.readLine());
            assertEquals("3", in.readLine());
        }
    }

    @Test
    void aCrashLogsRedisBugReportAndEndsTheProcessAsTheSignalWould(@TempDir Path dir) throws Exception {
        int port = LocalServers.freePort();
        Path log = dir.resolve("stdout");
        Process p = launch(log, "--port", Integer.toString(port), "--save", "", "--bind", "127.0.0.1",
                "--enable-debug-command", "yes");
        try (Jedis j = LocalServers.awaitPong(port)) {
            j.set("k", "v");
            assertThrows(JedisConnectionException.class, () -> j.sendCommand(() -> "DEBUG".getBytes(StandardCharsets.US_ASCII), "SEGFAULT"));
            assertTrue(p.waitFor(20, TimeUnit.SECONDS), "the server still runs after DEBUG SEGFAULT");
            assertEquals(128 + 11, p.exitValue());
            String text = Files.readString(log);
            for (String line : List.of("=== REDIS BUG REPORT START: Cut & paste starting from here ===",
                    "# Redis 7.0.15 crashed by signal: 11, si_code: 2", "------ STACK TRACE ------",
                    "------ INFO OUTPUT ------", "db0:keys=1,expires=0", "=== REDIS BUG REPORT END.")) {
                assertTrue(text.contains(line), line + " not in " + text);
            }
        } finally {
            p.destroyForcibly();
        }
        Path abortLog = dir.resolve("abort");
        Process aborted = launch(abortLog, "--port", Integer.toString(port), "--save", "", "--bind", "127.0.0.1");
        try (Jedis j = LocalServers.awaitPong(port)) {
            new ProcessBuilder("kill", "-ABRT", Long.toString(aborted.pid())).start().waitFor();
            assertTrue(aborted.waitFor(20, TimeUnit.SECONDS), "the server still runs after SIGABRT");
            assertEquals(128 + 6, aborted.exitValue());
            assertTrue(Files.readString(abortLog).contains("# Redis 7.0.15 crashed by signal: 6, si_code: 0"));
        } finally {
            aborted.destroyForcibly();
        }
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"PANIC", "OOM"})
    void aCrashOfAnEmbeddedServerStopsItAndLeavesTheJvm(String crash) {
        CinnabarServer server = CinnabarServer.builder().port(0).option("enable-debug-command", "yes").build().start();
        try (Jedis j = new Jedis("127.0.0.1", server.port())) {
            assertThrows(JedisConnectionException.class, () -> j.sendCommand(() -> "DEBUG".getBytes(StandardCharsets.US_ASCII), crash));
        }
        assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), server::awaitTermination,
                "the embedded server still runs after DEBUG " + crash);
        server.close();
    }

    private static Process launch(String... args) throws IOException {
        return launch(null, args);
    }

    private static Process launch(Path stdout, String... args) throws IOException {
        return launch(stdout, List.of(), args);
    }

    /** Starts the server as a process; its standard output goes to stdout, or nowhere when null. */
    private static Process launch(Path stdout, List<String> jvmOptions, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        // Started from a background job (as CI runners start builds), this JVM and its children
        // have SIGINT ignored, which a JVM cannot take back: perl resets it, as a terminal would have it.
        cmd.addAll(List.of("perl", "-e", "$SIG{INT} = 'DEFAULT'; exec @ARGV or die"));
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Cinnabar.class.getName());
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectOutput(stdout == null ? ProcessBuilder.Redirect.DISCARD
                : ProcessBuilder.Redirect.to(stdout.toFile())).start();
    }

    private static String awaitLine(Path log, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            String content = Files.readString(log);
            if (content.contains(text)) return content;
            Thread.sleep(50);
        }
        throw new AssertionError("no '" + text + "' in " + Files.readString(log));
    }

    /** Waits until text is in the log n times (a line an earlier event wrote does not count). */
    private static void awaitOccurrences(Path log, String text, int n) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            String content = Files.readString(log);
            if (content.split(java.util.regex.Pattern.quote(text), -1).length - 1 >= n) return;
            Thread.sleep(50);
        }
        throw new AssertionError("not " + n + " times '" + text + "' in " + Files.readString(log));
    }
}
