package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.command.acl.AclStartupException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisDataException;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AclFileIT {
    @Test
    void aclFileIsLoadedAtStartSavedAndReloaded(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("users.acl");
        Files.write(file, List.of("user alice on >pw ~app:* +@all", "user default on nopass ~* &* +@all"));
        try (CinnabarServer server = CinnabarServer.builder().port(0).option("dir", dir.toString())
                .option("aclfile", "users.acl").build().start();
             Jedis jedis = new Jedis("127.0.0.1", server.port())) {
            assertEquals(List.of("alice", "default"), jedis.aclUsers());
            jedis.aclSetUser("bob", "on", "nopass", "+get", "~b*");
            assertEquals("OK", jedis.aclSave());
            List<String> saved = Files.readAllLines(file);
            assertTrue(saved.contains("user bob on nopass ~b* resetchannels -@all +get"), saved.toString());

            try (Jedis bob = new Jedis("127.0.0.1", server.port())) {
                bob.auth("bob", "x");
                Files.write(file, List.of("user carol on nopass +@all ~*"));
                assertEquals("OK", jedis.aclLoad());
                // bob no longer exists: his connection is closed, as Redis frees the old users' clients.
                assertThrows(RuntimeException.class, bob::ping);
            }
            assertEquals(List.of("carol", "default"), jedis.aclUsers());

            Files.write(file, List.of("user dave on +nosuch", "notauser x"));
            JedisDataException e = assertThrows(JedisDataException.class, jedis::aclLoad);
            assertEquals("ERR users.acl:1: Error in applying operation '+nosuch': Unknown command or category name in ACL. "
                    + "users.acl:2 should start with user keyword followed by the username. "
                    + "WARNING: ACL errors detected, no change to the previously active ACL rules was performed", e.getMessage());
            assertEquals(List.of("carol", "default"), jedis.aclUsers());
        }
    }

    @Test
    void rulesWithBytesThatAreNotUtf8SurviveSaveAndLoad(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("users.acl");
        Files.write(file, new byte[0]);
        byte[] pattern = {'~', 'k', (byte) 0xFF, '*'};
        try (CinnabarServer server = CinnabarServer.builder().port(0).option("dir", dir.toString())
                .option("aclfile", "users.acl").build().start();
             Jedis jedis = new Jedis("127.0.0.1", server.port())) {
            jedis.sendCommand(Protocol.Command.ACL, "SETUSER".getBytes(), "u".getBytes(), "on".getBytes(),
                    "nopass".getBytes(), "+get".getBytes(), pattern);
            assertEquals("OK", jedis.aclSave());
            String saved = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
            assertTrue(saved.contains("user u on nopass ~k\u00ff* resetchannels -@all +get"), saved);
            assertEquals("OK", jedis.aclLoad());
            // Read back as anything but its own bytes, the 0xFF once came back as '?', a wildcard.
            assertEquals("OK", new String((byte[]) jedis.sendCommand(Protocol.Command.ACL, "DRYRUN".getBytes(),
                    "u".getBytes(), "GET".getBytes(), new byte[] {'k', (byte) 0xFF, '1'})));
            assertEquals("This user has no permissions to access the 'kx' key", jedis.aclDryRun("u", "GET", "kx"));
        }
        // A restart reads the saved file the same way.
        try (CinnabarServer server = CinnabarServer.builder().port(0).option("dir", dir.toString())
                .option("aclfile", "users.acl").build().start();
             Jedis jedis = new Jedis("127.0.0.1", server.port())) {
            assertEquals("This user has no permissions to access the 'kx' key", jedis.aclDryRun("u", "GET", "kx"));
            assertEquals("OK", new String((byte[]) jedis.sendCommand(Protocol.Command.ACL, "DRYRUN".getBytes(),
                    "u".getBytes(), "GET".getBytes(), new byte[] {'k', (byte) 0xFF, '1'})));
        }
    }

    @Test
    void aBrokenAclFileStopsTheStart(@TempDir Path dir) throws Exception {
        Files.write(dir.resolve("bad.acl"), List.of("user x on ~a ~* ~b"));
        AclStartupException e = assertThrows(AclStartupException.class, () -> CinnabarServer.builder().port(0)
                .option("dir", dir.toString()).option("aclfile", "bad.acl").build().start());
        assertTrue(e.getMessage().startsWith("Aborting Redis startup because of ACL errors: bad.acl:1: Adding a pattern after"),
                e.getMessage());
    }

    @Test
    void aclLoadWithoutAnAclFileIsRefused() throws Exception {
        try (CinnabarServer server = CinnabarServer.builder().port(0).build().start();
             Jedis jedis = new Jedis("127.0.0.1", server.port())) {
            JedisDataException e = assertThrows(JedisDataException.class, jedis::aclLoad);
            assertTrue(e.getMessage().startsWith("ERR This Redis instance is not configured to use an ACL file."), e.getMessage());
        }
    }
}
