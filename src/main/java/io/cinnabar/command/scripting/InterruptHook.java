package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.lib.DebugLib;

import java.util.function.BooleanSupplier;

/**
 * luaj calls its debug library on every instruction once one is installed; this one keeps no
 * call stack (scripts get no debug library) and only stops a script SCRIPT KILL asked to stop,
 * as Redis's count hook does. Once killed, every instruction raises again, so pcall cannot
 * swallow the kill.
 */
final class InterruptHook extends DebugLib {
    private final BooleanSupplier killed;

    InterruptHook(BooleanSupplier killed) {
        this.killed = killed;
    }

    @Override public void onCall(LuaFunction f) { }
    @Override public void onCall(LuaClosure c, Varargs varargs, LuaValue[] stack) { }
    @Override public void onReturn() { }

    @Override
    public void onInstruction(int pc, Varargs v, int top) {
        if (killed.getAsBoolean()) {
            throw LuaErrors.raise(LuaErrors.errorTable("Script killed by user with SCRIPT KILL...", false));
        }
    }

    @Override
    public String traceback(int level) {
        return "";
    }
}
