package io.cinnabar.command.scripting;

import org.junit.jupiter.api.Test;
import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaValue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What a client reads of a script's error. */
class LuaErrorsTest {
    /**
     * A Java exception thrown while Lua runs (luaj's "vm error: java.lang...") is a fault of
     * Cinnabar's: its text is not the client's, whether the error ends the script or pcall
     * catches it. Seen with ScriptHook's NullPointerException in lua-diff seed 714.
     */
    @Test
    void aJavaExceptionReachesTheClientAsAnInternalError() {
        Globals g = ScriptEngine.standardLibraries();
        g.rawset("boom", RedisApi.fn(a -> {
            throw new NullPointerException("Cannot invoke \"org.luaj.vm2.LuaValue.type()\" because \"v\" is null");
        }));
        LuaValue script = g.load("local x = boom() return x", "@user_script", g);
        LuaError e = assertThrows(LuaError.class, script::call);
        assertEquals("user_script:1: " + LuaErrors.INTERNAL_ERROR, LuaErrors.lua51Message(e));
        assertEquals("user_script:1: " + LuaErrors.INTERNAL_ERROR, LuaErrors.value(e).tojstring());
        assertEquals("ERR user_script:1: " + LuaErrors.INTERNAL_ERROR + " script: f00, on @user_script:1.", LuaErrors.reply(e, "f00"));
        assertEquals(LuaErrors.INTERNAL_ERROR, LuaErrors.lua51Message(new LuaError(new IllegalStateException("x"))));
    }
}
