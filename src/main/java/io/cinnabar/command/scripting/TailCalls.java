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

    /**
     * Whether the instruction at pc was a tail call before {@link #disable}: a CALL keeping all
     * results, then "RETURN A 0" of the same register, is what "return f(x)" compiles to and
     * nothing else does (a call among several returned values is not at the RETURN's register).
     */
    static boolean wasTailCall(Prototype p, int pc) {
        int[] code = p.code;
        if (pc < 0 || pc + 1 >= code.length) return false;
        int call = code[pc], ret = code[pc + 1];
        return Lua.GET_OPCODE(call) == Lua.OP_CALL && Lua.GETARG_C(call) == 0 && Lua.GET_OPCODE(ret) == Lua.OP_RETURN
                && Lua.GETARG_A(ret) == Lua.GETARG_A(call) && Lua.GETARG_B(ret) == 0;
    }

    private static void patch(Prototype p) {
        int[] code = p.code;
        for (int i = 0; i < code.length; i++) {
            if ((code[i] & Lua.MASK_OP) == Lua.OP_TAILCALL) code[i] = (code[i] & ~Lua.MASK_OP) | Lua.OP_CALL;
        }
        if (p.p != null) for (Prototype nested : p.p) patch(nested);
    }
}
