package io.cinnabar.command;

import io.cinnabar.junit.CinnabarTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.FunctionRestorePolicy;
import redis.clients.jedis.resps.LibraryInfo;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

import static io.cinnabar.command.Raw.cmd;
import static io.cinnabar.command.Raw.error;
import static org.junit.jupiter.api.Assertions.assertEquals;

@CinnabarTest
class FunctionCommandsIT {
    private static final String LIB = "#!lua name=lib\nredis.register_function('f', function() return 'v1' end)";
    private static final String LIB_V2 = "#!lua name=lib\nredis.register_function('f', function() return 'v2' end)";
    private static final String OTHER = "#!lua name=other\nredis.register_function('g', function() return 'g' end)";

    /** FUNCTION DUMP by redis-server 7.0.15 of a library "fromredis" whose function "answer" returns 42. */
    private static final byte[] REDIS_PAYLOAD = HexFormat.of().parseHex("f5c3404a40501423216c7561206e616d653d66726f6d726564"
            + "69730a60051c2e72656769737465725f66756e6374696f6e2827616e73776572272c20e000120f292072657475726e20343220656e64290a"
            + "003389a743031abf20");

    @BeforeEach
    void noLibraries(Jedis j) {
        j.functionFlush();
    }

    private static List<String> libraryNames(Jedis j) {
        return j.functionList().stream().map(LibraryInfo::getLibraryName).sorted().toList();
    }

    @Test
    void aFunctionsErrorsKeepTheirPositionAfterScriptFlush(Jedis j) {
        j.functionLoad("#!lua name=errs\nredis.register_function{function_name='errs',\n"
                + "  callback=function(keys, args) return redis.call('exists', keys[1]) end}");
        String expected = "ERR Lua redis lib command arguments must be strings or integers script: errs, on @user_function:3.";
        assertEquals(expected, error(() -> j.fcall("errs", List.of(), List.of())));
        j.eval("return 1");
        j.scriptFlush();
        assertEquals(expected, error(() -> j.fcall("errs", List.of(), List.of())), "a fresh interpreter for scripts");
        assertEquals(0L, j.fcall("errs", List.of("no-such-key"), List.of()), "the library still serves its functions");
    }

    @Test
    void dumpAndRestoreWithEachPolicy(Jedis j) {
        j.functionLoad(LIB);
        j.functionLoad(OTHER);
        byte[] payload = j.functionDump();
        j.functionFlush();
        assertEquals("OK", j.functionRestore(payload));
        assertEquals(List.of("lib", "other"), libraryNames(j));
        assertEquals("v1", j.fcall("f", List.of(), List.of()));

        j.functionDelete("other");
        j.functionLoadReplace(LIB_V2);
        assertEquals("ERR Library lib already exists", error(() -> j.functionRestore(payload)), "APPEND is the default");
        assertEquals("ERR Library lib already exists", error(() -> j.functionRestore(payload, FunctionRestorePolicy.APPEND)));
        assertEquals(List.of("lib"), libraryNames(j), "a failed restore changes nothing");
        assertEquals("v2", j.fcall("f", List.of(), List.of()));

        assertEquals("OK", j.functionRestore(payload, FunctionRestorePolicy.REPLACE));
        assertEquals("v1", j.fcall("f", List.of(), List.of()));
        assertEquals(List.of("lib", "other"), libraryNames(j));

        j.functionFlush();
        j.functionLoad("#!lua name=kept\nredis.register_function('k', function() return 1 end)");
        assertEquals("OK", j.functionRestore(payload, FunctionRestorePolicy.FLUSH));
        assertEquals(List.of("lib", "other"), libraryNames(j), "FLUSH drops what was there");
    }

    @Test
    void aFunctionNameTakenByAnotherLibraryFailsTheWholeRestore(Jedis j) {
        j.functionLoad(LIB);
        j.functionLoad(OTHER);
        byte[] payload = j.functionDump();
        j.functionFlush();
        j.functionLoad("#!lua name=thief\nredis.register_function('G', function() return 'stolen' end)");
        assertEquals("ERR Function g already exists", error(() -> j.functionRestore(payload, FunctionRestorePolicy.REPLACE)));
        assertEquals(List.of("thief"), libraryNames(j));
        assertEquals("stolen", j.fcall("g", List.of(), List.of()), "function names are case-insensitive");
    }

    @Test
    void aPayloadOfRedisRestores(Jedis j) {
        assertEquals("OK", j.functionRestore(REDIS_PAYLOAD));
        assertEquals(42L, j.fcall("answer", List.of(), List.of()));
        assertEquals(List.of("fromredis"), libraryNames(j));
    }

    @Test
    void badPayloadsAndArgumentsGiveRedisErrorsAndKeepTheLibraries(Jedis j) {
        j.functionLoad(LIB);
        assertEquals("ERR DUMP payload version or checksum are wrong", error(() -> j.functionRestore("bad_payload".getBytes())));
        j.set("k", "value");
        assertEquals("ERR given type is not a function", error(() -> j.functionRestore(j.dump("k"))));
        assertEquals("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.",
                error(() -> cmd(j, "FUNCTION", "RESTORE", "x", "MERGE")));
        assertEquals("ERR unknown subcommand or wrong number of arguments for 'restore'. Try FUNCTION HELP.",
                error(() -> cmd(j, "FUNCTION", "restore", "a", "b", "c")));
        assertEquals("ERR unknown subcommand or wrong number of arguments for 'flush'. Try FUNCTION HELP.",
                error(() -> cmd(j, "FUNCTION", "flush", "SYNC", "extra")));
        assertEquals("ERR FUNCTION FLUSH only supports SYNC|ASYNC option", error(() -> cmd(j, "FUNCTION", "FLUSH", "bad")));
        assertEquals(List.of("lib"), libraryNames(j));
    }

    @Test
    void libraryMetadataIsParsedAsRedisDoes(Jedis j) {
        assertEquals("ERR Engine '' not found", error(() -> j.functionLoad("#! name=t\nredis.register_function('a', function() end)")));
        assertEquals("ERR Invalid metadata value given: foo=bar", error(() -> j.functionLoad("#!lua name=t foo=bar\n")));
        assertEquals("ERR Library name was not given", error(() -> j.functionLoad("#!lua\n")));
        assertEquals("ERR Invalid metadata value, name argument was given multiple times",
                error(() -> j.functionLoad("#!lua name=a name=b\n")));
        assertEquals("quoted", j.functionLoad("#!LUA name=\"quoted\"\nredis.register_function('q', function() return 1 end)"));
    }

    @Test
    void fcallKeysStatsAndCallErrors(Jedis j) {
        j.functionLoad(LIB);
        j.functionLoad(OTHER);
        assertEquals(List.of("x"), cmd(j, "COMMAND", "GETKEYS", "FCALL", "f", "1", "x", "arg"));
        assertEquals(List.of("x", "y"), cmd(j, "COMMAND", "GETKEYS", "FCALL_RO", "f", "2", "x", "y"));
        assertEquals(Arrays.asList("running_script", null, "engines", List.of("LUA", List.of("libraries_count", 2L, "functions_count", 2L))),
                cmd(j, "FUNCTION", "STATS"));
        j.functionLoad("#!lua name=nested\nredis.register_function('n', function()\n"
                + "  redis.register_function('m', function() end)\nend)");
        assertEquals("ERR user_function:3: attempt to call field 'register_function' (a nil value) script: n, on @user_function:3.",
                error(() -> j.fcall("n", List.of(), List.of())));
    }
}
