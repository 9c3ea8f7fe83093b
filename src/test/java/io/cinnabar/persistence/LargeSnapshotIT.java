package io.cinnabar.persistence;

import io.cinnabar.CinnabarServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Snapshots of more keys than the persistence thread's backlog (16K records) with no AOF: nothing
 * but the snapshot's own records wakes the persistence thread then (a BGSAVE of 200K keys with
 * appendonly no used to hang with the file half written).
 */
class LargeSnapshotIT {
    private static final int KEYS = 100_000;

    @TempDir
    Path dir;

    private CinnabarServer start() {
        return CinnabarServer.builder().port(0).option("dir", dir.toString()).option("save", "")
                .option("appendonly", "no").build().start();
    }

    private static String info(Jedis j, String field) {
        for (String line : j.info("persistence").split("\r\n")) {
            if (line.startsWith(field + ":")) return line.substring(field.length() + 1);
        }
        return null;
    }

    private static void fill(Jedis j) {
        Pipeline p = j.pipelined();
        for (int i = 0; i < KEYS; i += 100) {
            String[] kv = new String[200];
            for (int k = 0; k < 100; k++) {
                kv[2 * k] = "key:" + (i + k);
                kv[2 * k + 1] = "value-" + (i + k);
            }
            p.mset(kv);
        }
        p.sync();
    }

    @Test
    void bgsaveOfManyKeysEndsWithoutAnyOtherWrite() throws Exception {
        try (CinnabarServer s = start(); Jedis j = new Jedis("127.0.0.1", s.port())) {
            fill(j);
            j.bgsave();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!"0".equals(info(j, "rdb_bgsave_in_progress"))) {
                if (System.nanoTime() > deadline) throw new AssertionError("BGSAVE never ended");
                Thread.sleep(20);
            }
            assertEquals("ok", info(j, "rdb_last_bgsave_status"));
        }
        try (CinnabarServer s = start(); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(KEYS, j.dbSize());
            assertEquals("value-99999", j.get("key:99999"));
        }
    }

    @Test
    void saveOfManyKeysEnds() {
        try (CinnabarServer s = start(); Jedis j = new Jedis("127.0.0.1", s.port())) {
            fill(j);
            assertEquals("OK", j.save());
        }
        try (CinnabarServer s = start(); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(KEYS, j.dbSize());
        }
    }
}
