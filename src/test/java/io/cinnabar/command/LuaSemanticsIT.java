package io.cinnabar.command;

import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import java.util.Arrays;
import java.util.List;

import static io.cinnabar.command.Raw.cmd;
import static io.cinnabar.command.Raw.error;
import static org.junit.jupiter.api.Assertions.assertEquals;

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
                "local up; return (function() return up.x end)()", "user_script:1: attempt to index upvalue 'up' (a nil value)");
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
}
