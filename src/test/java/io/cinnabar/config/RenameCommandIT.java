package io.cinnabar.config;

import io.cinnabar.CinnabarServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** rename-command in the config file: the command answers to its new name only, or to none. */
class RenameCommandIT {
    @Test
    void renamedCommandsAnswerToTheirNewNameAndRemovedOnesToNone(@TempDir Path dir) throws Exception {
        Config config = load(dir, "rename-command SET put", "rename-command flushall \"\"", "rename-command GET SET");
        try (CinnabarServer s = new CinnabarServer(config).start(); Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals("OK", send(j, "PUT", "k", "v"));
            // GET took SET's freed name; errors still name the command as Redis's fullname does.
            assertEquals("v", send(j, "set", "k"));
            assertEquals("ERR wrong number of arguments for 'set' command",
                    assertThrows(JedisDataException.class, () -> send(j, "put", "k")).getMessage());
            assertEquals("ERR unknown command 'GET', with args beginning with: 'k' ",
                    assertThrows(JedisDataException.class, () -> send(j, "GET", "k")).getMessage());
            assertEquals("ERR unknown command 'FLUSHALL', with args beginning with: ",
                    assertThrows(JedisDataException.class, () -> send(j, "FLUSHALL")).getMessage());
        }
    }

    @Test
    void unknownCommandsAndTakenNamesStopTheStart(@TempDir Path dir) throws Exception {
        ConfigStartupException e = assertThrows(ConfigStartupException.class,
                () -> new CinnabarServer(load(dir, "port 0", "rename-command NOPE x")).start());
        assertEquals("\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 6\n"
                + ">>> 'rename-command NOPE x'\nNo such command in rename-command", e.getMessage());
        e = assertThrows(ConfigStartupException.class,
                () -> new CinnabarServer(load(dir, "rename-command SET GET")).start());
        assertEquals("Target command name already exists", e.getMessage().substring(e.getMessage().lastIndexOf('\n') + 1));
    }

    private static Object send(Jedis j, String name, String... args) {
        Object reply = j.sendCommand(() -> name.getBytes(StandardCharsets.UTF_8), args);
        return reply instanceof byte[] ? new String((byte[]) reply, StandardCharsets.UTF_8) : reply;
    }

    private static Config load(Path dir, String... lines) throws Exception {
        Path conf = Files.createTempFile(dir, "redis", ".conf");
        Files.writeString(conf, "port 0\nbind 127.0.0.1\nsave \"\"\ndir " + dir + "\n" + String.join("\n", lines) + "\n");
        return ConfigLoader.fromArgs(new String[] {conf.toString()});
    }
}
