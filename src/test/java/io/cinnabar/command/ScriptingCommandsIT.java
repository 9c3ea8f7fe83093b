package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import io.cinnabar.util.OwnThread;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.cinnabar.command.Raw.cmd;
import static io.cinnabar.command.Raw.error;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@CinnabarTest(options = {"enable-debug-command", "yes"})
class ScriptingCommandsIT {
    private static Object eval(Jedis j, String script, String... keysThenArgs) {
        String[] args = new String[keysThenArgs.length + 1];
        args[0] = script;
        System.arraycopy(keysThenArgs, 0, args, 1, keysThenArgs.length);
        return cmd(j, "EVAL", args);
    }

    /** EVAL with numkeys 0. */
    private static Object run(Jedis j, String script) {
        return eval(j, script, "0");
    }

    private static String sha1(String s) throws Exception {
        return java.util.HexFormat.of().formatHex(
                java.security.MessageDigest.getInstance("SHA-1").digest(s.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void luaValuesBecomeReplies(Jedis j) {
        assertEquals("hello", run(j, "return 'hello'"));
        assertEquals(100L, run(j, "return 100.5"));
        assertEquals(-3L, run(j, "return -3.99"));
        assertEquals(1L, run(j, "return true"));
        assertNull(run(j, "return false"));
        assertNull(run(j, "return nil"));
        assertEquals("fine", run(j, "return {ok='fine'}"));
        assertEquals("My Error", error(() -> run(j, "return {err='My Error'}")));
        assertEquals(List.of(1L, 2L, 3L, "ciao", List.of(1L, 2L)), run(j, "return {1,2,3,'ciao',{1,2}}"));
        assertEquals(List.of(1L, 2L), run(j, "return {1,2,nil,4}"), "arrays stop at the first nil");
        assertEquals(List.of("a", "b", "c", "d"), eval(j, "return {KEYS[1],KEYS[2],ARGV[1],ARGV[2]}", "2", "a", "b", "c", "d"));
    }

    @Test
    void repliesBecomeLuaValues(Jedis j) {
        j.set("s", "v");
        j.rpush("l", "x", "y");
        assertEquals("number 3", run(j, "local n = redis.call('incrby', 'n', 3) return type(n) .. ' ' .. n"));
        assertEquals("string v", run(j, "local v = redis.call('get', 's') return type(v) .. ' ' .. v"));
        assertEquals("boolean false", run(j, "local v = redis.call('get', 'none') return type(v) .. ' ' .. tostring(v)"));
        assertEquals("OK", run(j, "return redis.call('set', 's', 'w')['ok']"));
        assertEquals(List.of("x", "y"), run(j, "return redis.call('lrange', 'l', 0, -1)"));
        assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value",
                run(j, "return redis.pcall('incr', 'l')['err']"));
        assertEquals("3.1400000000000001", run(j, "redis.call('set', 'f', 3.14) return redis.call('get', 'f')"),
                "numbers are passed as %.17g");
    }

    @Test
    void resp3ConversionsAfterSetresp(Jedis j) {
        j.hset("h", "f", "v");
        assertEquals("v", run(j, "redis.setresp(3) return redis.call('hgetall', 'h')['map']['f']"));
        assertEquals("nil", run(j, "redis.setresp(3) return tostring(redis.call('get', 'none'))"));
        assertEquals(List.of("f", "v"), run(j, "redis.setresp(2) return redis.call('hgetall', 'h')"));
        assertEquals("3.5", run(j, "return {double=3.5}"));
        assertEquals(List.of("a", 1L), run(j, "return {map={a=1}}"));
        assertEquals("RESP version must be 2 or 3.", error(() -> run(j, "redis.setresp(4)")).split(" script:")[0].substring(4));
    }

    @Test
    void errorsCarryRedisShapes(Jedis j) throws Exception {
        String script = "return foo";
        assertEquals("ERR user_script:1: Script attempted to access nonexistent global variable 'foo' script: "
                + sha1(script) + ", on @user_script:1.", error(() -> run(j, script)));
        String unknown = "return redis.call('nosuch')";
        assertEquals("ERR Unknown Redis command called from script script: " + sha1(unknown) + ", on @user_script:1.",
                error(() -> run(j, unknown)));
        assertTrue(error(() -> run(j, "return redis.call('incr')")).startsWith("ERR Wrong number of args calling Redis command from script"));
        assertTrue(error(() -> run(j, "return redis.call('multi')")).startsWith("ERR This Redis command is not allowed from script"));
        assertTrue(error(() -> run(j, "return redis.call('incr', 's', 'x', {})")).startsWith(
                "ERR Lua redis lib command arguments must be strings or integers"));
        assertTrue(error(() -> run(j, "error('boom')")).startsWith("ERR user_script:1: boom script: "));
        assertEquals("My Error", error(() -> run(j, "return redis.error_reply('My Error')")));
        assertEquals("Fine", run(j, "return redis.status_reply('Fine')"));
        assertEquals(List.of(0L, "ERR Unknown Redis command called from script"),
                run(j, "local ok, e = pcall(redis.call, 'nosuch') return {ok and 1 or 0, e}"));
        assertTrue(error(() -> run(j, "return 1+")).startsWith("ERR Error compiling script (new function): user_script:1: "));
        assertEquals("ERR Number of keys can't be greater than number of args", error(() -> eval(j, "return 1", "2", "a")));
        assertEquals("ERR Number of keys can't be negative", error(() -> eval(j, "return 1", "-1")));
        assertEquals("ERR value is not an integer or out of range", error(() -> eval(j, "return 1", "x")));
    }

    @Test
    void sandbox(Jedis j) {
        for (String global : List.of("os", "io", "loadfile", "dofile", "print", "require", "debug")) {
            assertTrue(error(() -> run(j, "return " + global)).contains(
                    "Script attempted to access nonexistent global variable '" + global + "'"), global);
        }
        assertTrue(error(() -> run(j, "a = 1")).contains("Attempt to modify a readonly table"));
        assertTrue(error(() -> run(j, "setmetatable(_G, {})")).contains("Attempt to modify a readonly table"));
        assertTrue(error(() -> run(j, "string.foo = 1")).contains("Attempt to modify a readonly table"));
        assertTrue(error(() -> run(j, "redis.call = function() end")).contains("Attempt to modify a readonly table"));
        assertEquals(3L, run(j, "local t = {} t.x = 3 return t.x"), "local tables stay writable");
        assertEquals(List.of(1L, 2L, 3L), run(j, "return {unpack({1,2,3})}"));
        assertEquals(3L, run(j, "return table.getn({1,2,3})"));
        assertEquals(1L, run(j, "return math.mod(7, 3)"));
        // Redis's answers: C's exact fmod, and libm's tanh where Java 24+'s Math.tanh ends in ...036.
        assertEquals("0.21894860001332273", run(j, "return string.format('%.17g', math.fmod(939167.0189486, 1.3))"));
        assertEquals("-1.5", run(j, "return string.format('%.17g', math.fmod(-5.5, 2))"));
        assertEquals("0.4937795529336203", run(j, "return string.format('%.17g', math.tanh(0.5410462796616011))"));
        assertEquals(5L, run(j, "return loadstring('return 5')()"));
        assertEquals("Lua 5.1", run(j, "return _VERSION"));
        assertEquals(" 3.14|3|0.1|0.0001|1e+20|\"a\\\"b\"", run(j,
                "return string.format('%5.2f|%d|%s|%g|%s|%q', 3.14159, 3.7, 0.1, 0.0001, 1e20, 'a\"b')"), "C's printf, Lua 5.1's %s");
    }

    @Test
    void shebangFlagsAndReadOnlyScripts(Jedis j) {
        assertEquals("ERR Unexpected flag in script shebang: foo", error(() -> run(j, "#!lua flags=foo\nreturn 1")));
        assertEquals("ERR Unknown lua shebang option: foo=bar", error(() -> run(j, "#!lua foo=bar\nreturn 1")));
        assertEquals("ERR Unexpected engine in script shebang: #!luax", error(() -> run(j, "#!luax\nreturn 1")));
        assertEquals("ERR Invalid script shebang", error(() -> run(j, "#!lua")));
        assertTrue(error(() -> run(j, "#!lua flags=no-writes\nreturn redis.call('set','a','b')"))
                .startsWith("ERR Write commands are not allowed from read-only scripts. script: "));
        assertTrue(error(() -> cmd(j, "EVAL_RO", "return redis.call('set','a','b')", "0"))
                .startsWith("ERR Write commands are not allowed from read-only scripts."));
        assertEquals("ERR Can not execute a script with write flag using *_ro command.",
                error(() -> cmd(j, "EVAL_RO", "#!lua\nreturn 1", "0")));
        j.set("k", "v");
        assertEquals("v", cmd(j, "EVAL_RO", "#!lua flags=no-writes,allow-oom\nreturn redis.call('get', KEYS[1])", "1", "k"));
        assertFalse(j.exists("a"));
    }

    @Test
    void scriptCache(Jedis j) throws Exception {
        String sha = (String) cmd(j, "SCRIPT", "LOAD", "return ARGV[1]");
        assertEquals(sha1("return ARGV[1]"), sha);
        assertEquals("x", cmd(j, "EVALSHA", sha, "0", "x"));
        assertEquals("y", cmd(j, "EVALSHA", sha.toUpperCase(), "0", "y"));
        assertEquals("z", cmd(j, "EVALSHA_RO", sha, "0", "z"));
        assertEquals(List.of(1L, 0L), cmd(j, "SCRIPT", "EXISTS", sha, "ffffffffffffffffffffffffffffffffffffffff"));
        assertEquals("OK", cmd(j, "SCRIPT", "FLUSH", "ASYNC"));
        assertEquals(List.of(0L), cmd(j, "SCRIPT", "EXISTS", sha));
        assertEquals("NOSCRIPT No matching script. Please use EVAL.", error(() -> cmd(j, "EVALSHA", sha, "0")));
        assertEquals("NOSCRIPT No matching script. Please use EVAL.", error(() -> cmd(j, "EVALSHA", "abc", "0")));
        assertEquals("ERR SCRIPT FLUSH only support SYNC|ASYNC option", error(() -> cmd(j, "SCRIPT", "FLUSH", "x")));
        assertEquals("NOTBUSY No scripts in execution right now.", error(() -> cmd(j, "SCRIPT", "KILL")));
        assertEquals("LOAD <script>", ((List<?>) cmd(j, "SCRIPT", "HELP")).get(13));
    }

    @Test
    void evalshaOfAShaOfTheWrongLengthFailsBeforeNumkeys(Jedis j) {
        // Found by diff-fuzz --families scripts2 seed 1: EVALSHA_RO <41 chars> 1 said "Number of keys ...".
        assertEquals("NOSCRIPT No matching script. Please use EVAL.", error(() -> cmd(j, "EVALSHA_RO", "x".repeat(41), "1")));
        assertEquals("NOSCRIPT No matching script. Please use EVAL.", error(() -> cmd(j, "EVALSHA", "abc", "abc", "k")));
        assertEquals("NOSCRIPT No matching script. Please use EVAL.", error(() -> cmd(j, "EVALSHA", "", "-1")));
        assertEquals("ERR value is not an integer or out of range", error(() -> cmd(j, "EVALSHA", "f".repeat(40), "abc")));
    }

    @Test
    void scriptDebugRefusedWhileRepliesArePending(Jedis j, CinnabarServer server) throws Exception {
        // Found by diff-fuzz seed 31 (all families): MULTI, ..., SCRIPT DEBUG NO, EXEC answered OK inside EXEC.
        assertEquals("OK", cmd(j, "SCRIPT", "DEBUG", "NO"));
        try (RespSocket s = new RespSocket(server.port())) {
            s.send("MULTI");
            assertEquals("OK", s.read());
            s.send("SCRIPT", "DEBUG", "NO");
            assertEquals("QUEUED", s.read());
            s.send("EXEC");
            assertEquals(List.of(new RespSocket.Error("ERR SCRIPT DEBUG must be called outside a pipeline")), s.read());
        }
        // A pipeline: the PING's reply is still pending when SCRIPT DEBUG runs.
        try (java.net.Socket raw = new java.net.Socket("127.0.0.1", server.port())) {
            byte[] ping = RespSocket.encode("PING"), debug = RespSocket.encode("SCRIPT", "DEBUG", "maybe");
            byte[] both = Arrays.copyOf(ping, ping.length + debug.length);
            System.arraycopy(debug, 0, both, ping.length, debug.length);
            raw.getOutputStream().write(both);
            raw.setSoTimeout(10_000);
            String expected = "+PONG\r\n-ERR SCRIPT DEBUG must be called outside a pipeline\r\n";
            byte[] got = raw.getInputStream().readNBytes(expected.length());
            assertEquals(expected, new String(got, StandardCharsets.UTF_8));
        }
    }

    @Test
    void aContainerCalledAloneFromAScriptIsAnArityError(Jedis j) {
        // As Redis's lookupCommand (the same fix as ACL DRYRUN u CONFIG, found by diff-fuzz --families acl, seed 3).
        assertTrue(error(() -> cmd(j, "EVAL", "return redis.call('config')", "0"))
                .startsWith("ERR Wrong number of args calling Redis command from script"));
        assertEquals(1L, cmd(j, "EVAL", "return redis.acl_check_cmd('config')", "0"));
    }

    @Test
    void selectInsideScriptLeavesTheCallerAlone(Jedis j) {
        assertEquals("OK", run(j, "redis.call('select', 9) return redis.call('set', 'x', 'in9')"));
        assertNull(j.get("x"));
        j.select(9);
        assertEquals("in9", j.get("x"));
        j.select(0);
    }

    @Test
    void unsortedSetsComeOutSortedInScripts(Jedis j) {
        j.sadd("set", "d", "b", "c", "a");
        assertEquals(List.of("a", "b", "c", "d"), eval(j, "return redis.call('sort', KEYS[1], 'by', 'nosort')", "1", "set"));
    }

    @Test
    void scriptsNestInsideTransactions(Jedis j) {
        cmd(j, "MULTI");
        assertEquals("QUEUED", run(j, "return redis.call('incr', 'c')"));
        cmd(j, "INCR", "c");
        assertEquals(List.of(1L, 2L), cmd(j, "EXEC"));
    }

    @Test
    void bundledLibraries(Jedis j) {
        assertEquals("[1,2,\"x\",{\"a\":1}]", run(j, "return cjson.encode({1,2,'x',{a=1}})"));
        assertEquals(List.of("a", 2L), run(j, "local d = cjson.decode('{\"k\":\"a\",\"n\":[1,2.5]}') return {d.k, d.n[2]}"));
        assertEquals("cb3fb999999999999a", run(j,
                "local e = cmsgpack.pack(0.1) local h = '' for i = 1, #e do h = h .. string.format('%02x', string.byte(e, i)) end return h"));
        assertEquals(List.of(1L, "hello"), run(j, "local t, s = cmsgpack.unpack(cmsgpack.pack({1}, 'hello')) return {t[1], s}"));
        assertEquals(List.of(1L, 7L, 6L, -2147483648L), run(j, "return {bit.band(5,3), bit.bor(5,3), bit.bxor(5,3), bit.lshift(1,31)}"));
        assertEquals(List.of(-7L, 5L), run(j, "return {struct.unpack('<i4', struct.pack('<i4', -7))}"));
    }

    @Test
    void bitOperandsAreTheLow32BitsOfTheNumberPlus2To52Plus2To51(Jedis j) {
        assertEquals(List.of(2L, 4L, -2L, 5L, -1L), run(j, "return {bit.tobit(2.5), bit.tobit(3.5), bit.tobit(-2.5), bit.tobit(2^32 + 5), bit.tobit(-1)}"));
        assertEquals(List.of(937459712L, 2025163840L), run(j, "return {bit.tobit(1e16), bit.rshift(1e20, 0)}"));
    }

    @Test
    void cjsonSettingsLastUntilScriptFlushAndChangeEncodingAndDecoding(Jedis j) {
        try {
            assertEquals(List.of(1L, 1L, 2L), run(j, "return {cjson.encode_sparse_array(true, 1, 2)}"));
            assertEquals("{\"1\":1,\"20\":2}", run(j, "return cjson.encode({[1] = 1, [20] = 2})"));
            assertEquals("{\"1.23\":1.23}", run(j, "cjson.encode_number_precision(3) return cjson.encode({[1.23456] = 1.23456})"));
            assertEquals("[null,null]", run(j, "cjson.encode_invalid_numbers('null') return cjson.encode({1/0, 0/0})"));
            assertEquals("[inf,nan,-inf]", run(j, "cjson.encode_invalid_numbers(true) return cjson.encode({1/0, 0/0, -1/0})"));
            assertEquals("ERR user_script:1: Expected value but found invalid number at character 5 script: ",
                    errorUpToSha(j, "cjson.decode_invalid_numbers(false) return cjson.decode('[1, 012]')"));
        } finally {
            j.scriptFlush();
        }
        assertEquals("ERR user_script:1: Cannot serialise table: excessively sparse array script: ", errorUpToSha(j, "return cjson.encode({[1] = 1, [20] = 2})"));
        assertEquals(List.of("inf", "-16", "1", "16"), run(j, "local d = cjson.decode('[inf, -0x1p4, +1, 0x10]') return {tostring(d[1]), tostring(d[2]), tostring(d[3]), tostring(d[4])}"));
        assertEquals("ERR user_script:1: bad argument #2 to 'encode_max_depth' (found too many arguments) script: ", errorUpToSha(j, "return cjson.encode_max_depth(1, 2)"));
        assertEquals("ERR user_script:1: bad argument #1 to 'encode_number_precision' (expected integer between 1 and 14) script: ",
                errorUpToSha(j, "return cjson.encode_number_precision(15)"));
        assertEquals("ERR user_script:1: bad argument #1 to 'encode_invalid_numbers' (invalid option 'x') script: ",
                errorUpToSha(j, "return cjson.encode_invalid_numbers('x')"));
        assertEquals("ERR user_script:1: Expected value but found invalid number at character 1 script: ", errorUpToSha(j, "return cjson.decode('+abc')"));
    }

    /** A script's error reply up to the script's SHA, which follows "script: ". */
    private static String errorUpToSha(Jedis j, String script) {
        try {
            run(j, script);
        } catch (redis.clients.jedis.exceptions.JedisDataException e) {
            return e.getMessage().substring(0, e.getMessage().indexOf("script: ") + "script: ".length());
        }
        throw new AssertionError("no error from " + script);
    }

    @Test
    void busyScriptsAnswerBusyAndCanBeKilled() throws Exception {
        // Its own server: SHUTDOWN NOSAVE ends it.
        try (CinnabarServer server = CinnabarServer.builder().port(0).option("busy-reply-threshold", "50").build().start();
             Jedis j = new Jedis(server.host(), server.port());
             Jedis looping = new Jedis(server.host(), server.port());
             RespSocket watcher = new RespSocket(server.port());
             RespSocket limited = new RespSocket(server.port());
             RespSocket subscriber = new RespSocket(server.port())) {
            assertEquals("OK", watcher.call("WATCH", "x"));
            assertEquals(List.of("subscribe", "ch", 1L), subscriber.call("SUBSCRIBE", "ch"));
            assertEquals("OK", cmd(j, "ACL", "SETUSER", "lim", "on", "nopass", "-@all", "+ping", "+auth"));
            assertEquals("OK", limited.call("AUTH", "lim", "x"));
            CompletableFuture<String> looped = OwnThread.supply(() -> error(() -> run(looping, "while true do end")));
            awaitBusy(j);
            assertEquals("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.",
                    error(() -> j.get("x")));
            // UNWATCH runs while busy, its watches dropped between two of the script's instructions (see below).
            assertEquals("OK", watcher.call("UNWATCH"));
            // ACLs are checked before BUSY, as in Redis: a user without SCRIPT KILL kills nothing.
            assertEquals(new RespSocket.Error("NOPERM this user has no permissions to run the 'script|kill' command"),
                    limited.call("SCRIPT", "KILL"));
            assertEquals(new RespSocket.Error("NOPERM this user has no permissions to run the 'get' command"), limited.call("GET", "x"));
            assertEquals(new RespSocket.Error("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."),
                    limited.call("PING"));
            assertFalse(looped.isDone(), "SCRIPT KILL refused by ACL kills nothing");
            // So are a RESP2 subscriber's commands and DEBUG when not enabled, with their own errors.
            assertEquals(new RespSocket.Error("ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / "
                    + "RESET are allowed in this context"), subscriber.call("GET", "x"));
            assertEquals(new RespSocket.Error("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."),
                    subscriber.call("PING"));
            assertEquals(new RespSocket.Error("ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", "
                    + "you can run it from a local connection, otherwise you need to set this option in the configuration file, "
                    + "and then restart the server."), limited.call("DEBUG", "SLEEP", "0"));
            assertEquals("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.",
                    error(() -> j.shutdown()));
            // A client connecting meanwhile gets through its handshake, and the errors checked before BUSY.
            try (RespSocket late = new RespSocket(server.port())) {
                List<?> hello = (List<?>) late.call("HELLO", "3", "SETNAME", "late");
                assertEquals(List.of("proto", 3L), hello.subList(4, 6));
                assertEquals(new RespSocket.Error("ERR AUTH <password> called without any password configured for the default user. "
                        + "Are you sure your configuration is correct?"), late.call("AUTH", "pw"));
                assertEquals(new RespSocket.Error("ERR wrong number of arguments for 'get' command"), late.call("GET"));
                assertEquals(new RespSocket.Error("ERR unknown command 'NOPE', with args beginning with: "), late.call("NOPE"));
                assertEquals(new RespSocket.Error("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."),
                        late.call("GET", "x"));
                // A refused EVAL inside MULTI flags the transaction; the refused EXEC then discards it.
                assertEquals("OK", late.call("MULTI"));
                assertEquals(new RespSocket.Error("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."),
                        late.call("EVAL", "return 1", "0"));
                assertEquals(new RespSocket.Error("EXECABORT Transaction discarded because of: BUSY Redis is busy running a script. "
                        + "You can only call SCRIPT KILL or SHUTDOWN NOSAVE."), late.call("EXEC"));
                // In MULTI, what passes the busy check (ALLOW_BUSY) is queued like any command, as in Redis's
                // processCommand: SCRIPT KILL and FUNCTION KILL kill nothing; SHUTDOWN (NO_MULTI) is refused
                // before the busy check, with its own error (checked against redis-server 7.0.15).
                assertEquals("OK", late.call("MULTI"));
                assertEquals("QUEUED", late.call("SCRIPT", "KILL"));
                assertEquals("QUEUED", late.call("FUNCTION", "KILL"));
                assertEquals(new RespSocket.Error("ERR Command not allowed inside a transaction"), late.call("SHUTDOWN", "NOSAVE"));
                assertEquals("QUEUED", late.call("UNWATCH"));
                assertEquals("QUEUED", late.call("FUNCTION", "STATS"));
                assertEquals(new RespSocket.Error("EXECABORT Transaction discarded because of: BUSY Redis is busy running a script. "
                        + "You can only call SCRIPT KILL or SHUTDOWN NOSAVE."), late.call("EXEC"));
                assertFalse(looped.isDone(), "a queued SCRIPT KILL kills nothing");
                // DISCARD and UNWATCH run while busy (ALLOW_BUSY), and WATCH inside MULTI gets its own error:
                // the client leaves its transaction, where a BUSY DISCARD left it queueing.
                assertEquals(new RespSocket.Error("ERR DISCARD without MULTI"), late.call("DISCARD"));
                assertEquals("OK", late.call("UNWATCH"));
                assertEquals("OK", late.call("MULTI"));
                assertEquals(new RespSocket.Error("ERR WATCH inside MULTI is not allowed"), late.call("WATCH", "x"));
                assertEquals("OK", late.call("DISCARD"));
                assertEquals("OK", late.call("MULTI"));
                assertEquals(new RespSocket.Error("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."),
                        late.call("GET", "x"));
                assertEquals("OK", late.call("DISCARD"));
                assertEquals(new RespSocket.Error("ERR DISCARD without MULTI"), late.call("DISCARD"));
                assertEquals("OK", late.call("QUIT"));
            }
            assertEquals("OK", cmd(j, "SCRIPT", "KILL"));
            assertTrue(looped.get(10, TimeUnit.SECONDS).startsWith("ERR Script killed by user with SCRIPT KILL... script: "));
            assertEquals("PONG", j.ping());
            assertEquals("PONG", looping.ping(), "the script's connection goes on");
            List<?> aclLog = (List<?>) watcher.call("ACL", "LOG");
            assertEquals(2, aclLog.size(), "the two refusals are logged once the script ended");
            assertTrue(aclLog.get(0).toString().contains("get") && aclLog.get(1).toString().contains("script|kill"), aclLog.toString());
            j.set("x", "touched");
            assertEquals("OK", watcher.call("MULTI"));
            assertEquals("QUEUED", watcher.call("PING"));
            assertEquals(List.of("PONG"), watcher.call("EXEC"), "x was no longer watched");

            CompletableFuture<String> wrote = OwnThread.supply(
                    () -> error(() -> run(looping, "redis.call('set', 'w', '1') while true do end")));
            awaitBusy(j);
            assertTrue(error(() -> cmd(j, "SCRIPT", "KILL")).startsWith("UNKILLABLE Sorry the script already executed write commands"));
            assertFalse(wrote.isDone());
            CompletableFuture<Void> shutdown = OwnThread.run(() -> {
                try (Jedis killer = new Jedis(server.host(), server.port())) {
                    killer.sendCommand(() -> "SHUTDOWN".getBytes(StandardCharsets.US_ASCII), "NOSAVE");
                } catch (RuntimeException expected) {
                    // the connection closes instead of replying
                }
            });
            assertTrue(wrote.get(10, TimeUnit.SECONDS).startsWith("ERR Script killed by user with SCRIPT KILL..."));
            shutdown.get(10, TimeUnit.SECONDS);
            // As Redis exits before that connection closes, nobody connects once it has.
            org.junit.jupiter.api.Assertions.assertThrows(java.net.ConnectException.class,
                    () -> new java.net.Socket(server.host(), server.port()).close());
        }
    }

    /**
     * WATCH and RESET are among the commands Redis runs while a script is busy (ALLOW_BUSY), from
     * the script's hook, between two of its instructions: a key WATCHed then that the script
     * writes afterwards fails the EXEC, and a subscriber RESET then gets none of what the script
     * publishes afterwards. Redis 7.0.15 answers this same sequence with OK, RESET, 0, PONG, nil.
     */
    @Test
    void watchAndResetWhileBusyTakeEffectBetweenTheScriptsInstructions() throws Exception {
        String script = "local function now() local t = redis.call('TIME') return tonumber(t[1]) * 1000000 + tonumber(t[2]) end "
                + "local start = now() while now() < start + 1000000 do end "
                + "local wrote = now() redis.call('SET', KEYS[1], 'by script') "
                + "local published = redis.call('PUBLISH', 'ch', 'after reset') "
                + "while now() < wrote + 200000 do end "
                + "return {string.format('%.0f', wrote), published}";
        try (CinnabarServer server = CinnabarServer.builder().port(0).option("busy-reply-threshold", "50").build().start();
             Jedis j = new Jedis(server.host(), server.port());
             Jedis looping = new Jedis(server.host(), server.port());
             RespSocket watcher = new RespSocket(server.port());
             RespSocket subscriber = new RespSocket(server.port())) {
            assertEquals(List.of("subscribe", "ch", 1L), subscriber.call("SUBSCRIBE", "ch"));
            CompletableFuture<Object> ran = OwnThread.supply(() -> looping.eval(script, 1, "x"));
            awaitBusy(j);
            assertEquals("OK", watcher.call("WATCH", "x"));
            long watchedMicros = System.currentTimeMillis() * 1000;
            assertEquals("RESET", subscriber.call("RESET"));
            List<?> result = (List<?>) ran.get(10, TimeUnit.SECONDS);
            assertTrue(watchedMicros < Long.parseLong((String) result.get(0)), "the script wrote after the WATCH: " + result);
            assertEquals(0L, result.get(1), "the subscriber had left the channel when the script published");
            assertEquals("PONG", subscriber.call("PING"), "nothing was delivered after RESET");
            assertEquals("OK", watcher.call("MULTI"));
            assertEquals("QUEUED", watcher.call("PING"));
            assertNull(watcher.call("EXEC"), "x changed after it was watched");
        }
    }

    @Test
    void commandsRightAfterAKillRunOnceTheScriptHasStopped() throws Exception {
        // Each KEYS over 100k keys takes milliseconds, and the script sees the kill only between them.
        try (CinnabarServer server = CinnabarServer.builder().port(0).option("busy-reply-threshold", "50")
                .option("enable-debug-command", "yes").build().start();
             Jedis j = new Jedis(server.host(), server.port());
             Jedis other = new Jedis(server.host(), server.port());
             Jedis looping = new Jedis(server.host(), server.port())) {
            cmd(j, "DEBUG", "POPULATE", "100000");
            cmd(j, "FUNCTION", "LOAD", "#!lua name=spinning\nredis.register_function{function_name='spin', "
                    + "callback=function() while true do redis.call('keys', '*') end end, flags={'no-writes'}}");
            for (String kind : List.of("SCRIPT", "FUNCTION")) {
                CompletableFuture<String> looped = OwnThread.supply(() -> error(() -> {
                    if (kind.equals("SCRIPT")) run(looping, "while true do redis.call('keys', '*') end");
                    else cmd(looping, "FCALL", "spin", "0");
                }));
                awaitBusy(j);
                assertEquals("OK", cmd(j, kind, "KILL"));
                assertEquals("value:7", j.get("key:7"), "no BUSY once the kill was answered");
                assertEquals("PONG", other.ping());
                String error = looped.get(10, TimeUnit.SECONDS);
                // Redis 7.0 says SCRIPT KILL for functions too.
                assertTrue(error.startsWith("ERR Script killed by user with SCRIPT KILL..."), error);
            }
        }
    }

    /**
     * A script whose earlier runs were quick starts on the event loop itself; one that then runs
     * long having only read moves to the helper thread past the 10 ms inline budget, so that the
     * server still answers BUSY and SCRIPT KILL (FUNCTION KILL) reaches it.
     */
    @Test
    void aQuickScriptThatThenRunsForeverStillMakesTheServerBusyAndCanBeKilled() throws Exception {
        try (CinnabarServer server = CinnabarServer.builder().port(0).option("busy-reply-threshold", "50").build().start();
             Jedis j = new Jedis(server.host(), server.port());
             Jedis looping = new Jedis(server.host(), server.port())) {
            String script = "if ARGV[1] == 'forever' then while true do end end return ARGV[1]";
            cmd(j, "FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('maybe_forever', function(keys, args) "
                    + "if args[1] == 'forever' then while true do end end return args[1] end)");
            for (String kind : List.of("SCRIPT", "FUNCTION")) {
                java.util.function.Function<String, Object> call = arg -> kind.equals("SCRIPT")
                        ? eval(looping, script, "0", arg) : cmd(looping, "FCALL", "maybe_forever", "0", arg);
                for (int i = 0; i < 3; i++) assertEquals("quick", call.apply("quick"));
                CompletableFuture<String> looped = OwnThread.supply(() -> error(() -> call.apply("forever")));
                awaitBusy(j);
                assertEquals("OK", cmd(j, kind, "KILL"));
                assertTrue(looped.get(10, TimeUnit.SECONDS).startsWith("ERR Script killed by user with SCRIPT KILL..."));
                assertEquals("quick", call.apply("quick"));
            }
        }
    }

    /** Lua that spins for ARGV[1] ms of the server's clock (TIME) after doing what comes before it. */
    private static final String SPIN = " local function now() local t = redis.call('time') return t[1] * 1000000 + t[2] end"
            + " local stop = now() + ARGV[1] * 1000 while now() < stop do end";

    /** Past its inline budget, a script that has written cannot start again elsewhere: it finishes where it is. */
    @Test
    void aScriptThatWroteBeforeItsInlineBudgetRanOutWritesOnce(Jedis j) {
        String script = "redis.call('incr', KEYS[1])" + SPIN + " return redis.call('get', KEYS[1])";
        assertEquals("1", eval(j, script, "1", "runs", "0"));
        assertEquals("2", eval(j, script, "1", "runs", "0"));
        assertEquals("3", eval(j, script, "1", "runs", "30"));
        assertEquals("3", j.get("runs"));
    }

    /** Nor can one that published: subscribers get each message once. */
    @Test
    void aScriptThatPublishedBeforeItsInlineBudgetRanOutPublishesOnce(Jedis j, CinnabarServer server) throws Exception {
        try (RespSocket subscriber = new RespSocket(server.port())) {
            subscriber.call("SUBSCRIBE", "news");
            String script = "redis.call('publish', 'news', ARGV[2])" + SPIN + " return 'sent'";
            for (String[] run : List.of(new String[] {"0", "first"}, new String[] {"0", "second"}, new String[] {"30", "third"})) {
                assertEquals("sent", eval(j, script, "0", run[0], run[1]));
            }
            subscriber.send("PING");
            List<Object> seen = new java.util.ArrayList<>();
            for (Object reply; !List.of("pong", "").equals(reply = subscriber.read()); ) seen.add(reply);
            assertEquals(List.of(List.of("message", "news", "first"), List.of("message", "news", "second"),
                    List.of("message", "news", "third")), seen);
        }
    }

    /** One that only read starts again on the helper thread, and MONITOR shows the run that counted, once. */
    @Test
    void aReadOnlyScriptMovedPastItsInlineBudgetShowsOnceInMonitor(Jedis j, CinnabarServer server) throws Exception {
        try (RespSocket monitor = new RespSocket(server.port())) {
            assertEquals("+OK", monitor.send("MONITOR").line());
            String script = "redis.call('get', KEYS[1])" + SPIN + " return ARGV[1]";
            for (String ms : List.of("0", "0", "30")) assertEquals(ms, eval(j, script, "1", "watched", ms));
            j.echo("end");
            int evals = 0, gets = 0;
            for (String line = monitor.line(); !line.endsWith("\"ECHO\" \"end\""); line = monitor.line()) {
                if (line.contains("\"EVAL\"")) evals++;
                if (line.contains(" lua] \"get\" \"watched\"")) gets++;
            }
            assertEquals(3, evals);
            assertEquals(3, gets);
        }
    }

    private static void awaitBusy(Jedis j) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 10_000;
        while (System.currentTimeMillis() < deadline) {
            try {
                j.ping();
            } catch (redis.clients.jedis.exceptions.JedisDataException e) {
                if (e.getMessage().startsWith("BUSY")) return;
                throw e;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("the script never made the server busy");
    }

    @Test
    void scriptWritesReachTheAofAsTheCommandsTheyRan(@TempDir Path dir) throws Exception {
        try (CinnabarServer s = CinnabarServer.builder().port(0).option("dir", dir.toString())
                .option("appendonly", "yes").option("appendfsync", "always").build().start();
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            run(j, "redis.call('set', 'a', '1') redis.call('incr', 'n') return redis.call('get', 'a')");
            run(j, "redis.call('set', 'only', 'one')");
            run(j, "redis.set_repl(redis.REPL_NONE) redis.call('set', 'hidden', 'x')");
            run(j, "return redis.call('get', 'a')");
        }
        String aof = new String(Files.readAllBytes(dir.resolve("appendonlydir/appendonly.aof.1.incr.aof")),
                StandardCharsets.UTF_8).replace("\r\n", " ");
        assertTrue(aof.contains("*1 $5 MULTI *3 $3 set $1 a $1 1 *2 $4 incr $1 n *1 $4 EXEC "), aof);
        assertTrue(aof.contains("*3 $3 set $4 only $3 one "), aof);
        assertFalse(aof.contains("EVAL") || aof.contains("hidden"), aof);
        assertEquals(1, Arrays.stream(aof.split(" ")).filter("MULTI"::equals).count(), aof);
    }

    @Test
    void numbersBecomeStringsAsInLua51(Jedis j) {
        assertEquals("0.0003 0.33333333333333 1e+20 1e+15 -0.5x7 123456789.5 inf",
                run(j, "return 0.0003 .. ' ' .. 1/3 .. ' ' .. 1e20 .. ' ' .. 1e15 .. ' ' .. -0.5 .. 'x' .. 7 .. ' ' .. 123456789.5 .. ' ' .. 1/0"));
        assertEquals(List.of("0.10.1", "number", 16L, "0.50.5", "0.3333", "a0.25b", "10.50.50.50.333333333333330.5x", "1E+300", "1e+100"),
                run(j, "local a = 0.1; return {a .. a, type(a), string.len(1/3), string.rep(0.5, 2), string.sub(1/3, 1, 6),"
                        + " (string.gsub('a.b', '%.', 0.25)), table.concat({1, 0.5, 1/3, 'x'}, 0.5), string.upper(1e300), tostring(1e100)}"));
        assertEquals(List.of("0.50.25", "0.25"), run(j, "local co = coroutine.create(function(x) coroutine.yield(x .. 0.25) return 1/4 .. '' end);"
                + " local _, a = coroutine.resume(co, 0.5); local _, b = coroutine.resume(co); return {a, b}"));
        assertEquals(List.of("tablenumber", "numbertable"), run(j, "local t = setmetatable({}, {__concat = function(a, b) return type(a) .. type(b) end});"
                + " return {t .. 0.5, 0.5 .. t}"), "a __concat metamethod gets the number itself");
        assertEquals("0.5", run(j, "local function f(n) if n == 0 then return 0.5 end return f(n - 1) .. '' end return f(10)"));
        assertEquals("0 -5000 -1 0.0003 1023.2 0", run(j, "local decoded = cjson.decode('[0.0, -5e3, -1, 0.3e-3, 1023.2, 0e10]');"
                + " return table.concat(decoded, ' ')"));
        assertTrue(error(() -> run(j, "return table.concat({1, true})")).startsWith(
                "ERR user_script:1: invalid value (boolean) at index 2 in table for 'concat'"));
    }

    @Test
    void debugSetDisableDenyScriptsLetsScriptsRunNoscriptCommands(Jedis j) {
        String refused = "ERR This Redis command is not allowed from script";
        assertTrue(error(() -> run(j, "return redis.call('config', 'get', 'hz')")).startsWith(refused));
        assertEquals("OK", cmd(j, "DEBUG", "SET-DISABLE-DENY-SCRIPTS", "1"));
        try {
            assertEquals(List.of("hz", "10"), run(j, "return redis.call('config', 'get', 'hz')"));
        } finally {
            cmd(j, "DEBUG", "SET-DISABLE-DENY-SCRIPTS", "0");
        }
        assertTrue(error(() -> run(j, "return redis.call('config', 'get', 'hz')")).startsWith(refused));
    }

    private static String info(Jedis j, String section, String field) {
        for (String line : j.info(section).split("\r\n")) {
            if (line.startsWith(field + ":")) return line.substring(field.length() + 1);
        }
        return null;
    }

    /**
     * luaj's string metatable is one for the JVM: each server's scripts must still index strings
     * through their own interpreter's string table, whichever server made its interpreter last,
     * in scripts, functions and coroutines alike.
     */
    @Test
    void stringsIndexTheirOwnServersStringTable() {
        String own = "return {getmetatable('').__index == string, ('ab'):upper(),"
                + " select(2, coroutine.resume(coroutine.create(function() return getmetatable('x').__index == string end)))}";
        try (CinnabarServer first = CinnabarServer.builder().port(0).build().start();
             Jedis a = new Jedis(first.host(), first.port())) {
            assertEquals(List.of(1L, "AB", 1L), a.eval(own));
            try (CinnabarServer second = CinnabarServer.builder().port(0).build().start();
                 Jedis b = new Jedis(second.host(), second.port())) {
                assertEquals(List.of(1L, "AB", 1L), b.eval(own));
                assertEquals(List.of(1L, "AB", 1L), a.eval(own));
                cmd(a, "FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return getmetatable('').__index == string end)");
                assertEquals("OK", cmd(b, "SCRIPT", "FLUSH"));
                assertEquals(1L, a.fcall("f", List.of(), List.of()));
                assertEquals(List.of(1L, "AB", 1L), a.eval(own));
            }
            assertEquals(List.of(1L, "AB", 1L), a.eval(own));
        }
    }

    @Test
    void infoMemoryCountsScriptsAndFunctions() {
        try (CinnabarServer s = CinnabarServer.builder().port(0).build().start();
             Jedis j = new Jedis(s.host(), s.port())) {
            assertEquals("0", info(j, "memory", "number_of_cached_scripts"));
            assertEquals("0", info(j, "memory", "used_memory_scripts"));
            cmd(j, "SCRIPT", "LOAD", "return 1");
            cmd(j, "FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)");
            assertEquals("1", info(j, "memory", "number_of_cached_scripts"));
            assertEquals("1", info(j, "memory", "number_of_functions"));
            assertEquals("1", info(j, "memory", "number_of_libraries"));
            long eval = Long.parseLong(info(j, "memory", "used_memory_scripts_eval"));
            long functions = Long.parseLong(info(j, "memory", "used_memory_functions"));
            assertTrue(eval > 0 && functions > 0);
            assertEquals(eval + functions, Long.parseLong(info(j, "memory", "used_memory_scripts")));
            cmd(j, "SCRIPT", "FLUSH");
            assertEquals("0", info(j, "memory", "used_memory_scripts_eval"));
        }
    }

    @Test
    void commandsRefusedInsideScriptsKeepTheirErrorCodeAndCountOnce() {
        try (CinnabarServer s = CinnabarServer.builder().port(0).option("maxmemory", "1").build().start();
             Jedis j = new Jedis(s.host(), s.port())) {
            assertTrue(error(() -> eval(j, "return redis.call('set', 'x', 'y')", "1", "x")).startsWith(
                    "OOM command not allowed when used memory > 'maxmemory'. script: "));
            assertEquals("count=1", info(j, "errorstats", "errorstat_OOM"));
            assertEquals("1", info(j, "stats", "total_error_replies"));
            assertTrue(info(j, "commandstats", "cmdstat_set").contains("calls=0,") && info(j, "commandstats", "cmdstat_set").endsWith("rejected_calls=1,failed_calls=0"));
            assertTrue(info(j, "commandstats", "cmdstat_eval").endsWith("rejected_calls=0,failed_calls=1"));
            cmd(j, "CONFIG", "RESETSTAT");
            assertEquals("OOM command not allowed when used memory > 'maxmemory'.", error(() -> eval(j, "return redis.pcall('set', 'x', 'y')", "1", "x")));
            assertEquals("count=1", info(j, "errorstats", "errorstat_OOM"));
            assertEquals("1", info(j, "stats", "total_error_replies"));
            // Reads go on; a script that declares flags needs allow-oom (or no-writes) to start at all:
            // its shebang makes EVAL deny-oom, refused before it runs (Redis's evalGetCommandFlags).
            assertNull(eval(j, "return redis.call('get', 'x')", "1", "x"));
            assertEquals("OOM command not allowed when used memory > 'maxmemory'.", error(() -> run(j, "#!lua flags=\nreturn 1")));
            assertEquals("OOM command not allowed when used memory > 'maxmemory'.", error(() -> run(j, "#!lua\nreturn 1")));
            assertTrue(info(j, "commandstats", "cmdstat_eval").contains("rejected_calls=2"));
            assertEquals("OK", run(j, "#!lua flags=allow-oom\nreturn redis.call('set', 'x', 'y')"));
            assertEquals("y", run(j, "#!lua flags=no-writes\nreturn redis.call('get', 'x')"));
            j.configSet("maxmemory", "0");
            cmd(j, "CONFIG", "RESETSTAT");
            assertTrue(error(() -> run(j, "return redis.call('select', 99)")).startsWith("ERR DB index is out of range script: "));
            assertEquals("count=1", info(j, "errorstats", "errorstat_ERR"), "the error of the command, not again as the script's");
            assertEquals("1", info(j, "stats", "total_error_replies"));
        }
    }

    @Test
    void errorsInsideAReturnedTableCountAsRedisCountsEachReplyItWrites(Jedis j) {
        j.set("k", "abc");
        cmd(j, "CONFIG", "RESETSTAT");
        // Made by the script: each counts in errorstats (by its first word, else ERR), and EVAL fails once.
        eval(j, "return {1, {err='nested'}, {{err='a b'}}}", "1", "k");
        assertEquals("count=1", info(j, "errorstats", "errorstat_ERR"));
        assertEquals("count=1", info(j, "errorstats", "errorstat_a"));
        assertTrue(info(j, "commandstats", "cmdstat_eval").endsWith("rejected_calls=0,failed_calls=1"));
        cmd(j, "CONFIG", "RESETSTAT");
        // Handed back by redis.pcall: counted when INCR failed; EVAL counts a failed call for each.
        eval(j, "return {redis.pcall('incr', KEYS[1]), redis.pcall('incr', KEYS[1]), {err='x'}}", "1", "k");
        assertEquals("count=3", info(j, "errorstats", "errorstat_ERR"));
        assertTrue(info(j, "commandstats", "cmdstat_incr").endsWith("rejected_calls=0,failed_calls=2"));
        assertTrue(info(j, "commandstats", "cmdstat_eval").endsWith("rejected_calls=0,failed_calls=3"));
        assertEquals("3", info(j, "stats", "total_error_replies"));
    }

    @Test
    void minReplicasToWriteRefusesWritesWithoutReplicas(Jedis j) {
        j.set("x", "v");
        j.configSet("min-replicas-to-write", "1");
        try {
            assertEquals("NOREPLICAS Not enough good replicas to write.", error(() -> j.set("x", "w")));
            assertEquals("v", j.get("x"));
            assertEquals("v", eval(j, "return redis.call('get', 'x')", "1", "x"));
            assertEquals("v", eval(j, "#!lua flags=no-writes\nreturn redis.call('get', 'x')", "1", "x"));
            assertEquals("NOREPLICAS Not enough good replicas to write.", error(() -> eval(j, "#!lua\nreturn redis.call('get', 'x')", "1", "x")));
            assertTrue(error(() -> eval(j, "return redis.call('set', 'x', 'w')", "1", "x")).startsWith(
                    "NOREPLICAS Not enough good replicas to write. script: "));
        } finally {
            j.configSet("min-replicas-to-write", "0");
        }
        assertEquals("OK", j.set("x", "w"));
    }
}
