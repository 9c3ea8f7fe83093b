package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import org.junit.jupiter.api.Test;

import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CINNABAR FAULT, RECORD and RESET over the protocol, for tests in other languages. */
class TestControlsProtocolIT {
    private static CinnabarServer testServer() {
        return CinnabarServer.builder().port(0).option("enable-test-commands", "yes").build().start();
    }

    @Test
    void withoutEnableTestCommandsCinnabarIsAnUnknownCommand() throws Exception {
        try (CinnabarServer server = CinnabarServer.builder().port(0).build().start();
             RespSocket c = new RespSocket(server.port())) {
            assertEquals(new RespSocket.Error("ERR unknown command 'CINNABAR', with args beginning with: 'RESET' "),
                    c.call("CINNABAR", "RESET"));
            assertEquals(Arrays.asList((Object) null), c.call("COMMAND", "INFO", "cinnabar"), "not in the command table");
            assertEquals(new RespSocket.Error("ERR CONFIG SET failed (possibly related to argument 'enable-test-commands') - can't set immutable config"),
                    c.call("CONFIG", "SET", "enable-test-commands", "yes"));
        }
    }

    @Test
    void faultsOverTheProtocol() throws Exception {
        try (CinnabarServer server = testServer(); RespSocket c = new RespSocket(server.port()); RespSocket other = new RespSocket(server.port())) {
            assertEquals("OK", c.call("SET", "user:1", "ann"));
            assertEquals(1L, c.call("CINNABAR", "FAULT", "ADD", "GET", "KEY", "user:*", "TIMES", "2", "ERROR", "LOADING", "Redis", "is",
                    "loading", "the", "dataset", "in", "memory"));
            assertEquals(2L, c.call("cinnabar", "fault", "add", "incr", "client", "worker-*", "nth", "2", "close"));
            assertEquals(List.of(
                    Arrays.asList("id", 1L, "command", "get", "key", "user:*", "client", nullValue(), "nth", 1L, "times", 2L, "fired", 0L,
                            "action", "ERROR LOADING Redis is loading the dataset in memory"),
                    Arrays.asList("id", 2L, "command", "incr", "key", nullValue(), "client", "worker-*", "nth", 2L, "times", -1L, "fired", 0L,
                            "action", "CLOSE")), c.call("CINNABAR", "FAULT", "LIST"));
            RespSocket.Error loading = new RespSocket.Error("LOADING Redis is loading the dataset in memory");
            assertEquals(loading, other.call("GET", "user:1"));
            assertEquals(loading, other.call("GET", "user:1"));
            assertEquals("ann", other.call("GET", "user:1"));
            assertEquals(1L, c.call("CINNABAR", "FAULT", "DEL", "2"));
            assertEquals(0L, c.call("CINNABAR", "FAULT", "DEL", "2"));

            assertEquals(3L, c.call("CINNABAR", "FAULT", "ADD", "PING", "TIMES", "1", "DELAY", "200"));
            assertEquals("PONG", other.call("PING"), "delayed, then answered");
            assertEquals(4L, c.call("CINNABAR", "FAULT", "ADD", "ECHO", "DROP"));
            other.timeoutMillis(300);
            assertThrows(SocketTimeoutException.class, () -> other.call("ECHO", "x"));
            assertEquals("OK", c.call("CINNABAR", "FAULT", "CLEAR"));
            assertEquals(List.of(), c.call("CINNABAR", "FAULT", "LIST"));

            RespSocket.Error syntax = new RespSocket.Error("ERR syntax error");
            assertEquals(syntax, c.call("CINNABAR", "FAULT", "ADD", "GET"));
            assertEquals(syntax, c.call("CINNABAR", "FAULT", "ADD", "GET", "KEY", "x"));
            assertEquals(syntax, c.call("CINNABAR", "FAULT", "ADD", "GET", "DROP", "extra"));
            assertEquals(syntax, c.call("CINNABAR", "FAULT", "ADD", "GET", "ERROR"));
            assertEquals(new RespSocket.Error("ERR value is not an integer or out of range"),
                    c.call("CINNABAR", "FAULT", "ADD", "GET", "TIMES", "0", "DROP"));
            assertEquals(new RespSocket.Error("ERR unknown subcommand or wrong number of arguments for 'nope'. Try CINNABAR HELP."),
                    c.call("CINNABAR", "nope"));
            Object help = c.call("CINNABAR", "help");
            assertTrue(help instanceof List<?> lines && lines.get(0).equals("CINNABAR <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
                    && lines.contains("CLOCK ADVANCE <milliseconds>") && lines.contains("RECORD GET [<count>]")
                    && lines.get(lines.size() - 2).equals("HELP"), String.valueOf(help));
            assertEquals(new RespSocket.Error("ERR wrong number of arguments for 'cinnabar' command"), c.call("CINNABAR"));
        }
    }

    @Test
    void recordAndResetOverTheProtocol() throws Exception {
        try (CinnabarServer server = testServer(); RespSocket c = new RespSocket(server.port())) {
            assertEquals("OK", c.call("CLIENT", "SETNAME", "t1"));
            assertEquals("OK", c.call("CINNABAR", "RECORD", "ON"));
            long before = System.currentTimeMillis();
            assertEquals("OK", c.call("SET", "x", "1"));
            assertEquals("OK", c.call("SELECT", "2"));
            assertNull(c.call("GET", "y"));
            List<?> all = (List<?>) c.call("CINNABAR", "RECORD", "GET");
            assertEquals(3, all.size(), "CINNABAR commands are not recorded: " + all);
            List<?> set = (List<?>) all.get(0);
            assertTrue((Long) set.get(0) >= before - 1000);
            assertEquals(List.of("t1", 0L, "SET", "x", "1"), set.subList(1, set.size()));
            List<?> last = (List<?>) c.call("CINNABAR", "RECORD", "GET", "1");
            assertEquals(List.of("t1", 2L, "GET", "y"), ((List<?>) last.get(0)).subList(1, 5));
            assertEquals(List.of(), c.call("CINNABAR", "RECORD", "GET", "0"));
            assertInstanceOf(RespSocket.Error.class, c.call("CINNABAR", "RECORD", "GET", "-1"));
            assertEquals("OK", c.call("CINNABAR", "RECORD", "OFF"));
            assertEquals("PONG", c.call("PING"));
            assertEquals(3, ((List<?>) c.call("CINNABAR", "RECORD", "GET")).size());
            assertEquals("OK", c.call("CINNABAR", "RECORD", "CLEAR"));
            assertEquals(List.of(), c.call("CINNABAR", "RECORD", "GET"));
            assertEquals(new RespSocket.Error("ERR syntax error"), c.call("CINNABAR", "RECORD", "MAYBE"));

            assertEquals("OK", c.call("SET", "in2", "v"));
            assertEquals("OK", c.call("CONFIG", "SET", "hz", "50"));
            assertEquals("OK", c.call("CINNABAR", "RESET"));
            assertEquals(0L, c.call("DBSIZE"));
            assertEquals(List.of("hz", "10"), c.call("CONFIG", "GET", "hz"));
        }
    }

    private static Object nullValue() {
        return null;
    }
}
