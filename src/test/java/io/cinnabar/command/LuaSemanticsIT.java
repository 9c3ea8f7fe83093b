package io.cinnabar.command;

import io.cinnabar.junit.CinnabarTest;
import io.cinnabar.util.OwnThread;
import org.junit.jupiter.api.Test;
import org.luaj.vm2.LuaThread;
import redis.clients.jedis.Jedis;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static io.cinnabar.command.Raw.cmd;
import static io.cinnabar.command.Raw.error;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lua as Redis 7.0's Lua 5.1 runs it, where luaj differs; every expected value is what real
 * Redis 7.0.15 answered (scripts/lua-diff.py finds more).
 */
@CinnabarTest
class LuaSemanticsIT {
    private static Object run(Jedis j, String script) {
        return cmd(j, "EVAL", script, "0");
    }

    /** The Lua error's text: the error reply without "ERR " and Redis's " script: <sha>, on @user_script:1." suffix. */
    private static String fails(Jedis j, String script) {
        String e = error(() -> run(j, script));
        int at = e.indexOf(" script: ");
        return (at < 0 ? e : e.substring(0, at)).substring("ERR ".length());
    }

    @Test
    void tonumberReadsTextAsStrtodDoes(Jedis j) {
        assertEquals(List.of("inf", "-inf", 16L, 1L, 1000L, "nil", 255L, 511L, "nil", 1L),
                run(j, "return {tostring(tonumber('inf')), tostring(tonumber('-inf')), tonumber('0x10'), tonumber(' 1'),"
                        + " tonumber('1e3'), tostring(tonumber('0x')), tonumber('ff', 16), tonumber('  777  ', 8),"
                        + " tostring(tonumber('8', 8)), tonumber('-ff', 16) == 2^64 - 255}"));
    }

    /**
     * A reply array as a Lua table: under RESP2 a null is false and "#" counts every element;
     * under RESP3 a null is a hole, and "#" finds the border of the table Lua 5.1's stores of the
     * elements one by one leave (Lua51Stores). Each pattern below (x a field, . a missing one)
     * with redis-server 7.0.15's "#" and count of pairs(); before, Cinnabar said 2, 4, 17, 8, 17
     * for the first column.
     */
    @Test
    void replyArraysHaveLua51sLengthAndOrder(Jedis j) {
        Map<String, String> fields = new java.util.HashMap<>();
        for (int i = 0; i < 20; i++) fields.put("f" + i, Integer.toString(i));
        j.hset("h", fields);
        assertEquals(List.of(4L, "1=0,2=false,3=2,4=3"), run(j, "local t = redis.call('HMGET', 'h', 'f0', 'nope', 'f2', 'f3')"
                + " local k = {} for key, v in pairs(t) do k[#k+1] = key .. '=' .. tostring(v) end return {#t, table.concat(k, ',')}"));
        String resp3 = "redis.setresp(3) local t = redis.call('HMGET', 'h', unpack(ARGV))"
                + " local k = 0 for _ in pairs(t) do k = k + 1 end return {#t, k}";
        String[][] patterns = {{".x", "0", "1"}, {"..xx...x............", "0", "3"}, {"x..x.xx.x...x.xxx", "1", "9"},
                {"xx.xxx.x", "8", "6"}, {"x.x.x.x.x.x.x.x.x", "1", "9"}, {"xxxxx", "5", "5"}};
        for (String[] p : patterns) {
            List<String> args = new java.util.ArrayList<>(List.of(resp3, "0"));
            for (int i = 0; i < p[0].length(); i++) args.add(p[0].charAt(i) == 'x' ? "f" + i : "nope");
            assertEquals(List.of(Long.parseLong(p[1]), Long.parseLong(p[2])), cmd(j, "EVAL", args.toArray(String[]::new)), p[0]);
        }
    }

    @Test
    void syntaxErrorsNameTheTokenTheyAreNear(Jedis j) {
        String compiling = "Error compiling script (new function): ";
        assertFailures(j,
                "return 1 +", compiling + "user_script:1: unexpected symbol near '<eof>'",
                "return \"abc", compiling + "user_script:1: unfinished string near '<eof>'",
                "return \"a\nb\"", compiling + "user_script:1: unfinished string near '\"a'",
                "if true then return 1", compiling + "user_script:1: 'end' expected near '<eof>'",
                "return 1)", compiling + "user_script:1: '<eof>' expected near ')'",
                "for i=1 do end", compiling + "user_script:1: ',' expected near 'do'",
                "return 1..2", compiling + "user_script:1: malformed number near '1..2'",
                "local 1 = 2", compiling + "user_script:1: '<name>' expected near '1'",
                "return [[abc", compiling + "user_script:1: unfinished long string near '<eof>'",
                "local x = 1\nbreak\nreturn 2", compiling + "user_script:3: no loop to break near 'return'",
                // A statement that is no call is an assignment to Lua 5.1: after a name or an index it wants '='.
                "hello world", compiling + "user_script:1: '=' expected near 'world'",
                "hello", compiling + "user_script:1: '=' expected near '<eof>'",
                "local x = 1 x.y z", compiling + "user_script:1: '=' expected near 'z'",
                "t[1] 2", compiling + "user_script:1: '=' expected near '2'",
                "if x then y end", compiling + "user_script:1: '=' expected near 'end'",
                "(a) b", compiling + "user_script:1: syntax error near 'b'",
                "a, (b) = 1", compiling + "user_script:1: syntax error near '='");
        assertEquals(List.of("[string \"x =\"]:1: unexpected symbol near '<eof>'",
                        "[string \"a long chunk name that goes on and on and on and on and on and ...\"]:1: unexpected symbol near '<eof>'",
                        "[string \"a long chunk name that goes on and on and o...\"]:1: x"),
                run(j, "local name = 'a long chunk name that goes on and on and on and on and on and on'"
                        + " return {select(2, loadstring('x =')), select(2, loadstring('x =', name)), select(2, pcall(loadstring('error(\"x\")', name)))}"));
    }

    @Test
    void controlBytesAreTokensNotSpace(Jedis j) {
        // Lua 5.1's llex skips C's isspace only; luaj skipped every byte up to ' '.
        String compiling = "Error compiling script (new function): ";
        assertFailures(j,
                "return 1\u0001", compiling + "user_script:1: '<eof>' expected near 'char(1)'",
                "return\u00011", compiling + "user_script:1: unexpected symbol near 'char(1)'",
                "x\u001f = 1", compiling + "user_script:1: '=' expected near 'char(31)'",
                "return 1\n\u0002", compiling + "user_script:2: '<eof>' expected near 'char(2)'",
                "return\u0000 1", compiling + "user_script:1: unexpected symbol",
                "\u007freturn 1", compiling + "user_script:1: unexpected symbol near 'char(127)'");
        // In strings and comments they are text; \v and \f are space to both.
        assertEquals(List.of("\u0001", "1", 2L), run(j, "return {'\u0001', [[1]] --\u0001\n, 2\u000b}"));
        // read_numeral's strchr finds the NUL ending "Ee" and "+-": after a number a NUL is the
        // numeral's, with what follows it, and the number ends there.
        assertEquals(1L, run(j, "return 1\u0000"));
        assertEquals(1L, run(j, "return 1\u0000-2"));
        assertEquals(List.of("\u0001"), run(j, "return {loadstring('return \"\u0001\"')()}"));
        assertEquals(List.of("[string \"return 1\u0001\"]:1: '<eof>' expected near 'char(1)'"),
                run(j, "return {select(2, loadstring('return 1\u0001'))}"));
    }

    @Test
    void loadTakesAReaderFunctionOnly(Jedis j) {
        // luaB_load: luaL_optstring(L, 2, ...) first, then luaL_checktype(L, 1, LUA_TFUNCTION).
        assertFailures(j,
                "return load('return 1')", "user_script:1: bad argument #1 to 'load' (function expected, got string)",
                "return load(1, {})", "user_script:1: bad argument #2 to 'load' (string expected, got table)");
        // Pieces up to nil, numbers as text; compile errors in Lua 5.1's words.
        assertEquals(List.of(57L, "(load):1: unexpected symbol near '+'"),
                run(j, "local function reader(pieces) local i = 0 return function() i = i + 1 return pieces[i] end end"
                        + " return {load(reader({'return ', 5, 7}))(), select(2, load(reader({'return +'})))}"));
    }

    @Test
    void numeralsAsReadNumeralTakesThem(Jedis j) {
        // read_numeral takes letters, digits and '_' after the digits; all of it must be one number
        // for glibc's strtod (hex with a binary exponent, no point after the digits of a hex).
        String compiling = "Error compiling script (new function): ";
        assertEquals(List.of(16L, 10L, 255L), run(j, "return {0x1p4, 0XA, 0xff}"));
        assertFailures(j,
                "return 0xA.8", compiling + "user_script:1: '<eof>' expected near '.8'",
                "return 0x", compiling + "user_script:1: malformed number near '0x'",
                "return 2,\n0x1p-4", compiling + "user_script:2: malformed number near '0x1p'",
                "return 1_0", compiling + "user_script:1: malformed number near '1_0'");
        assertEquals(List.of("[string \"return 0xg\"]:1: malformed number near '0xg'"), run(j, "return {select(2, loadstring('return 0xg'))}"));
        // A hex numeral an error stops at is named as written (luaj is given it in decimal).
        assertFailures(j,
                "return 16 0x10", compiling + "user_script:1: '<eof>' expected near '0x10'",
                "return 0x10 16", compiling + "user_script:1: '<eof>' expected near '16'",
                "return {0x10 0x20}", compiling + "user_script:1: '}' expected near '0x20'",
                "return 0x1p4 + 0X1P4 0x1E", compiling + "user_script:1: '<eof>' expected near '0x1E'",
                "return 1 0x10000000000000000000000", compiling + "user_script:1: '<eof>' expected near '0x10000000000000000000000'");
        assertEquals(List.of("[string \"return 0xA 0xB\"]:1: '<eof>' expected near '0xB'"), run(j, "return {select(2, loadstring('return 0xA 0xB'))}"));
    }

    @Test
    void breakEndsItsBlock(Jedis j) {
        // Lua 5.1's break must be its block's last statement (an optional ';', then the block ends),
        // or no loop holds it; Lua 5.2's (luaj's) need not. Errors as redis-server 7.0.15 gives them.
        String compiling = "Error compiling script (new function): ";
        assertFailures(j,
                "for i=1,2 do break 5 end", compiling + "user_script:1: 'end' expected near '5'",
                "for i=1,2 do break; 5 end", compiling + "user_script:1: 'end' expected near '5'",
                "for i=1,2 do\nbreak\n;\nx = 1 end", compiling + "user_script:4: 'end' expected (to close 'for' at line 1) near 'x'",
                "while true do if x then break 5 end end", compiling + "user_script:1: 'end' expected near '5'",
                "repeat break x=1 until true", compiling + "user_script:1: 'until' expected near 'x'",
                "for i=1,2 do break;; end", compiling + "user_script:1: 'end' expected near ';'",
                "for i=1,2 do break 0x10 end", compiling + "user_script:1: 'end' expected near '0x10'",
                "for i=1,2 do break 0x end", compiling + "user_script:1: malformed number near '0x'",
                "for i=1,2 do break\u0001 end", compiling + "user_script:1: 'end' expected near 'char(1)'",
                // No loop holds it: that is found first, at the function's first such break.
                "break 5", compiling + "user_script:1: no loop to break near '5'",
                "function f() break 5 end", compiling + "user_script:1: no loop to break near '5'",
                "local function f() for i=1,2 do break end break 1 end", compiling + "user_script:1: no loop to break near '1'",
                "if x then break end break 5", compiling + "user_script:1: no loop to break near 'end'",
                "if x then break\u0001 end", compiling + "user_script:1: no loop to break near 'char(1)'");
        assertEquals(List.of(2L, "ok"), run(j, "local n = 0 for i=1,2 do n = n + 1 break --[[c]] ; -- x\nend "
                + "repeat if n then break end until false return {n + 1, 'ok'}"));
        assertEquals(List.of("[string \"while 1 do break 5 end\"]:1: 'end' expected near '5'"),
                run(j, "return {select(2, loadstring('while 1 do break 5 end'))}"));
    }

    @Test
    void statementsAsLua51ParsesThem(Jedis j) {
        // Lua 5.2's (luaj's) grammar is looser; errors as redis-server 7.0.15 gives them.
        String compiling = "Error compiling script (new function): ";
        assertFailures(j,
                // No empty statement: a ';' only ends the statement before it.
                ";", compiling + "user_script:1: unexpected symbol near ';'",
                "x = 1;;", compiling + "user_script:1: unexpected symbol near ';'",
                "do ; end", compiling + "user_script:1: unexpected symbol near ';'",
                "local function f(a, ...) ; end", compiling + "user_script:1: unexpected symbol near ';'",
                "return;;", compiling + "user_script:1: '<eof>' expected near ';'",
                // After a call the statement is over: '=' or ',' starts the next one.
                "f() = 1", compiling + "user_script:1: unexpected symbol near '='",
                "f'x' , y = 1", compiling + "user_script:1: unexpected symbol near ','",
                "(a) = 1", compiling + "user_script:1: syntax error near '='",
                // A break outside any loop is refused at once, before any later error.
                "break end", compiling + "user_script:1: no loop to break near 'end'",
                "if x then break end x x", compiling + "user_script:1: no loop to break near 'end'",
                // A call's '(' on a later line than what it calls.
                "return math.max\n(1, 2)", compiling + "user_script:2: ambiguous syntax (function call x new statement) near '('",
                "a:b\n(c)", compiling + "user_script:2: ambiguous syntax (function call x new statement) near '('",
                "x = y --[[\n]] (z)", compiling + "user_script:2: ambiguous syntax (function call x new statement) near '('",
                "f\n(", compiling + "user_script:2: ambiguous syntax (function call x new statement) near '('",
                // An unclosed call's '(' is named by its own line, not by where its function starts.
                "f\n \"s\" {1;2} ( x.y x=1 ==", compiling + "user_script:2: ')' expected near 'x'",
                "f(g(\nx\n y)", compiling + "user_script:3: ')' expected (to close '(' at line 1) near 'y'",
                "( \n (a)", compiling + "user_script:2: ')' expected (to close '(' at line 1) near '<eof>'");
        assertEquals(List.of(1L, 2L, 3L), run(j, "local t = {1;2;}\nlocal x = 3;\n(function() end)()\nreturn {t[1], t[2], x}"));
        // The constructor's look-ahead past a field's first name leaves no ambiguity (lastline quirk).
        assertEquals(List.of(7L), run(j, "local function a(x) return 7 end local t = {a\n(1)} return t"));
    }

    @Test
    void gotoIsAName(Jedis j) {
        // Reserved in Lua 5.2 only.
        assertEquals(List.of(1L, 2L, 3L), run(j, "local goto = 1 local t = {goto = 2} t.goto3 = 3 return {goto, t.goto, t.goto3}"));
        assertFailures(j,
                "goto x", "Error compiling script (new function): user_script:1: '=' expected near 'x'",
                "return goto", "user_script:1: Script attempted to access nonexistent global variable 'goto'",
                // Labels are 5.2's too: "::" is two ':'.
                "do ::top:: end", "Error compiling script (new function): user_script:1: unexpected symbol near ':'");
        assertEquals("::", run(j, "return '::'"));
    }

    @Test
    void escapesOfLua52KeepTheirLetter(Jedis j) {
        // Lua 5.1's read_string saves the letter of an escape it does not know: \x and \z are 5.2's.
        assertEquals(List.of("x41", "z  a", 3L, "x41"),
                run(j, "return {'\\x41', \"\\z  a\", #'\\x00', loadstring('return \"\\\\x41\"')()}"));
        assertEquals(List.of("\\x41"), run(j, "return {[[\\x41]]}"));
    }

    @Test
    void bundledLibrariesNameTheFunctionAndArgumentInTheirErrors(Jedis j) {
        assertFailures(j,
                "return bit.band()", "user_script:1: bad argument #1 to 'band' (number expected, got no value)",
                "return bit.tohex(255, 'x')", "user_script:1: bad argument #2 to 'tohex' (number expected, got string)",
                "return struct.pack('>I2', '1e')", "user_script:1: bad argument #2 to 'pack' (number expected, got string)",
                "return struct.pack('i')", "user_script:1: bad argument #2 to 'pack' (number expected, got nil)",
                "return struct.unpack('i', nil)", "user_script:1: bad argument #2 to 'unpack' (string expected, got nil)",
                "return cjson.decode(nil)", "user_script:1: bad argument #1 to 'decode' (string expected, got nil)",
                "return string.rep('ab', 'x')", "user_script:1: bad argument #2 to 'rep' (number expected, got string)",
                "return collectgarbage('bogus')", "user_script:1: bad argument #1 to 'collectgarbage' (invalid option 'bogus')");
        assertEquals(List.of(16L, 0L, 150L), run(j, "collectgarbage('setpause', 200) local previous = collectgarbage('setpause', 150)"
                + " return {bit.tobit('0x10'), collectgarbage('stop'), collectgarbage('setpause', previous)}"));
    }

    @Test
    void keysNoTableHoldsAndErrorsThatAreNotText(Jedis j) {
        assertFailures(j,
                "local t = {} t[nil] = 1", "user_script:1: table index is nil",
                "local t = {} t[0/0] = 1", "user_script:1: table index is NaN",
                "local t = {} rawset(t, nil, 1)", "table index is nil",
                "error(false)", "false");
        assertEquals(Arrays.asList(0L, null), run(j, "local ok, e = pcall(error, false) return {ok and 1 or 0, e}"));
        // Bytes past ASCII keep their case, as C's toupper in the "C" locale leaves them.
        assertEquals(List.of("FFABC", "C8abc"), run(j,
                "local function hex(s) return (s:gsub('[\\128-\\255]', function(c) return string.format('%X', c:byte()) end)) end"
                        + " return {hex(('\\255abc'):upper()), hex(('\\200ABC'):lower())}"));
    }

    @Test
    void badKeysAreRefusedBeforeNewindexAndReadonlyTablesBeforeThat(Jedis j) {
        assertFailures(j,
                "local t = setmetatable({}, {__newindex = function() end}) t[nil] = 1", "user_script:1: table index is nil",
                "local t = setmetatable({}, {__newindex = function() end}) t[0/0] = nil", "user_script:1: table index is NaN",
                "local k string[k] = 1", "user_script:1: Attempt to modify a readonly table",
                "local k _G[k] = 1", "user_script:1: Attempt to modify a readonly table",
                "rawset(string, nil, 1)", "Attempt to modify a readonly table");
        assertEquals("y", run(j, "local t = setmetatable({}, {__newindex = function(t, k) rawset(t, 'x', k) end}) t.y = 1 return t.x"));
    }

    @Test
    void readonlyTablesRefuseLibraryFunctionsWithoutAPosition(Jedis j) {
        // Raised inside C functions, where luaG_runerror adds no position; the VM's stores add one.
        assertFailures(j,
                "rawset(string, 'x', 1)", "Attempt to modify a readonly table",
                "table.insert(string, 1)", "Attempt to modify a readonly table",
                "setmetatable(_G, nil)", "Attempt to modify a readonly table",
                "string.x = 1", "user_script:1: Attempt to modify a readonly table",
                "local t = {3, 1, 2} table.sort(t, function(a, b) string.q = 1 end)", "user_script:1: Attempt to modify a readonly table");
        assertEquals("Attempt to modify a readonly table", run(j, "local ok, e = pcall(rawset, string, 'x', 1) return e"));
    }

    @Test
    void coroutinesAreLua51s(Jedis j) {
        assertEquals(List.of(2L, 20L, "dead", "thread", 1L), run(j,
                "local co = coroutine.create(function(x) local y = coroutine.yield(x + 1) return y * 2 end)"
                        + " local _, a = coroutine.resume(co, 1) local _, b = coroutine.resume(co, 10)"
                        + " local _, inside = coroutine.resume(coroutine.create(function() return type(coroutine.running()) end))"
                        + " return {a, b, coroutine.status(co), inside, select('#', coroutine.running())}"));
        assertEquals(Arrays.asList(0L, "attempt to yield across metamethod/C-call boundary"),
                run(j, "local ok, e = pcall(coroutine.yield, 1) return {ok and 1 or 0, e}"));
        assertFailures(j,
                "return coroutine.create(string.len)", "user_script:1: bad argument #1 to 'create' (Lua function expected)",
                "return coroutine.wrap(1)", "user_script:1: bad argument #1 to 'wrap' (Lua function expected)",
                "return coroutine.status(1)", "user_script:1: bad argument #1 to 'status' (coroutine expected)");
    }

    /**
     * A coroutine a script left suspended is ended by luaj once collected, on the coroutine's own
     * thread (it polls every thread_orphan_check_interval ms), whatever script runs then. Its
     * functions' returns popped the running script's frames: in lua-diff seed 714,
     * coroutine.status() gave a NullPointerException's text, and here "0.0001 .. ''" gave
     * "1.0E-4" thousands of times (Redis 7.0.15: "0.0001"). The collection is made as the probe
     * starts, and the coroutines' threads are seen to end.
     */
    @Test
    void anAbandonedCoroutineEndsWithoutDisturbingTheRunningScript(Jedis j) throws Exception {
        long interval = LuaThread.thread_orphan_check_interval;
        LuaThread.thread_orphan_check_interval = 10;
        try {
            String probe = "local function show(x) return type(x) .. ':' .. tostring(x) end"
                    + " local function now() local t = redis.call('TIME') return t[1] * 1e6 + t[2] end"
                    + " local start, bad, r = now(), 0 repeat for i = 1, 1000 do r = show(0.0001 .. '')"
                    + " if r ~= 'string:0.0001' then bad = bad + 1 end end until now() - start > 400000 return {bad, r}";
            for (int round = 0; round < 2; round++) {
                Set<Thread> before = coroutineThreads();
                run(j, "for i = 1, 20 do local co = coroutine.create(function() local function f() coroutine.yield(i) end f() end)"
                        + " coroutine.resume(co) end");
                Set<Thread> abandoned = coroutineThreads();
                abandoned.removeAll(before);
                assertEquals(20, abandoned.size());
                // The probe starts at once; the collection's orphan polls (10 ms) come while it runs its 400 ms.
                CompletableFuture<Object> probed = OwnThread.supply(() -> run(j, probe));
                System.gc();
                assertEquals(List.of(0L, "string:0.0001"), probed.get(10, TimeUnit.SECONDS));
                for (Thread t : abandoned) {
                    t.join(10_000);
                    assertFalse(t.isAlive(), "the abandoned coroutines' threads ended");
                }
            }
        } finally {
            LuaThread.thread_orphan_check_interval = interval;
        }
    }

    /** Threads luaj started for coroutines ("Coroutine-n") that are still alive. */
    private static Set<Thread> coroutineThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("Coroutine-"))
                .collect(Collectors.toCollection(HashSet::new));
    }

    /**
     * Lua 5.1's limits on nesting (LUAI_MAXCALLS, LUAI_MAXCCALLS) with its errors, the first
     * raised at the caller's position; luaj nests Java frames per call instead, and overflowed
     * the thread's stack at 1,500 calls.
     */
    @Test
    void callsNestAsDeepAsInLua51(Jedis j) {
        String recursion = "local function f(n) if n == 0 then return 0 end return 1 + f(n - 1) end ";
        assertEquals(15000L, cmd(j, "EVAL", recursion + "return f(tonumber(ARGV[1]))", "0", "15000"));
        assertEquals(15000L, cmd(j, "EVAL", recursion + "return f(tonumber(ARGV[1]))", "0", "15000"), "again, where it ran quick");
        assertFailures(j, recursion + "return f(30000)", "user_script:1: stack overflow");
        assertEquals(Arrays.asList(null, "user_script:1: stack overflow"), run(j, recursion + "return {pcall(f, 30000)}"));
        // Lua functions called through C: by pcall, and as a metamethod.
        String throughPcall = "local function f(n) if n == 0 then return 0 end local ok, v = pcall(f, n - 1) return v end ";
        assertEquals(0L, run(j, throughPcall + "return f(198)"));
        assertEquals("C stack overflow", run(j, throughPcall + "return f(199)"));
        String throughIndex = "local t = setmetatable({}, {__index = function(t, k) if k == 0 then return 0 end return t[k - 1] end}) ";
        assertEquals(0L, run(j, throughIndex + "return t[197]"));
        assertFailures(j, throughIndex + "return t[198]", "user_script:1: C stack overflow");
    }

    @Test
    void textEndingInHexPrefixIsNoNumber(Jedis j) {
        assertEquals(List.of(16L, 7L, 25L), run(j, "return {math.floor('0x10'), math.max('3', ' 7 ', 5), math.floor(' 2.5e1 ')}"));
        assertFailures(j,
                "return 100 + '0x'", "user_script:1: attempt to perform arithmetic on a string value",
                "local x = ' 0x' return -x", "user_script:1: attempt to perform arithmetic on local 'x' (a string value)",
                "return math.atan2(1, '0x')", "user_script:1: bad argument #2 to 'atan2' (number expected, got string)",
                "return string.format('%f', '0x')", "user_script:1: bad argument #2 to 'format' (number expected, got string)");
    }

    @Test
    void numbersBecomeTextAsPercent14g(Jedis j) {
        assertEquals("9.2233720368548e+18", run(j, "return tonumber('9223372036854775807') .. ''"));
        assertEquals(List.of("1e+15", "9.007199254741e+15", "0.1", "-inf", "1.2345678901234e+14"),
                run(j, "return {tostring(1e15), tostring(2^53), tostring(0.1), tostring(-1/0), 123456789012345 .. ''}"));
        assertEquals("user_script:1: 1.4142135623731", fails(j, "return error(2^0.5)"));
    }

    @Test
    void numbersOutOfRangeReplyAsCsCast(Jedis j) {
        assertEquals(Arrays.asList(Long.MIN_VALUE, Long.MIN_VALUE, Long.MIN_VALUE, 3L, 0L), run(j, "return {1e20, -1e20, 0/0, 3.99, -0.5}"));
        assertEquals("-9223372036854775808", run(j, "return string.format('%d', 1e20)"));
    }

    /** C's printf, as glibc prints: exact binary values rounded half to even, inf and nan, unsigned casts. */
    @Test
    void stringFormatPrintsAsC(Jedis j) {
        assertEquals(List.of("1.00", "0.12", "2e+00", "0.10000000000000000555", "  inf|-inf    |+inf", "  -nan|NAN",
                        "18446744073709551615", "0", "8ac7230489e80000", "005|-0005|0x0000ff", "1.00000|1e-05|123457"),
                run(j, "return {string.format('%.2f', 1.005), string.format('%.2f', 0.125), string.format('%.0e', 2.5),"
                        + " string.format('%.20f', 0.1), string.format('%05f|%-8f|%+e', 1/0, -1/0, 1/0),"
                        + " string.format('%6.1f|%E', 0/0, -(0/0)), string.format('%u', -1), string.format('%x', 2^64),"
                        + " string.format('%x', 1e19), string.format('%.3d|%05d|%#08x', 5, -5, 255),"
                        + " string.format('%#g|%g|%g', 1, 1e-5, 123456.7)}"));
        assertFailures(j,
                "return string.format('%------d', 1)", "user_script:1: invalid format (repeated flags)",
                "return string.format('%123d', 1)", "user_script:1: invalid format (width or precision too long)",
                "return string.format('%1.123f', 1)", "user_script:1: invalid format (width or precision too long)",
                "return string.format('%s', nil)", "user_script:1: bad argument #2 to 'format' (string expected, got nil)",
                "return string.format('%y', 1)", "user_script:1: invalid option '%y' to 'format'");
    }

    /** x86-64's NaN of 0/0 has its sign bit set, glibc's asin and log10 answer theirs without. */
    @Test
    void nanHasCsSign(Jedis j) {
        assertEquals(List.of("-nan", "nan", "-nan", "-nan", "nan", "nan", "nan"),
                run(j, "return {tostring(0/0), tostring(-(0/0)), tostring(1 % 0), tostring(math.floor(0/0)),"
                        + " tostring(math.abs(0/0)), tostring(math.asin(2)), tostring(math.log10(-1))}"));
    }

    /** math.min/max as Lua 5.1's loop, frexp/ldexp/modf as C's at the edges (subnormal, inf, NaN). */
    @Test
    void mathEdgesAsC(Jedis j) {
        assertEquals(List.of("1", "-nan", "1", "inf", "0", "-1073", "0", "4.9406564584125e-324", "0", "0"),
                run(j, "return {tostring(math.min(1, 0/0)), tostring(math.max(0/0, 1)), tostring(math.max(1, 0/0)),"
                        + " tostring(math.frexp(1/0)), tostring(select(2, math.frexp(0/0))), tostring(select(2, math.frexp(5e-324))),"
                        + " tostring(math.ldexp(0.5, -1074)), tostring(math.ldexp(1, -1074)), tostring(math.ldexp(1, 2^31)),"
                        + " tostring(select(2, math.modf(1/0)))}"));
    }

    /** Each script fails with the text that follows it. */
    private static void assertFailures(Jedis j, String... scriptThenError) {
        for (int i = 0; i < scriptThenError.length; i += 2) {
            assertEquals(scriptThenError[i + 1], fails(j, scriptThenError[i]), scriptThenError[i]);
        }
    }

    @Test
    void runtimeErrorsNameTheVariable(Jedis j) {
        assertFailures(j,
                "local a; return a .. 'x'", "user_script:1: attempt to concatenate local 'a' (a nil value)",
                "local t = {}; return t.x.y", "user_script:1: attempt to index field 'x' (a nil value)",
                "local t = {}; return t[1][2]", "user_script:1: attempt to index field '?' (a nil value)",
                "local s = 'x'; return s:nope()", "user_script:1: attempt to call method 'nope' (a nil value)",
                "return redis.nope()", "user_script:1: attempt to call field 'nope' (a nil value)",
                "local a = {}; return a + 1", "user_script:1: attempt to perform arithmetic on local 'a' (a table value)",
                "return 1 < nil", "user_script:1: attempt to compare number with nil",
                "return {} < {}", "user_script:1: attempt to compare two table values",
                "local t = {}; return #t.x", "user_script:1: attempt to get length of field 'x' (a nil value)",
                "local up; return (function() return up.x end)()", "user_script:1: attempt to index upvalue 'up' (a nil value)",
                "local t = {}; t.x.y = 1", "user_script:1: attempt to index field 'x' (a nil value)",
                "local u; u.y = 1", "user_script:1: attempt to index local 'u' (a nil value)",
                "local s = 'abc'; s.x = 1", "user_script:1: attempt to index local 's' (a string value)");
        assertEquals(List.of(0L, "[string \"local t = nil return t.x\"]:1: attempt to index local 't' (a nil value)"),
                run(j, "local ok, e = pcall(loadstring('local t = nil return t.x')) return {ok and 1 or 0, e}"));
        assertEquals(List.of(0L, "name:1: attempt to perform arithmetic on a nil value"),
                run(j, "local ok, e = pcall(loadstring('return nil + 1', '=name')) return {ok and 1 or 0, e}"));
    }

    @Test
    void libraryArgumentErrorsNameTheFunction(Jedis j) {
        assertFailures(j,
                "return math.max()", "user_script:1: bad argument #1 to 'max' (number expected, got no value)",
                "return select(-4, 'a')", "user_script:1: bad argument #1 to 'select' (index out of range)",
                "return table.concat({1, 2}, {})", "user_script:1: bad argument #2 to 'concat' (string expected, got table)");
        assertEquals("", run(j, "return string.rep('x', -1)"));
    }

    @Test
    void argumentErrorsNameTheFunctionAsItsCallerCalledIt(Jedis j) {
        assertFailures(j,
                "local f = string.rep; return f()", "user_script:1: bad argument #1 to 'f' (string expected, got no value)",
                "local b = bit.band; return b('x')", "user_script:1: bad argument #1 to 'b' (number expected, got string)",
                "return ('%d'):format('x')", "user_script:1: bad argument #1 to 'format' (number expected, got string)",
                "local t = setmetatable({}, {__index = string.rep}) return t.x", "user_script:1: bad argument #1 to '?' (string expected, got table)",
                "return setmetatable({}, 1)", "user_script:1: bad argument #2 to 'setmetatable' (nil or table expected)",
                "return assert(false, {})", "user_script:1: bad argument #2 to 'assert' (string expected, got table)",
                "return error('x', 'y')", "user_script:1: bad argument #2 to 'error' (number expected, got string)",
                "return rawget(1)", "user_script:1: bad argument #1 to 'rawget' (table expected, got number)",
                "return next({}, 'nokey')", "invalid key to 'next'");
        // Called by a Java function: no name, no position.
        assertEquals(Arrays.asList(null, "bad argument #2 to '?' (number expected, got string)"),
                run(j, "return {pcall(string.rep, 'x', 'y')}"));
        assertEquals("ERR bad argument #2 to '?' (number expected, got no value) script: "
                + "29fc1475fa44460f66ebb563f84c42b36130bc18, on =[C]:-1.", error(() -> run(j, "return {string.gsub('a', '%w', string.rep)}")));
        assertEquals(Arrays.asList(null, "cmp"), run(j, "return {pcall(table.sort, {3, 1}, function(a, b) error('cmp', 2) end)}"));
    }

    /** The Lua error's text of a script that failed in C called by C: Redis's reply says "on =[C]:-1". */
    private static String failsInC(Jedis j, String script) {
        String e = error(() -> run(j, script));
        assertTrue(e.endsWith(", on =[C]:-1."), e);
        return e.substring("ERR ".length(), e.indexOf(" script: "));
    }

    @Test
    void argumentsAreCheckedInLua51sOrder(Jedis j) {
        assertFailures(j,
                // tconcat reads the separator before the table; str_sub its end after its start.
                "return table.concat(1, {})", "user_script:1: bad argument #2 to 'concat' (string expected, got table)",
                "local s = 'hello' return s.sub('hello', 2, 'x')", "user_script:1: bad argument #3 to 'sub' (number expected, got string)",
                "return ('hello'):sub(2, '%d')", "user_script:1: bad argument #2 to 'sub' (number expected, got string)",
                "local t = {fn = table.insert} return t:fn({1, 2}, 3)", "user_script:1: bad argument #1 to 'fn' (number expected, got table)",
                "return setmetatable({}, {__call = unpack})({1, 2})", "user_script:1: bad argument #2 to '?' (number expected, got table)",
                "local mt = {__lt = tonumber} return setmetatable({}, mt) < setmetatable({}, mt)",
                "user_script:1: bad argument #2 to '?' (number expected, got table)",
                "local t = setmetatable({}, {__concat = loadstring}) return 'x' .. t", "user_script:1: bad argument #2 to '?' (string expected, got table)",
                // luaB_error reads the level before looking at the message.
                "local t = {fn = error} return t:fn('boom')", "user_script:1: bad argument #1 to 'fn' (number expected, got string)",
                "return setmetatable({}, {__index = error}).x", "user_script:1: bad argument #2 to '?' (number expected, got string)",
                // bit.tohex checks a second argument that is nil (lua_isnone).
                "return bit.tohex(255, nil)", "user_script:1: bad argument #2 to 'tohex' (number expected, got nil)");
        assertEquals("bad argument #1 to '?' (table expected, got string)", failsInC(j, "return string.gsub('hello', '%w', rawset)"));
    }

    @Test
    void errorLevelsCountLostTailCalls(Jedis j) {
        // A function that tail-called a Lua function is gone: its level has no position.
        assertEquals(Arrays.asList(null, "boom"), run(j, "local function f() return (function() error('boom', 2) end)() end return {pcall(f)}"));
        assertEquals(Arrays.asList(null, "user_script:1: boom"),
                run(j, "local function f() local r = (function() error('boom', 2) end)() return r end return {pcall(f)}"));
        assertEquals(Arrays.asList(null, "2"),
                run(j, "return {pcall(function() return (function() local t = {3, 1, 2}; table.sort(t, error) return t end)() end)}"));
        assertEquals("boom", fails(j, "return (function() local f = error return (function() return f('boom', 2) end)() end)()"));
    }

    @Test
    void errorsOfFunctionsCalledByCHaveNoPosition(Jedis j) {
        assertEquals("abc", failsInC(j, "return string.gsub('abc', '%w+', error)"));
        assertEquals("wrong number of arguments to 'insert'", failsInC(j, "return tostring(setmetatable({}, {__tostring = table.insert}))"));
        assertEquals("wrong number of arguments", failsInC(j, "return table.sort({2, 1}, redis.sha1hex)"));
        assertEquals("attempt to yield across metamethod/C-call boundary", failsInC(j, "return table.foreach({x = 1}, coroutine.yield)"));
        // luaD_call counts C functions calling each other towards LUAI_MAXCCALLS.
        assertEquals(Arrays.asList(null, "C stack overflow"),
                run(j, "return {pcall(function() return tostring(setmetatable({}, {__tostring = tostring})) end)}"));
    }

    @Test
    void redisPcallLooksUpErrThroughIndex(Jedis j) {
        // luaRedisPcall's lua_getfield: __index runs, unprotected.
        assertEquals(Arrays.asList(null, "Kerr"), run(j, "return {pcall(error, setmetatable({}, {__index = function(t, k) return 'K' .. k end}))}"));
        assertEquals("bad argument #2 to '?' (number expected, got string)",
                failsInC(j, "return {pcall(function() return setmetatable({}, {__index = error})[1] end)}"));
    }

    @Test
    void metamethodsAsLua51CallsThem(Jedis j) {
        // A metatable without __concat: the operation's own error, naming the pair's first operand that is no text.
        assertFailures(j,
                "local x = setmetatable({}, {__tostring = function(t) return t end}) return 'a' .. tostring(x)",
                "user_script:1: attempt to concatenate a table value",
                "local a, b = {}, {} return a .. b", "user_script:1: attempt to concatenate local 'a' (a table value)",
                "local a, b = 'x', setmetatable({}, {}) return a .. b .. 'y'", "user_script:1: attempt to concatenate local 'b' (a table value)",
                "local t = setmetatable({}, {__unm = math.pow}) return -t", "user_script:1: bad argument #2 to '?' (number expected, got table)");
        // __unm gets its operand twice.
        assertEquals(1L, run(j, "local t = setmetatable({}, {__unm = function(a, b) return rawequal(a, b) end}) return -t"));
    }

    @Test
    void errorAndStatusTextsEndAtANul(Jedis j) {
        assertEquals("user_script:1: a", fails(j, "return error('a\\0b')"));
        assertEquals("a", error(() -> run(j, "return {err = 'a\\0b'}")));
        assertEquals("a", run(j, "return {ok = 'a\\0b'}"));
        // Redis's error handler makes 'ERR ' .. tostring(err) of a function raised.
        assertTrue(fails(j, "return error(function() end, 2)").startsWith("function: 0x"));
    }

    @Test
    void numberArgumentsAsCReadsThem(Jedis j) {
        // luaL_optinteger casts a NaN to LLONG_MIN, no offset of 0; gsub's luaL_optint cuts 2^32 + 1 to 1.
        assertEquals("user_script:1: bad argument #2 to 'unpack' (data string too short)", fails(j, "return struct.unpack('>I2', '\\1\\2', 0/0)"));
        assertEquals(List.of("baa", 1L), run(j, "return {string.gsub('aaa', 'a', 'b', 2^32 + 1)}"));
        // A number given for a string is written as Lua 5.1 writes it.
        assertEquals("-nan", run(j, "return string.format(0/0)"));
        assertEquals("[string \"-nan\"]:1: unexpected symbol near '-'", run(j, "return select(2, loadstring(0/0))"));
    }

    @Test
    void xpcallHandsAnErrorOfItsHandlerToTheHandler(Jedis j) {
        assertEquals(Arrays.asList(null, "bad argument #1 to '?' (string expected, got nil)"), run(j, "return {xpcall(error, string.format)}"));
        assertEquals(Arrays.asList(null, "150user_script:1: y"),
                run(j, "local n = 0 return {xpcall(error, function(e) n = n + 1 if n < 150 then error('y') end return n .. e end)}"));
    }

    @Test
    void mathRandomIsRedisGenerator(Jedis j) {
        // What redis-server 7.0.15 answers.
        assertEquals(List.of(75L, 342702L, "0.11108528222474"),
                run(j, "math.randomseed(42); return {math.random(100), math.random(1, 1000000), tostring(math.random())}"));
        assertEquals(List.of(53L, 28L), run(j, "math.randomseed(5); return {math.random(100), math.random(100)}"));
        assertEquals("user_script:1: wrong number of arguments", fails(j, "return math.random(1, 2, 3)"));
        assertEquals("user_script:1: bad argument #2 to 'random' (interval is empty)", fails(j, "return math.random(5, 1)"));
    }

    @Test
    void protectedCallsAndErrorLevels(Jedis j) {
        assertEquals(Arrays.asList(null, "handled: user_script:1: boom"),
                run(j, "return {xpcall(function() error('boom') end, function(e) return 'handled: ' .. e end)}"));
        assertEquals(Arrays.asList(null, "error in error handling"),
                run(j, "return {xpcall(function() error('x') end, function(e) error('y') end)}"));
        assertEquals(Arrays.asList(null, "user_script:1: deep"),
                run(j, "local function f() error('deep', 2) end local function g() f() end return {pcall(g)}"));
        assertEquals(Arrays.asList(null, "m"), run(j, "return {pcall(function() error('m', 2) end)}"));
        assertEquals(2L, run(j, "return #{pcall(error, {code = 1})}"), "pcall leaves a nil after a table without err");
        assertEquals(List.of(10L, 3L), run(j, "return {table.maxn({1, 2, [10] = 3}), table.getn({nil, nil, 3})}"));
    }

    @Test
    void tableBordersAreLua51s(Jedis j) {
        assertEquals(List.of(3L, 5L, 3L), run(j, "return {#{1, nil, 3}, #{1, 2, 3, nil, 5}, select('#', unpack({1, nil, 3}))}"));
        assertEquals(8L, run(j, "local t = {1,2,3,4,5,6,7,8} t[4] = nil return #t"));
        assertEquals(List.of(1L), run(j, "local t = {1, nil, 3}; table.insert(t, 'x'); return {t[1], t[2], t[3], t[4]}"));
        assertEquals(3L, run(j, "local function f(...) return #{...} end return f(1, nil, 3)"));
    }

    @Test
    void patternsAreLua51s(Jedis j) {
        assertEquals(List.of(1L, 3L, 8L, 12L), run(j, "local a, b = string.find('aaa', '%f[%w]%w+') local c, d = string.find('hello  hello', '%f[%w]%w+', 2)"
                + " return {a, b, c, d}"));
        assertEquals(List.of(4L, 3L), run(j, "return {string.find('abc', '', 10)}"), "an init past the end still finds the empty string");
        assertEquals(List.of("a", "b"), run(j, "return {string.match('a]c', '[^]c]+'), string.match('[b]', '%[(.-)%]')}"));
        assertEquals(List.of("\0", "\0(z))w"), run(j, "return {string.gsub('aaa', '%x+', '%'), (string.gsub('x(y(z))w', '%bxy', '%'))}"),
                "a '%' ending the replacement adds the NUL after it");
        assertEquals(List.of("<hello> <world>", 2L, "X23"), run(j,
                "local s, n = string.gsub('hello world', '(%w+)', '<%1>') return {s, n, (string.gsub(123, 1, 'X'))}"));
        assertEquals(List.of("bob is 3", "heLLo"), run(j,
                "return {(string.gsub('$name is $age', '%$(%w+)', {name = 'bob', age = 3})), (string.gsub('hello', 'l', function(c) return c:upper() end))}"));
        assertEquals(3L, run(j, "local n = 0 for w in string.gmatch('one two three', '%a+') do n = n + 1 end return n"));
        assertFailures(j,
                "return string.gsub('\\0a\\0', '[a', 'X')", "user_script:1: malformed pattern (missing ']')",
                "return string.find('abc', '[]')", "user_script:1: malformed pattern (missing ']')",
                "return string.match('a%', '%')", "user_script:1: malformed pattern (ends with '%')",
                "return string.match('abc', '%fa')", "user_script:1: missing '[' after '%f' in pattern",
                "return string.match('abc', '%b')", "user_script:1: unbalanced pattern",
                "return string.match('abc', 'a)')", "user_script:1: invalid pattern capture",
                "return string.match('abc', '(a')", "user_script:1: unfinished capture",
                "return string.match('abc', '%1')", "user_script:1: invalid capture index",
                "return string.gsub('x', 'x', 1, 'y')", "user_script:1: bad argument #4 to 'gsub' (number expected, got string)",
                "return string.gsub('abc', 'b', true)", "user_script:1: bad argument #3 to 'gsub' (string/function/table expected)",
                "return string.gsub('abc', 'b', function() return {} end)", "user_script:1: invalid replacement value (a table)",
                "return string.find(nil, 'a')", "user_script:1: bad argument #1 to 'find' (string expected, got nil)");
    }

    @Test
    void stringAndTableLibrariesHaveLua51sFunctions(Jedis j) {
        String names = "local function names(lib) local o = {} for k in pairs(lib) do o[#o + 1] = k end table.sort(o) return table.concat(o, ' ') end";
        assertEquals(List.of("concat foreach foreachi getn insert maxn remove setn sort",
                        "byte char dump find format gfind gmatch gsub len lower match rep reverse sub upper", 1L),
                run(j, names + " return {names(table), names(string), string.gfind == string.gmatch and 1 or 0}"));
        assertEquals(List.of(2L, "a1"), run(j, "local o = {} table.foreach({a = 1}, function(k, v) o[#o + 1] = k .. v end)"
                + " return {table.foreachi({10, 20, 30}, function(i, v) if v == 20 then return i end end), o[1]}"));
        assertFailures(j,
                "return table.setn({}, 1)", "user_script:1: 'setn' is obsolete",
                "return table.foreachi({1}, 1)", "user_script:1: bad argument #2 to 'foreachi' (function expected, got number)");
    }

    @Test
    void newKeysGoIntoTablesWhoseArrayPartHasLua51sSize(Jedis j) {
        assertEquals(List.of(10L, 3L), run(j, "local t = {3, 1, 2}; t.x = 10; return {t.x, #t}"));
        assertEquals(List.of(10L, 3L), run(j, "local t = {3, 1, 2}; t[0] = 10; return {t[0], #t}"));
        assertEquals(List.of(10L, 3L, 1L, 2L), run(j, "local t = {3, 1, 2}; table.insert(t, 0, 10); return {t[0], t[2], t[3], t[4]}"));
        assertEquals(List.of(1L, 2L, 3L), run(j, "local t = {1, 2, 3}; rawset(t, 'a', 1); rawset(t, 0, 2); return {t.a, t[0], #t}"));
        assertEquals(List.of(5L, 3L), run(j, "local t = {1, 2, 3}; local function f() t.x = 5 end f(); return {t.x, #t}"));
        assertEquals(List.of(3L, 1L), run(j, "local t = {1, 2, 3}; setmetatable(t, {__mode = 'k'}); t.x = 1; return {#t, t.x}"));
        assertEquals(List.of(8L, 1L), run(j, "local t = {1, 2, 3, unpack({4, 5, 6, 7, 8})}; t.x = 1; return {#t, t.x}"));
        assertEquals(List.of(6L, 5L), run(j, "local t = {[5] = 9, 1, 2, 3, 4, 5, 6}; return {#t, t[5]}"));
        // An int key that went into the hash part stays one key once the array part grows over it.
        assertEquals(22L, run(j, "local t = {nil, 'a', 1, {}, {}, {}, 'a', 2.5, {}, 2.5, {}, nil, nil, nil, true, true, 2.5, true, 1, h0 = true}"
                + " table.insert(t, 1) table.insert(t, 1) pcall(table.insert, t, 10, 7) return #t"));
        assertEquals(List.of(1L, 1L), run(j, "local t = {1, 2, 3}; rawset(t, 6, 1); t.x = 1; t.y = 2; local n = 0"
                + " for k in pairs(t) do if k == 6 then n = n + 1 end end return {n, t[6]}"));
    }

    @Test
    void sortIsLua51sQuicksort(Jedis j) {
        assertEquals("aecgbfd", run(j, "local t = {{'a', 1}, {'b', 2}, {'c', 1}, {'d', 2}, {'e', 1}, {'f', 2}, {'g', 1}}"
                + " table.sort(t, function(x, y) return x[2] < y[2] end)"
                + " local o = {} for i, v in ipairs(t) do o[i] = v[1] end return table.concat(o)"));
        assertEquals("attempt to compare nil with number", fails(j, "local t = {3, 1, nil, 2}; table.sort(t)"));
        assertEquals(Arrays.asList(null, "user_script:1: invalid order function for sorting"),
                run(j, "return {pcall(function() table.sort({3, 2, 1, 4, 5}, function(a, b) return true end) end)}"));
    }

    @Test
    void structTakesIntegersUpTo32BytesAndCastsAsCDoes(Jedis j) {
        // Past the eighth byte an integer is zeros (lua_struct shifts a 64-bit one); unsigned options take C's cast.
        assertEquals(List.of(255L, 255L, 255L, 255L, 255L, 255L, 255L, 255L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L),
                run(j, "return {struct.pack('<i16', -1):byte(1, -1)}"));
        assertEquals(List.of(16L, 7L, 17L, -1L, 10L), run(j, "local s = struct.pack('>i16', '\\t7\\n')"
                + " return {#s, s:byte(16), #struct.pack('i17', 1e-5), struct.unpack('<i9', string.rep('\\255', 9))}"));
        assertEquals(List.of("0 0 0 0 0 0 0 0", "0 0 0 0 0 0 0 128", "0 0 0 0 0 0 0 128", "0 0 192 255"),
                run(j, "local function b(s) return table.concat({s:byte(1, -1)}, ' ') end"
                        + " return {b(struct.pack('L', 'infinity')), b(struct.pack('L', 0/0)), b(struct.pack('L', 2^63)), b(struct.pack('f', 0/0))}"));
        assertEquals(List.of(-1L, 0L), run(j, "return {struct.unpack('', 'x', -1), struct.size('z')}"));
        // cmsgpack keeps a NaN's sign bit too.
        assertEquals(List.of("-nan", "nan", 203L, 255L, 248L), run(j, "return {tostring(cmsgpack.unpack(cmsgpack.pack((-8)^(1/3)))),"
                + " tostring(cmsgpack.unpack(cmsgpack.pack(-(0/0)))), cmsgpack.pack(0/0):byte(1, 3)}"));
        assertFailures(j,
                "return struct.pack('i17', 'x')", "user_script:1: bad argument #2 to 'pack' (number expected, got string)",
                "return struct.pack('i0', 'a')", "user_script:1: bad argument #2 to 'pack' (number expected, got string)",
                "return struct.pack('i33', 1)", "user_script:1: integral size 33 is larger than limit of 32",
                "return struct.pack('i99999999999', 1)", "user_script:1: integral size overflow",
                "return struct.pack('!3i', 1)", "user_script:1: alignment 3 is not a power of 2",
                "return struct.pack('=', 1)", "user_script:1: bad argument #1 to 'pack' (invalid format option '=')",
                "return struct.pack('c5', 'ab')", "user_script:1: bad argument #3 to 'pack' (string too short)",
                "return struct.unpack('>I2', '\\1\\2\\3\\4', -1)", "user_script:1: bad argument #2 to 'unpack' (data string too short)",
                "return struct.unpack('>', 'ab', 5)", "user_script:1: bad argument #2 to 'unpack' (data string too short)",
                "return struct.unpack('s', '\\255\\255\\255\\255')", "user_script:1: unfinished string in data",
                "return struct.size('s')", "user_script:1: bad argument #1 to 'size' (option 's' has no fixed size)",
                "return struct.size('c0')", "user_script:1: bad argument #1 to 'size' (option 'c0' has no fixed size)");
    }

    @Test
    void cjsonDecodeErrorsNameTheToken(Jedis j) {
        assertFailures(j,
                "return cjson.decode('[1,,2]')", "user_script:1: Expected value but found T_COMMA at character 4",
                "return cjson.decode(':')", "user_script:1: Expected value but found T_COLON at character 1",
                "return cjson.decode('[}')", "user_script:1: Expected value but found T_OBJ_END at character 2",
                "return cjson.decode('{1:2}')", "user_script:1: Expected object key string but found T_NUMBER at character 2",
                "return cjson.decode('[1 true]')", "user_script:1: Expected comma or array end but found T_BOOLEAN at character 4",
                "return cjson.decode('[1 null]')", "user_script:1: Expected comma or array end but found T_NULL at character 4",
                "return cjson.decode('{\"a\":1 \"b\"]')", "user_script:1: Expected comma or object end but found T_STRING at character 8",
                "return cjson.decode('{\"a\":1]')", "user_script:1: Expected comma or object end but found T_ARR_END at character 7",
                "return cjson.decode('{\"ab')", "user_script:1: Expected object key string but found unexpected end of string at character 5",
                "return cjson.decode('1 x')", "user_script:1: Expected the end but found invalid token at character 3",
                "return cjson.decode('[\"\\\\x\"]')", "user_script:1: Expected value but found invalid escape code at character 3",
                "return cjson.decode('1\\0x')", "user_script:1: JSON parser does not support UTF-16 or UTF-32",
                "return cjson.decode('1', 2)", "user_script:1: bad argument #1 to 'decode' (expected 1 argument)");
    }

    @Test
    void functionsPrintAsAddressesAndCjsonNullAsNil(Jedis j) {
        Object printed = run(j, "return {tostring(loadstring('return 1')), tostring(tostring), tostring(function() end), tostring(cjson.null)}");
        List<?> texts = (List<?>) printed;
        for (int i = 0; i < 3; i++) assertEquals(true, texts.get(i).toString().matches("function: 0x[0-9a-f]+"), texts.get(i).toString());
        assertEquals("userdata: (nil)", texts.get(3));
        assertFailures(j, "return math.floor()", "user_script:1: bad argument #1 to 'floor' (number expected, got no value)");
    }

    @Test
    void arithmeticReadsStringsAsStrtodDoes(Jedis j) {
        assertEquals(List.of("-7", "-nan", "16", "inf", "15", "8", "\t7\n", "3"),
                run(j, "local s = '\\t7\\n' local x = '\\t2' x = x + 1 return {tostring(-'\\t7\\n'), tostring('\\t7\\n' % '-0'),"
                        + " tostring('0x1p4' + 0), tostring('inf' * 1), tostring(' 0x10 ' - 1), tostring(2 ^ ' 3\\n'), s, tostring(x)}"));
        // A metamethod still gets the string; text strtod does not read still fails.
        assertEquals("tablestring", run(j, "local t = setmetatable({}, {__add = function(a, b) return type(a) .. type(b) end}) return t + '\\t7\\n'"));
        assertFailures(j, "local s = 'x' return s + 1", "user_script:1: attempt to perform arithmetic on local 's' (a string value)");
    }

    @Test
    void coroutinesHandBackTheirErrorsAsRaised(Jedis j) {
        assertEquals(Arrays.asList(null, "user_script:1: user_script:1: wrapped"),
                run(j, "return {pcall(function() local g = coroutine.wrap(function() error('wrapped') end) return g() end)}"));
        assertEquals(Arrays.asList(null, "user_script:1: wrapped"), run(j, "return {pcall(coroutine.wrap(function() error('wrapped') end))}"));
        assertEquals(Arrays.asList(null, "boom"), run(j, "return {pcall(coroutine.wrap(function() error({err = 'boom'}) end))}"));
        assertEquals(List.of("false", "table", "dead"), run(j, "local co = coroutine.create(function() error({1}) end)"
                + " local ok, e = coroutine.resume(co) return {tostring(ok), type(e), coroutine.status(co)}"));
        assertEquals("user_script:1: cannot resume dead coroutine", run(j, "local g = coroutine.wrap(function() return 1 end) g()"
                + " local ok, e = pcall(function() return g() end) return e"));
        assertFailures(j, "local g = coroutine.wrap(function() error('wrapped') end) return g()", "user_script:1: user_script:1: wrapped");
    }

    @Test
    void cmsgpackArgumentErrorsAreLua51s(Jedis j) {
        // lua-cmsgpack's luaL_argerror(L, 0, ...) and luaL_checklstring, worded by Lua 5.1 as Redis 7.0.15 answers.
        assertFailures(j,
                "return cmsgpack.pack()", "user_script:1: bad argument #0 to 'pack' (MessagePack pack needs input.)",
                "return cmsgpack.unpack()", "user_script:1: bad argument #1 to 'unpack' (string expected, got no value)",
                "return cmsgpack.unpack_one({})", "user_script:1: bad argument #1 to 'unpack_one' (string expected, got table)",
                "return cmsgpack.unpack_limit(nil, 1)", "user_script:1: bad argument #1 to 'unpack_limit' (string expected, got nil)");
        assertEquals(List.of(49L, 50L), run(j, "return {cmsgpack.unpack(12)}")); // the text "12": two fixnums
    }

    @Test
    void twoNumberMathFunctionsCheckTheSecondArgumentFirst(Jedis j) {
        // Lua 5.1's C: pow(luaL_checknumber(L, 1), luaL_checknumber(L, 2)), arguments evaluated right to left.
        assertFailures(j,
                "return math.pow('a.b', '')", "user_script:1: bad argument #2 to 'pow' (number expected, got string)",
                "return math.atan2('1e', '')", "user_script:1: bad argument #2 to 'atan2' (number expected, got string)",
                "return math.mod('a', 'x')", "user_script:1: bad argument #2 to 'mod' (number expected, got string)",
                "return math.fmod('a', 'x')", "user_script:1: bad argument #2 to 'fmod' (number expected, got string)",
                "return math.ldexp('a', 'x')", "user_script:1: bad argument #2 to 'ldexp' (number expected, got string)",
                "return math.ldexp('a', 2)", "user_script:1: bad argument #1 to 'ldexp' (number expected, got string)");
        assertEquals("1024", run(j, "return tostring(math.pow('2', ' 10'))"));
    }

    @Test
    void cmsgpackPacksTwoToThe63AsAFloat(Jedis j) {
        // lua-cmsgpack's IS_INT64_EQUIVALENT: (int64_t) 2^63 is INT64_MIN on x86, so 2^63 is no integer.
        assertEquals(List.of(202L, 95L, 0L, 0L, 0L), run(j, "return {cmsgpack.pack(2^63):byte(1, -1)}"));
        assertEquals(List.of(211L, 128L, 0L, 0L, 0L, 0L, 0L, 0L, 0L), run(j, "return {cmsgpack.pack(-2^63):byte(1, -1)}"));
    }

    @Test
    void aNanOverZeroStaysANan(Jedis j) {
        // C's division keeps the NaN, sign and all (x86's 0/0 is -nan); luaj's x/0 answered by x's sign: -inf.
        assertEquals(List.of("-nan", "-nan", "nan", "-nan", "nan", "inf-inf"),
                run(j, "local n, z = 0/0, 0 return {tostring(-1/0 * 0/0), tostring(n/z), tostring(-n/z), tostring(n/'0'),"
                        + " tostring('nan'/0), tostring(5/0) .. tostring(-5/z)}"));
    }
}
