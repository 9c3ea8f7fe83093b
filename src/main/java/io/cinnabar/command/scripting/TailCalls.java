package io.cinnabar.command.scripting;

import org.luaj.vm2.Lua;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;

/**
 * Turns a compiled chunk's tail calls into plain calls. luaj runs a tail call after its caller's
 * frame is gone, so an error raised there (redis.call in "return redis.call(...)", the commonest
 * line of any script) would lose its "user_script:N" position, which Redis's replies carry.
 * A TAILCALL is followed by "RETURN A 0" (all results), so a CALL keeping every result in its
 * place returns the same values.
 */
final class TailCalls {
    private TailCalls() {}

    static LuaValue disable(LuaValue chunk) {
        if (chunk instanceof LuaClosure closure) patch(closure.p);
        return chunk;
    }

    private static void patch(Prototype p) {
        int[] code = p.code;
        for (int i = 0; i < code.length; i++) {
            if ((code[i] & Lua.MASK_OP) == Lua.OP_TAILCALL) code[i] = (code[i] & ~Lua.MASK_OP) | Lua.OP_CALL;
        }
        if (p.p != null) for (Prototype nested : p.p) patch(nested);
    }
}
