package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.util.List;

import static io.cinnabar.command.Raw.cmd;
import static io.cinnabar.command.Raw.str;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@CinnabarTest
class ClientCommandsIT {
    private static final String LINE = "id=\\d+ addr=[^ ]+:\\d+ laddr=[^ ]+:\\d+ fd=\\d+ name=[^ ]* age=\\d+ idle=\\d+ "
            + "flags=[A-Za-z]+ db=\\d+ sub=0 psub=0 ssub=0 multi=-?\\d+ qbuf=\\d+ qbuf-free=\\d+ argv-mem=\\d+ "
            + "multi-mem=\\d+ rbs=\\d+ rbp=\\d+ obl=0 oll=0 omem=0 tot-mem=\\d+ events=r cmd=[a-z|-]+ user=default "
            + "redir=-1 resp=[23]";

    @Test
    void listAndInfoLinesHaveRedis70Fields(Jedis jedis) {
        String info = str(jedis, "CLIENT", "INFO");
        assertTrue(info.matches(LINE + "\n"), info);
        assertTrue(info.contains(" flags=N db=0 ") && info.contains(" qbuf=26 ") && info.contains(" cmd=client|info "), info);
        String list = jedis.clientList();
        for (String line : list.split("\n")) assertTrue(line.matches(LINE), line);
        long id = jedis.clientId();
        assertTrue(str(jedis, "CLIENT", "LIST", "ID", Long.toString(id)).startsWith("id=" + id + " "));
        assertTrue(str(jedis, "CLIENT", "LIST", "TYPE", "normal").contains("id=" + id + " "));
        assertEquals("", str(jedis, "CLIENT", "LIST", "TYPE", "pubsub"));
    }

    @Test
    void names(CinnabarServer server) {
        // A connection of its own: the extension names those it injects.
        try (Jedis jedis = new Jedis(server.host(), server.port())) {
            names(jedis);
        }
    }

    private static void names(Jedis jedis) {
        assertNull(jedis.clientGetname());
        assertEquals("OK", jedis.clientSetname("worker-1"));
        assertEquals("worker-1", jedis.clientGetname());
        assertTrue(jedis.clientList().contains(" name=worker-1 "));
        JedisDataException e = assertThrows(JedisDataException.class, () -> jedis.clientSetname("a b"));
        assertEquals("ERR Client names cannot contain spaces, newlines or special characters.", e.getMessage());
        jedis.clientSetname("");
        assertNull(jedis.clientGetname());
    }

    @Test
    void killClosesTheOtherSocket(Jedis jedis, CinnabarServer server) {
        try (Jedis victim = new Jedis("127.0.0.1", server.port())) {
            long vid = victim.clientId();
            assertEquals(1L, cmd(jedis, "CLIENT", "KILL", "ID", Long.toString(vid)));
            assertThrows(Exception.class, victim::ping);
            assertEquals(0L, cmd(jedis, "CLIENT", "KILL", "ID", Long.toString(vid)));
        }
        try (Jedis victim = new Jedis("127.0.0.1", server.port())) {
            victim.ping();
            String addr = str(victim, "CLIENT", "INFO").split(" ")[1].substring("addr=".length());
            assertEquals("OK", str(jedis, "CLIENT", "KILL", addr));
            JedisDataException e = assertThrows(JedisDataException.class, () -> cmd(jedis, "CLIENT", "KILL", addr));
            assertEquals("ERR No such client", e.getMessage());
        }
    }

    @Test
    void killArgumentErrors(Jedis jedis) {
        assertError(jedis, "ERR wrong number of arguments for 'client|kill' command", "CLIENT", "KILL");
        assertError(jedis, "ERR syntax error", "CLIENT", "KILL", "ID", "10", "wrong_arg");
        assertError(jedis, "ERR client-id should be greater than 0", "CLIENT", "KILL", "ID", "0");
        assertError(jedis, "ERR Unknown client type 'wrong'", "CLIENT", "KILL", "TYPE", "wrong");
        // getClientTypeByName's strcasecmp and the %s quote end at a NUL byte.
        assertError(jedis, "ERR Unknown client type 'wrong'", "CLIENT", "KILL", "TYPE", "wrong\0x");
        assertError(jedis, "ERR Unknown client type 'wrong'", "CLIENT", "LIST", "TYPE", "wrong\0x");
        assertEquals(0L, cmd(jedis, "CLIENT", "KILL", "TYPE", "Pubsub\0x"));
        assertError(jedis, "ERR No such user 'nobody'", "CLIENT", "KILL", "USER", "nobody");
        assertError(jedis, "ERR syntax error", "CLIENT", "KILL", "SKIPME", "maybe");
        // SKIPME defaults to yes: killing every normal client spares the caller.
        assertEquals(0L, cmd(jedis, "CLIENT", "KILL", "TYPE", "normal"));
        assertEquals("PONG", jedis.ping());
    }

    @Test
    void insideExecTheClientIsStillInItsTransaction(Jedis jedis) {
        // As Redis, which clears CLIENT_MULTI when EXEC ends (found by diff-fuzz seed 101: an ACL LOG
        // entry's client-info written inside EXEC).
        cmd(jedis, "MULTI");
        cmd(jedis, "SET", "a", "b");
        cmd(jedis, "CLIENT", "INFO");
        String info = (String) ((List<?>) cmd(jedis, "EXEC")).get(1);
        assertTrue(info.contains(" flags=x ") && info.contains(" multi=2 "), info);
        assertTrue(str(jedis, "CLIENT", "INFO").contains(" flags=N ") );
    }

    @Test
    void unblockWithTooManyArgumentsGetsTheGenericAnswer(Jedis jedis) {
        // Found by diff-fuzz --families server, seed 1: CLIENT UNBLOCK -1 ERROR abc said "syntax error".
        assertError(jedis, "ERR unknown subcommand or wrong number of arguments for 'UNBLOCK'. Try CLIENT HELP.",
                "CLIENT", "UNBLOCK", "-1", "ERROR", "abc");
        assertError(jedis, "ERR unknown subcommand or wrong number of arguments for 'unblock'. Try CLIENT HELP.",
                "client", "unblock", "1", "TIMEOUT", "x", "y");
        assertError(jedis, "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR", "CLIENT", "UNBLOCK", "1", "NOPE");
        assertEquals(0L, cmd(jedis, "CLIENT", "UNBLOCK", "999999", "TIMEOUT"));
    }

    @Test
    void flagsAndModes(Jedis jedis) {
        assertEquals("OK", str(jedis, "CLIENT", "NO-EVICT", "on"));
        assertTrue(str(jedis, "CLIENT", "INFO").contains(" flags=e "));
        assertEquals("OK", str(jedis, "CLIENT", "NO-EVICT", "off"));
        assertError(jedis, "ERR syntax error", "CLIENT", "NO-EVICT", "maybe");
        // Redis 7.2's subcommands are unknown to 7.0 (clients that send SETINFO on connect ignore the error).
        assertError(jedis, "ERR unknown subcommand 'SETINFO'. Try CLIENT HELP.", "CLIENT", "SETINFO", "LIB-NAME", "mylib");
        assertError(jedis, "ERR unknown subcommand 'no-touch'. Try CLIENT HELP.", "CLIENT", "no-touch", "on");
        assertError(jedis, "ERR unknown subcommand 'nope'. Try CLIENT HELP.", "CLIENT", "nope");
        assertTrue(((java.util.List<?>) cmd(jedis, "CLIENT", "HELP")).size() > 10);
    }

    @Test
    void lettuceConnectsAndSeesResp3(CinnabarServer server) {
        var client = Lettuce.client(server.port());
        try (var conn = client.connect()) {
            String info = conn.sync().clientInfo();
            assertTrue(info.contains(" resp=3"), info);
        } finally {
            client.shutdown();
        }
    }

    private static void assertError(Jedis jedis, String expected, String name, String... args) {
        JedisDataException e = assertThrows(JedisDataException.class, () -> cmd(jedis, name, args));
        assertEquals(expected, e.getMessage());
    }

    @Test
    void subscribedClientsAreOfTypePubsub(CinnabarServer server, Jedis jedis) throws Exception {
        try (RespSocket resp2 = new RespSocket(server.port()); RespSocket resp3 = new RespSocket(server.port())) {
            resp2.call("SUBSCRIBE", "ch");
            resp3.call("HELLO", "3");
            resp3.call("PSUBSCRIBE", "p*");
            String pubsub = str(jedis, "CLIENT", "LIST", "TYPE", "pubsub");
            assertEquals(2, pubsub.split("\n").length, pubsub);
            assertTrue(!str(jedis, "CLIENT", "LIST", "TYPE", "normal").contains(" flags=P "));
            assertEquals(2L, cmd(jedis, "CLIENT", "KILL", "TYPE", "pubsub"));
            assertTrue(resp2.isClosedByServer());
        }
    }

    @Test
    void resetKeepsNoEvict(Jedis jedis) {
        // Redis's clearClientConnectionState leaves CLIENT_NO_EVICT set.
        cmd(jedis, "CLIENT", "NO-EVICT", "on");
        assertEquals("RESET", str(jedis, "RESET"));
        assertTrue(str(jedis, "CLIENT", "INFO").contains(" flags=e "));
        cmd(jedis, "CLIENT", "NO-EVICT", "off");
    }
}
