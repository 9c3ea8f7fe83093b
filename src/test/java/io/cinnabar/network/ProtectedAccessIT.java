package io.cinnabar.network;

import io.cinnabar.CinnabarServer;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.io.IOException;
import java.util.List;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static io.cinnabar.network.RawSockets.line;
import static io.cinnabar.network.RawSockets.readToEof;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What Redis 7.0 keeps from strangers by default: DEBUG (enable-debug-command), CONFIG SET of
 * dir/dbfilename (enable-protected-configs), and non-loopback clients while the default user has
 * no password (protected-mode). "Not local" is a client connecting from 127.0.0.2: Redis counts
 * only 127.0.0.1 and ::1 as local, and every Linux loopback answers for 127.0.0.0/8.
 */
class ProtectedAccessIT {
    private static final String DEBUG_REFUSED = "ERR DEBUG command not allowed. If the enable-debug-command option is "
            + "set to \"local\", you can run it from a local connection, otherwise you need to set this option in "
            + "the configuration file, and then restart the server.";
    private static final String DENIED_START = "-DENIED Redis is running in protected mode because protected mode is "
            + "enabled and no password is set for the default user. In this mode connections are only accepted from "
            + "the loopback interface.";

    @Test
    void debugAndProtectedConfigsAreRefusedByDefault() {
        try (CinnabarServer s = CinnabarServer.builder().port(0).build().start();
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.sendCommand(() -> bytes("DEBUG"), "SLEEP", "0"));
            assertEquals(DEBUG_REFUSED, e.getMessage());
            // The refusal comes before the arity/subcommand checks of DEBUG itself, but after the command's arity.
            e = assertThrows(JedisDataException.class, () -> j.sendCommand(() -> bytes("DEBUG")));
            assertEquals("ERR wrong number of arguments for 'debug' command", e.getMessage());
            e = assertThrows(JedisDataException.class, () -> j.configSet("dir", "/tmp"));
            assertEquals("ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config", e.getMessage());
            e = assertThrows(JedisDataException.class, () -> j.configSet("dbfilename", "x.rdb"));
            assertEquals("ERR CONFIG SET failed (possibly related to argument 'dbfilename') - can't set protected config",
                    e.getMessage());
            assertEquals("dump.rdb", j.configGet("dbfilename").get("dbfilename"));
            e = assertThrows(JedisDataException.class, () -> j.configSet("enable-debug-command", "yes"));
            assertEquals("ERR CONFIG SET failed (possibly related to argument 'enable-debug-command') - can't set immutable config",
                    e.getMessage());
        }
    }

    @Test
    void moduleLoadingIsGatedThenFailsAsAFailedLoadDoes() {
        String refused = "ERR MODULE command not allowed. If the enable-module-command option is set to \"local\", you "
                + "can run it from a local connection, otherwise you need to set this option in the configuration file, "
                + "and then restart the server.";
        try (CinnabarServer s = CinnabarServer.builder().port(0).build().start();
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(List.of(), j.sendCommand(() -> bytes("MODULE"), "LIST"));
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.sendCommand(() -> bytes("MODULE"), "LOAD", "/x.so"));
            assertEquals(refused, e.getMessage());
        }
        try (CinnabarServer s = CinnabarServer.builder().port(0).option("enable-module-command", "yes").build().start();
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            JedisDataException e = assertThrows(JedisDataException.class, () -> j.sendCommand(() -> bytes("MODULE"), "LOAD", "/x.so"));
            assertEquals("ERR Error loading the extension. Please check the server logs.", e.getMessage());
            e = assertThrows(JedisDataException.class, () -> j.sendCommand(() -> bytes("MODULE"), "UNLOAD", "x"));
            assertEquals("ERR Error unloading module: no such module with that name", e.getMessage());
        }
    }

    @Test
    void localAllowsLoopbackClientsOnly() throws IOException {
        try (CinnabarServer s = CinnabarServer.builder().port(0).option("enable-debug-command", "local")
                .option("enable-protected-configs", "local").option("protected-mode", "no").build().start()) {
            try (Jedis j = new Jedis("127.0.0.1", s.port())) {
                assertEquals("OK", new String((byte[]) j.sendCommand(() -> bytes("DEBUG"), "SLEEP", "0"), StandardCharsets.UTF_8));
                assertEquals("OK", j.configSet("dbfilename", "local.rdb"));
            }
            try (Socket remote = fromOtherAddress(s)) {
                remote.getOutputStream().write(bytes("DEBUG SLEEP 0\r\nCONFIG SET dbfilename x.rdb\r\n"));
                assertEquals("-" + DEBUG_REFUSED, line(remote));
                assertEquals("-ERR CONFIG SET failed (possibly related to argument 'dbfilename') - can't set protected config",
                        line(remote));
            }
        }
    }

    @Test
    void protectedModeRefusesOtherAddressesUntilTheDefaultUserHasAPassword() throws IOException {
        try (CinnabarServer s = CinnabarServer.builder().port(0).build().start();
             Jedis local = new Jedis("127.0.0.1", s.port())) {
            try (Socket remote = fromOtherAddress(s)) {
                String refusal = readToEof(remote);
                assertTrue(refusal.startsWith(DENIED_START), refusal);
                assertTrue(refusal.endsWith("NOTE: You only need to do one of the above things in order for the server "
                        + "to start accepting connections from the outside.\r\n"), refusal);
            }
            assertTrue(local.info("stats").contains("rejected_connections:1\r\n"));

            local.configSet("requirepass", "secret");
            try (Socket remote = fromOtherAddress(s)) {
                remote.getOutputStream().write(bytes("PING\r\n"));
                assertEquals("-NOAUTH Authentication required.", line(remote));
            }
            local.auth("secret");
            local.configSet("requirepass", "");
            local.configSet("protected-mode", "no");
            try (Socket remote = fromOtherAddress(s)) {
                remote.getOutputStream().write(bytes("PING\r\n"));
                assertEquals("+PONG", line(remote));
            }
        }
    }

    private static Socket fromOtherAddress(CinnabarServer s) throws IOException {
        return RawSockets.connect(s, "127.0.0.2");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
