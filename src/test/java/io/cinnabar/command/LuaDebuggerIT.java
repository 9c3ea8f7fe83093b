package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.util.List;

import static io.cinnabar.command.Raw.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Lua debugger in SCRIPT DEBUG SYNC mode, what redis-cli --ldb-sync-mode drives: every
 * expected log below is what redis-server 7.0.15 sent for the same session.
 */
@CinnabarTest
class LuaDebuggerIT {
    private static final String SCRIPT = """
            local a = 1
            local b = {1,2,'x'}
            redis.call('set', KEYS[1], ARGV[1])
            return redis.call('get', KEYS[1])
            """;

    /** A connection in a debugging session of script, stopped at its first line. */
    private static RespSocket session(CinnabarServer server, String script, String... keysThenArgs) throws IOException {
        RespSocket s = new RespSocket(server.port());
        assertEquals("OK", s.call("SCRIPT", "DEBUG", "SYNC"));
        String[] eval = new String[keysThenArgs.length + 2];
        eval[0] = "EVAL";
        eval[1] = script;
        System.arraycopy(keysThenArgs, 0, eval, 2, keysThenArgs.length);
        s.send(eval);
        return s;
    }

    private static List<Object> log(String... lines) {
        return List.of((Object[]) lines);
    }

    @Test
    void stepsThroughLinesShowingCommandsRepliesAndLocals(CinnabarServer server, Jedis j) throws IOException {
        try (RespSocket s = session(server, SCRIPT, "1", "k", "v")) {
            assertEquals(log("* Stopped at 1, stop reason = step over", "-> 1   local a = 1"), s.read());
            assertEquals(log("* Stopped at 2, stop reason = step over", "-> 2   local b = {1,2,'x'}"), s.call("s"));
            // b is not in scope before its line has run.
            assertEquals(log("<value> a = 1"), s.call("p"));
            assertEquals(log("No such variable."), s.call("p", "b"));
            assertEquals(log("<value> {\"k\"}"), s.call("p", "KEYS"));
            assertEquals(log("* Stopped at 3, stop reason = step over", "-> 3   redis.call('set', KEYS[1], ARGV[1])"), s.call("s"));
            assertEquals(log("<redis> set k v", "<reply> \"+OK\"", "* Stopped at 4, stop reason = step over",
                    "-> 4   return redis.call('get', KEYS[1])"), s.call("next"));
            assertEquals(log("<value> a = 1", "<value> b = {1; 2; \"x\"}"), s.call("print"));
            assertEquals(log("   3   redis.call('set', KEYS[1], ARGV[1])", "-> 4   return redis.call('get', KEYS[1])"), s.call("l", "4", "1"));
            assertEquals(log("<retval> 2"), s.call("e", "1+1"));
            assertEquals(log("<error> ldb_eval:1: Script attempted to access nonexistent global variable 'a'"), s.call("e", "a"));
            assertEquals(log("<error> ldb_eval:1: x"), s.call("e", "error(\"x\")"));
            assertEquals(log("<redis> hgetall k", "<error> -WRONGTYPE Operation against a key holding the wrong kind of value",
                    "<reply> \"-WRONGTYPE Operation against a key holding the wrong kind of value\""), s.call("r", "hgetall", "k"));
            assertEquals(log("<redis> nosuch", "<error> Unknown Redis command called from script"), s.call("redis", "nosuch"));
            assertEquals(log("<error> Unknown Redis Lua debugger command or wrong number of arguments."), s.call("bogus"));
            // The session ends with its mark, then the EVAL's reply, then the server closes the connection.
            assertEquals(log("<endsession>"), s.call("c"));
            assertEquals("v", s.read());
            assertTrue(s.isClosedByServer());
        }
        assertEquals("v", j.get("k"), "SYNC mode keeps what the script wrote");
    }

    @Test
    void breakpointsTraceAndTheLimitOnLoggedValues(CinnabarServer server) throws IOException {
        String script = """
                local t = {}
                for i=1,3 do t[i] = i end
                local function g(x)
                  local y = x + 1
                  return y
                end
                local big = string.rep('x', 300)
                return g(1)
                """;
        try (RespSocket s = session(server, script, "0")) {
            s.read();
            assertEquals(log("   4     local y = x + 1", "  #5     return y", "   6   end"), s.call("b", "5"));
            assertEquals(log("Wrong line number."), s.call("b", "5"), "a line already set is refused, as in Redis");
            assertEquals(log("Invalid argument:'x'"), s.call("b", "x"));
            assertEquals(log("* Stopped at 5, stop reason = break point", "->#5     return y"), s.call("c"));
            assertEquals(log("<value> 1"), s.call("p", "x"));
            // "return g(1)" was a tail call: Lua 5.1 has no frame left for the top level, nor a name for g.
            assertEquals(log("No such variable."), s.call("p", "t"));
            assertEquals(log("In top level:", "->#5     return y"), s.call("t"));
            assertEquals(log("No such variable."), s.call("p", "big"), "a local of the top level, gone with it");
            assertEquals(log("<retval> \"" + "x".repeat(246) + " ...",
                    "<hint> The above reply was trimmed. Use 'maxlen 0' to disable trimming."), s.call("e", "string.rep('x', 300)"));
            assertEquals(log("<value> replies are truncated at 60 bytes."), s.call("maxlen", "10"));
            assertEquals(log("Breakpoint removed."), s.call("b", "-5"));
            assertEquals(log("No breakpoints set. Use 'b <line>' to add one."), s.call("b"));
            assertEquals(log("<endsession>"), s.call("c"));
            assertEquals(2L, s.read());
        }
    }

    @Test
    void deletingABreakpointMovesBytesNotLinesAsRedisDoes(CinnabarServer server) throws IOException {
        try (RespSocket s = session(server, "local a = 1\nlocal b = 2\nlocal c = 3\nlocal d = 4\nreturn 1", "0")) {
            s.read();
            s.call("b", "2", "3", "4");
            // ldbDelBreakpoint's memmove copies count-j bytes of its int array: line 4 is lost, 3 doubled.
            assertEquals(log("Breakpoint removed."), s.call("b", "-2"));
            assertEquals(log("2 breakpoints set:", "  #3   local c = 3", "  #3   local c = 3"), s.call("b"));
            assertEquals(log("* Stopped at 3, stop reason = break point", "->#3   local c = 3"), s.call("c"));
        }
    }

    @Test
    void redisBreakpointAndDebugFromTheScript(CinnabarServer server, Jedis j) throws IOException {
        assertEquals(0L, cmd(j, "EVAL", "return redis.breakpoint() and 1 or 0", "0"), "outside a session: false");
        String script = "redis.debug('hi', 1, {1,2}, {a=1}, nil, true)\nredis.breakpoint()\nlocal x = 5\nreturn x\n";
        try (RespSocket s = session(server, script, "0")) {
            s.read();
            assertEquals(log("<debug> line 1: \"hi\", 1, {1; 2}, {[\"a\"]=1}, nil, true",
                    "* Stopped at 3, stop reason = redis.breakpoint() called", "-> 3   local x = 5"), s.call("c"));
            assertEquals(log("<endsession>"), s.call("c"));
            assertEquals(5L, s.read());
        }
    }

    @Test
    void abortAndBrokenRequestsEndTheScriptWithAnError(CinnabarServer server) throws IOException {
        try (RespSocket s = session(server, "return 1", "0")) {
            s.read();
            assertEquals(log("<endsession>"), s.call("a"));
            assertEquals(new RespSocket.Error("ERR script aborted for user request script: "
                    + "e0e1f9fabfc9d4800c877a703b823ac0578ff8db, on @user_script:1."), s.read());
            assertTrue(s.isClosedByServer());
        }
        // Redis's test "Test scripting debug protocol parsing": a command unknown to the debugger,
        // then a request its reader refuses (an empty argument).
        try (RespSocket s = session(server, "return 1", "0")) {
            s.read();
            assertEquals(log("<error> Unknown Redis Lua debugger command or wrong number of arguments."), s.call("hello"));
            s.socket().getOutputStream().write("*2\r\n$0\r\n\r\n$1\r\nx\r\n".getBytes());
            assertEquals(log("<endsession>"), s.read());
            assertEquals(new RespSocket.Error("ERR protocol error script: e0e1f9fabfc9d4800c877a703b823ac0578ff8db, on @user_script:1."), s.read());
        }
        // Redis's "Test scripting debug lua stack overflow": redis with 100 arguments.
        try (RespSocket s = session(server, "return 'hello'", "0")) {
            s.read();
            StringBuilder request = new StringBuilder("*101\r\n$5\r\nredis\r\n");
            for (int i = 0; i < 100; i++) request.append("$4\r\ntest\r\n");
            s.socket().getOutputStream().write(request.toString().getBytes());
            assertEquals(log("<redis> test test test test test test test test test test ... (89 more)",
                    "<error> Unknown Redis command called from script"), s.read());
        }
    }

    @Test
    void aClientThatLeavesLetsTheScriptFinish(CinnabarServer server, Jedis j) throws IOException {
        try (RespSocket s = session(server, "redis.call('set','a','1')\nredis.call('set','b','2')\nreturn 1", "0")) {
            s.read();
        }
        // The next command waits for the session's end: the script ran on without stopping.
        assertEquals(List.of("1", "2"), j.mget("a", "b"));
    }

    @Test
    void aScriptPastTheBusyThresholdStops(CinnabarServer server, Jedis j) throws IOException {
        j.configSet("busy-reply-threshold", "50");
        try (RespSocket s = session(server, "local i = 0\nwhile true do\n  i = i + 1\nend\n", "0")) {
            s.read();
            assertEquals(log("* Stopped at 3, stop reason = timeout reached, infinite loop?", "-> 3     i = i + 1"), s.call("c"));
            assertEquals(log("<endsession>"), s.call("abort"));
        } finally {
            j.configSet("busy-reply-threshold", "5000");
        }
    }

    @Test
    void modesOtherThanSyncAndEvalsha(Jedis j) {
        assertEquals("OK", cmd(j, "SCRIPT", "DEBUG", "SYNC"));
        assertEquals("ERR Please use EVAL instead of EVALSHA for debugging", Raw.error(() -> cmd(j, "EVALSHA", "a".repeat(40), "0")));
        assertEquals("OK", cmd(j, "SCRIPT", "DEBUG", "NO"));
        assertEquals(1L, cmd(j, "EVAL", "return 1", "0"), "NO ends debugging");
        // YES debugs in a fork()ed child; without fork() the EVAL fails as Redis's does when fork() fails,
        // instead of running for real, and the mode ends.
        assertEquals("OK", cmd(j, "SCRIPT", "DEBUG", "YES"));
        assertEquals("ERR Fork() failed: can't run EVAL in debugging mode: Function not implemented",
                Raw.error(() -> cmd(j, "EVAL", "return redis.call('set', 'forked', '1')", "0")));
        assertEquals(false, j.exists("forked"));
        assertEquals(1L, cmd(j, "EVAL", "return 1", "0"));
        assertEquals("ERR Use SCRIPT DEBUG YES/SYNC/NO", Raw.error(() -> cmd(j, "SCRIPT", "DEBUG", "maybe")));
    }
}
