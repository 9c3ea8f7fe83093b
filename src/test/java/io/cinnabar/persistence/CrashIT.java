package io.cinnabar.persistence;

import io.cinnabar.Cinnabar;
import io.cinnabar.CinnabarServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A server killed with SIGKILL: acknowledged writes survive, and a save cut short harms no file. */
class CrashIT {
    @TempDir
    Path dir;

    private Process launch(int port, String... options) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-cp", System.getProperty("java.class.path"), Cinnabar.class.getName(),
                "--port", Integer.toString(port), "--bind", "127.0.0.1", "--dir", dir.toString(), "--save", ""));
        cmd.addAll(List.of(options));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile()).start();
    }

    private static void kill(Process p) throws InterruptedException {
        p.destroyForcibly(); // SIGKILL: no shutdown hook runs
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
    }

    private CinnabarServer restart(String... options) {
        CinnabarServer.Builder b = CinnabarServer.builder().port(0).option("dir", dir.toString());
        for (int i = 0; i < options.length; i += 2) b.option(options[i], options[i + 1]);
        return b.build().start();
    }

    @Test
    void everyAcknowledgedWriteSurvivesSigkillWithAppendfsyncAlways() throws Exception {
        int port = LocalServers.freePort();
        Process p = launch(port, "--appendonly", "yes", "--appendfsync", "always");
        int acknowledged = 0;
        try (Jedis j = LocalServers.awaitPong(port)) {
            for (int i = 0; i < 300; i++) {
                j.set("k" + i, "v" + i);
                j.incr("counter");
                j.rpush("list", "e" + i);
                acknowledged = i + 1;
            }
        } finally {
            kill(p);
        }
        try (CinnabarServer s = restart("appendonly", "yes"); Jedis j = new Jedis("127.0.0.1", s.port())) {
            for (int i = 0; i < acknowledged; i++) assertEquals("v" + i, j.get("k" + i));
            assertEquals(Integer.toString(acknowledged), j.get("counter"));
            assertEquals(acknowledged, j.llen("list"));
        }
    }

    @Test
    void sigkillDuringBgsaveLeavesThePreviousDumpIntact() throws Exception {
        int port = LocalServers.freePort();
        Process p = launch(port, "--rdb-key-save-delay", "100000");
        Map<String, String> saved;
        try (Jedis j = LocalServers.awaitPong(port)) {
            for (int i = 0; i < 50; i++) j.set("k" + i, "v" + i);
            j.configSet("rdb-key-save-delay", "0");
            j.save();
            saved = DataSet.of(j, 1);
            j.configSet("rdb-key-save-delay", "100000");
            for (int i = 0; i < 50; i++) j.set("k" + i, "changed" + i);
            j.bgsave();
            Thread.sleep(300);
            assertTrue(j.info("persistence").contains("rdb_bgsave_in_progress:1"));
        } finally {
            kill(p);
        }
        try (CinnabarServer s = restart(); Jedis j = new Jedis("127.0.0.1", s.port())) {
            DataSet.assertSame(saved, DataSet.of(j, 1), "after a BGSAVE cut short");
        }
    }

    @Test
    void sigkillDuringAofRewriteLosesNothing() throws Exception {
        int port = LocalServers.freePort();
        Process p = launch(port, "--appendonly", "yes", "--appendfsync", "always", "--rdb-key-save-delay", "100000");
        Map<String, String> written;
        try (Jedis j = LocalServers.awaitPong(port)) {
            for (int i = 0; i < 50; i++) j.set("k" + i, "v" + i);
            j.bgrewriteaof();
            for (int i = 0; i < 50; i += 5) j.set("k" + i, "during-rewrite" + i);
            assertTrue(j.info("persistence").contains("aof_rewrite_in_progress:1"));
            written = DataSet.of(j, 1);
        } finally {
            kill(p);
        }
        assertTrue(Files.exists(dir.resolve("appendonlydir/appendonly.aof.manifest")));
        try (CinnabarServer s = restart("appendonly", "yes"); Jedis j = new Jedis("127.0.0.1", s.port())) {
            DataSet.assertSame(written, DataSet.of(j, 1), "after a rewrite cut short");
        }
    }
}
