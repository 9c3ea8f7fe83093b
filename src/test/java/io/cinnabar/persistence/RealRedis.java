package io.cinnabar.persistence;

import org.junit.jupiter.api.Assumptions;
import redis.clients.jedis.Jedis;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Debian's real redis-server 7.0 (and its tools) beside Cinnabar in a test; the test is skipped without them. */
final class RealRedis implements AutoCloseable {
    private final Process process;
    final int port;

    private RealRedis(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts redis-server on a free port in dir with the given extra options, once it answers PING. */
    static RealRedis start(Path dir, String... options) throws Exception {
        String binary = requireTool("redis-server");
        int port = LocalServers.freePort();
        List<String> cmd = new ArrayList<>(List.of(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--dir", dir.toString(), "--save", "", "--daemonize", "no", "--logfile", dir.resolve("redis.log").toString()));
        cmd.addAll(List.of(options));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) throw new AssertionError("redis-server exited with " + p.exitValue() + ", see " + dir.resolve("redis.log"));
            try (Jedis j = new Jedis("127.0.0.1", port)) {
                if ("PONG".equals(j.ping())) return new RealRedis(p, port);
            } catch (Exception notYet) {
                Thread.sleep(50);
            }
        }
        p.destroyForcibly();
        throw new AssertionError("redis-server did not start");
    }

    Jedis client() {
        return new Jedis("127.0.0.1", port);
    }

    /** The path of a Redis tool, skipping the test when it is not installed. */
    static String requireTool(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
            File f = new File(dir, name);
            if (f.canExecute()) return f.getPath();
        }
        Assumptions.assumeTrue(false, name + " is not installed (Debian packages redis-server, redis-tools)");
        return null;
    }

    /** Runs a Redis tool; returns its exit code and output. */
    static String[] run(String tool, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(requireTool(tool));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        return new String[] {Integer.toString(p.waitFor()), out};
    }

    @Override
    public void close() throws InterruptedException {
        try (Jedis j = client()) {
            j.shutdown();
        } catch (Exception ignored) {
            // the connection closes as the server exits
        }
        if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly();
    }
}
