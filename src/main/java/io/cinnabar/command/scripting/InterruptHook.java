package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.lib.DebugLib;

import java.util.function.Supplier;

/**
 * luaj calls its debug library on every instruction once one is installed; this one keeps no
 * call stack (scripts get no debug library) and only stops a script that must stop (SCRIPT KILL,
 * a FUNCTION LOAD past its time), as Redis's count hook does. Once stopped, every instruction
 * raises again, so pcall cannot swallow it.
 */
final class InterruptHook extends DebugLib {
    /** Why the running code must stop now (the error it gets), or null to go on. */
    private final Supplier<String> stopReason;

    InterruptHook(Supplier<String> stopReason) {
        this.stopReason = stopReason;
    }

    @Override public void onCall(LuaFunction f) { }
    @Override public void onCall(LuaClosure c, Varargs varargs, LuaValue[] stack) { }
    @Override public void onReturn() { }

    @Override
    public void onInstruction(int pc, Varargs v, int top) {
        String reason = stopReason.get();
        if (reason != null) throw LuaErrors.raise(LuaErrors.errorTable(reason, false));
    }

    @Override
    public String traceback(int level) {
        return "";
    }
}
