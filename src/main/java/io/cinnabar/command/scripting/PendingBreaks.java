package io.cinnabar.command.scripting;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The breaks luaj's parser holds as pending gotos where it stopped: Lua 5.2's break is a goto to
 * the end of its loop, resolved when the loop ends, or an error when its function ends; Lua 5.1
 * refuses a break outside any loop at once ("no loop to break"). So where luaj stopped later, at
 * another error, a pending break that no open loop holds is Lua 5.1's error, and came first.
 * (goto is no keyword here, see SyntaxErrors: every pending goto is a break.)
 */
final class PendingBreaks {
    private PendingBreaks() {}

    private static final VarHandle FUNC_STATE_BL, FUNC_STATE_PREV, PREVIOUS, IS_LOOP, FIRST_GOTO, DYD, GOTOS, GOTO_COUNT, GOTO_LINE;

    static {
        try {
            Class<?> funcState = Class.forName("org.luaj.vm2.compiler.FuncState");
            Class<?> block = Class.forName("org.luaj.vm2.compiler.FuncState$BlockCnt");
            Class<?> lexState = Class.forName("org.luaj.vm2.compiler.LexState");
            Class<?> dyndata = Class.forName("org.luaj.vm2.compiler.LexState$Dyndata");
            Class<?> label = Class.forName("org.luaj.vm2.compiler.LexState$Labeldesc");
            MethodHandles.Lookup functions = MethodHandles.privateLookupIn(funcState, MethodHandles.lookup());
            FUNC_STATE_BL = functions.findVarHandle(funcState, "bl", block);
            FUNC_STATE_PREV = functions.findVarHandle(funcState, "prev", funcState);
            MethodHandles.Lookup blocks = MethodHandles.privateLookupIn(block, MethodHandles.lookup());
            PREVIOUS = blocks.findVarHandle(block, "previous", block);
            IS_LOOP = blocks.findVarHandle(block, "isloop", boolean.class);
            FIRST_GOTO = blocks.findVarHandle(block, "firstgoto", short.class);
            DYD = MethodHandles.privateLookupIn(lexState, MethodHandles.lookup()).findVarHandle(lexState, "dyd", dyndata);
            MethodHandles.Lookup dyd = MethodHandles.privateLookupIn(dyndata, MethodHandles.lookup());
            GOTOS = dyd.findVarHandle(dyndata, "gt", label.arrayType());
            GOTO_COUNT = dyd.findVarHandle(dyndata, "n_gt", int.class);
            GOTO_LINE = MethodHandles.privateLookupIn(label, MethodHandles.lookup()).findVarHandle(label, "line", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The index among the pending gotos of the first break that no open loop holds, in the
     * function being compiled or those around it; -1 if none, or if a function is being closed
     * (luaj's own error then names its break). A function's gotos follow those of the functions
     * around it; a loop holds those that came after it opened (those before it in a loop that
     * ended were resolved then).
     */
    static int firstLoose(Object ls) {
        int upper = count(ls), first = -1;
        for (Object fs = SyntaxErrors.FS.get(ls); fs != null; fs = FUNC_STATE_PREV.get(fs)) {
            Object bl = FUNC_STATE_BL.get(fs);
            if (bl == null) return -1;
            int start = 0, firstInLoop = upper;
            for (; bl != null; bl = PREVIOUS.get(bl)) {
                start = (short) FIRST_GOTO.get(bl);
                if ((boolean) IS_LOOP.get(bl)) firstInLoop = Math.min(firstInLoop, start);
            }
            if (start < firstInLoop) first = start;
            upper = start;
        }
        return first;
    }

    /** How many gotos are pending: the last one is the break read last. */
    static int count(Object ls) {
        return (int) GOTO_COUNT.get(DYD.get(ls));
    }

    /** The line of the pending goto at index. */
    static int line(Object ls, int index) {
        return (int) GOTO_LINE.get(((Object[]) GOTOS.get(DYD.get(ls)))[index]);
    }
}
