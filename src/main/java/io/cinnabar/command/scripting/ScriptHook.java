package io.cinnabar.command.scripting;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.Lua;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaNumber;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaThread;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.DebugLib;

import java.util.function.Supplier;

/**
 * luaj calls its debug library on every call, return and instruction once one is installed;
 * scripts get no debug library, and this one serves two ends:
 * <ul>
 * <li>it stops a script that must stop (SCRIPT KILL, a FUNCTION LOAD past its time), as Redis's
 * count hook does. Once stopped, every instruction raises again, so pcall cannot swallow it;</li>
 * <li>before a concatenation it turns the numbers about to be joined into Lua 5.1's text for them
 * ({@link Lua51#text}): luaj writes non-integral numbers with Java's Float.toString (3.0E-4 where
 * Lua 5.1 writes 0.0003) and offers no other way in. The operands of CONCAT are always fresh
 * temporary registers, so rewriting them changes nothing else.</li>
 * <li>after "#t" of a table it puts Lua 5.1's length in place of luaj's ({@link Lua51Tables#length}):
 * the two pick different borders of a table with holes, and Lua 5.1 ignores __len on tables;
 * after a table constructor it sizes the table as Lua 5.1 does, which decides those borders
 * (and before a store of a new key, sizes it as luaj's rehash needs);</li>
 * <li>when an instruction fails, it gives Lua 5.1's text for the failure
 * ({@link FailedInstruction}) as the error's "traceback", the one place luaj lets a debug
 * library add to an error while the failing function's registers are still there; LuaErrors
 * takes it from there.</li>
 * </ul>
 * To reach those registers it keeps the stack of each running Lua function, per coroutine (in
 * the slot luaj's own debug library uses for its call stack).
 */
final class ScriptHook extends DebugLib {
    /** Why the running code must stop now (the error it gets), or null to go on. */
    private final Supplier<String> stopReason;
    private final Globals globals;

    /** The Lua debugger of the EVAL running now (SCRIPT DEBUG SYNC), else null. */
    LuaDebugger debugger;

    ScriptHook(Globals globals, Supplier<String> stopReason) {
        this.globals = globals;
        this.stopReason = stopReason;
    }

    /** Lua 5.1's LUAI_MAXCALLS: the calls, Lua or C, one coroutine may have nested. */
    static final int MAX_CALLS = 20000;
    /**
     * Lua 5.1's LUAI_MAXCCALLS: nested calls made through C (luaD_call), counting the script
     * itself: a Lua function called by a C function (pcall, table.sort's comparator, gsub's
     * replacement), as a metamethod, or as a generic for's iterator.
     */
    static final int MAX_C_CALLS = 200;

    @Override public void onCall(LuaFunction f) { frames().push(null, null, false); }

    /**
     * A function returns, or an error leaves it, on the thread that runs it, which pops only the
     * frames it pushed. luaj ends a suspended coroutine that was garbage collected on the
     * coroutine's own thread, up to 5 s later (its poll), by unwinding its functions with an
     * OrphanedThread; each one's return comes here while another coroutine, most often a later
     * script's main one, is globals.running: popping that one's frames ran its instructions
     * against the wrong registers (an NPE from a CONCAT, or Java's text of a number). Such a
     * thread reads frames without caching or making them, and finds none it runs.
     */
    @Override
    public void onReturn() {
        LuaThread running = globals.running;
        Object frames = running == framesThread ? framesOfThread : running.callstack;
        if (frames instanceof Frames f && f.runner == Thread.currentThread()) f.pop();
    }

    /**
     * A Lua function starts: Lua 5.1's limits on nesting apply here, with its errors, raised in
     * the caller (luaj calls this before the callee's frame exists), which gives them the
     * caller's position as luaG_runerror does ("user_script:1: stack overflow"); a C caller
     * (pcall) adds none. The Java stack of the threads scripts run on is sized for these limits.
     */
    @Override
    public void onCall(LuaClosure c, Varargs varargs, LuaValue[] stack) {
        Frames f = frames();
        int caller = f.depth - 1;
        // Lua-to-Lua calls of CALL and TAILCALL reenter Lua 5.1's VM; every other way goes through C.
        boolean throughC = caller < 0 || f.closures[caller] == null || !calling(f.closures[caller], f.pcs[caller]);
        if (f.depth + 1 > MAX_CALLS) throw new LuaError("stack overflow");
        if (throughC && f.cCalls + 1 >= MAX_C_CALLS) throw new LuaError("C stack overflow");
        f.push(c, stack, throughC);
    }

    /**
     * Whether the script must stop is asked every STOP_CHECK_EVERY instructions, and after a
     * redis.call during which a kill came ({@link #stopCheckDue}): the question (a volatile read or
     * two, a clock past a deadline) cost more than the instruction itself, and a loop of slow calls
     * (KEYS over many keys) would see a SCRIPT KILL only seconds later. Once it has raised, the
     * count stays spent and every instruction raises again.
     */
    private void checkStop() {
        String reason = stopReason.get();
        if (reason != null) throw LuaErrors.raise(LuaErrors.errorTable(reason, false));
        untilStopCheck = STOP_CHECK_EVERY;
    }

    static final int STOP_CHECK_EVERY = 1024;
    private int untilStopCheck;

    /** The next instruction asks whether the script must stop. */
    void stopCheckDue() {
        untilStopCheck = 0;
    }

    private static boolean calling(LuaClosure c, int pc) {
        if (pc < 0 || pc >= c.p.code.length) return false;
        int op = Lua.GET_OPCODE(c.p.code[pc]);
        return op == Lua.OP_CALL || op == Lua.OP_TAILCALL;
    }

    /** The opcodes {@link #adjust} looks at: every other instruction only moves the pc. */
    private static final boolean[] ADJUSTED = new boolean[64];
    static {
        for (int op : new int[] {Lua.OP_CONCAT, Lua.OP_LEN, Lua.OP_NEWTABLE, Lua.OP_SETLIST, Lua.OP_ADD, Lua.OP_SUB,
                Lua.OP_MUL, Lua.OP_DIV, Lua.OP_MOD, Lua.OP_POW, Lua.OP_UNM, Lua.OP_SETTABLE, Lua.OP_SETTABUP}) {
            ADJUSTED[op] = true;
        }
    }

    /**
     * Kept small, so that the JIT inlines it into luaj's interpreter loop: most instructions
     * need no more than their pc noted.
     */
    @Override
    public void onInstruction(int pc, Varargs v, int top) {
        Frames f = frames();
        // Before a kill can end the script here: a constant swapped for its number stays in the
        // cached function otherwise.
        if (f.swapped > 0) f.restoreOperands();
        if (--untilStopCheck <= 0) checkStop();
        int at = f.depth - 1;
        if (at < 0) return;
        int previousPc = f.pcs[at];
        f.pcs[at] = pc;
        LuaClosure running = f.closures[at];
        if (running == null) return;
        if (f.after[at] >= 0 || debugger != null || ADJUSTED[Lua.GET_OPCODE(running.p.code[pc])]) {
            adjust(f, at, running, pc, previousPc, top);
        }
    }

    private void adjust(Frames f, int at, LuaClosure running, int pc, int previousPc, int top) {
        LuaValue[] stack = f.stacks[at];
        if (f.after[at] >= 0) afterwards(f, at, stack);
        // Before this instruction's operands are prepared below: a stop may run Lua code (eval).
        if (debugger != null) debugger.instruction(running.p, pc, previousPc);
        int i = running.p.code[pc];
        int a = Lua.GETARG_A(i), b = Lua.GETARG_B(i), c = Lua.GETARG_C(i);
        switch (Lua.GET_OPCODE(i)) {
            case Lua.OP_CONCAT -> concatenating(stack, b, c);
            case Lua.OP_LEN -> {
                if (stack[b] instanceof LuaTable t) f.expect(at, Lua.OP_LEN, a, t, 0);
            }
            case Lua.OP_NEWTABLE -> f.expect(at, Lua.OP_NEWTABLE, a, null, floatingByte(b));
            case Lua.OP_SETLIST -> {
                if (c > 0 && stack[a] instanceof LuaTable t) Lua51Tables.growArray(t, (c - 1) * Lua.LFIELDS_PER_FLUSH + (b > 0 ? b : top - a - 1));
            }
            case Lua.OP_ADD, Lua.OP_SUB, Lua.OP_MUL, Lua.OP_DIV, Lua.OP_MOD, Lua.OP_POW -> {
                LuaValue x = rk(running, stack, b), y = rk(running, stack, c);
                if (x instanceof LuaNumber && y instanceof LuaNumber) {
                    if (Lua.GET_OPCODE(i) == Lua.OP_DIV && nanOverZero(x, y)) replaceOperand(f, running, stack, a, c, LuaValue.valueOf(1.0));
                    break;
                }
                boolean strings = x.type() == LuaValue.TSTRING || y.type() == LuaValue.TSTRING;
                LuaValue nx = strings ? CNumber.tonumber(x) : x, ny = strings ? CNumber.tonumber(y) : y;
                // Otherwise a metamethod runs (or the error is raised) with the operands as they are.
                if (nx.isnil() || ny.isnil()) break;
                if (strings) arithmeticOperand(f, running, stack, a, b, nx);
                if (Lua.GET_OPCODE(i) == Lua.OP_DIV && nanOverZero(nx, ny)) replaceOperand(f, running, stack, a, c, LuaValue.valueOf(1.0));
                else if (strings) arithmeticOperand(f, running, stack, a, c, ny);
            }
            case Lua.OP_UNM -> {
                LuaValue x = stack[b];
                if (x.type() == LuaValue.TSTRING) {
                    LuaValue n = CNumber.tonumber(x);
                    if (!n.isnil()) arithmeticOperand(f, running, stack, a, b, n);
                    break;
                }
                // Lua 5.1 calls __unm as a binary metamethod, with the operand twice (luaV_arith
                // with rb, rb); luaj with the operand alone. It runs here, and UNM reads its result.
                LuaValue mt = x.type() == LuaValue.TNUMBER ? null : x.getmetatable();
                LuaValue unm = mt == null ? LuaValue.NIL : mt.rawget("__unm");
                if (unm.isfunction()) replaceOperand(f, running, stack, a, b, new Negated(unm.call(x, x)));
            }
            case Lua.OP_SETTABLE -> Lua51Tables.beforeSet(stack[a], rk(running, stack, b), rk(running, stack, c));
            case Lua.OP_SETTABUP -> Lua51Tables.beforeSet(running.upValues[a].getValue(), rk(running, stack, b), rk(running, stack, c));
            default -> { }
        }
    }

    /**
     * What an instruction of the function at frame at did, put right before the next one
     * reads it: a table's length made Lua 5.1's, a new table's array part sized as Lua 5.1
     * sizes it (luaj rounds it up to a power of two). The border "#t" finds depends on that
     * size; SETLIST grows it before its stores as Lua 5.1 does, and a store of a new key first
     * makes it one luaj's rehash can count ({@link Lua51Tables#beforeSet}).
     */
    private static void afterwards(Frames f, int at, LuaValue[] stack) {
        int op = f.after[at], reg = f.afterReg[at];
        f.after[at] = -1;
        switch (op) {
            case Lua.OP_LEN -> stack[reg] = LuaValue.valueOf(Lua51Tables.length(f.afterTable[at]));
            case Lua.OP_NEWTABLE -> {
                if (stack[reg] instanceof LuaTable t) Lua51Tables.sizeNew(t, f.afterSize[at]);
            }
            default -> { }
        }
        f.afterTable[at] = null;
    }

    /**
     * Arithmetic reads a string operand as Lua 5.1's luaO_str2d does (strtod: "\t7\n", "0x1p4",
     * "inf"), where luaj's reader takes fewer: the operand x (register or constant) holds its
     * number for this one instruction, and its string again before the next (unless x is the
     * register the result goes to).
     */
    private static void arithmeticOperand(Frames f, LuaClosure running, LuaValue[] stack, int a, int x, LuaValue number) {
        if (rk(running, stack, x).type() == LuaValue.TSTRING) replaceOperand(f, running, stack, a, x, number);
    }

    /**
     * luaj's division answers x/0 by the sign of x, so a NaN over 0 was -inf; C's division keeps
     * the NaN (Redis's -1/0 * 0/0 is -nan). The divisor then reads 1 for this one instruction:
     * NaN/1 is that same NaN.
     */
    private static boolean nanOverZero(LuaValue x, LuaValue y) {
        return x.type() == LuaValue.TNUMBER && y.type() == LuaValue.TNUMBER && Double.isNaN(x.todouble()) && y.todouble() == 0;
    }

    /** Operand x (register or constant) reads number for this one instruction. */
    private static void replaceOperand(Frames f, LuaClosure running, LuaValue[] stack, int a, int x, LuaValue number) {
        if (Lua.ISK(x)) f.swap(running.p.k, Lua.INDEXK(x), number);
        else if (x == a) stack[x] = number;
        else f.swap(stack, x, number);
    }

    /** An instruction's RK operand: a constant or a register. */
    private static LuaValue rk(LuaClosure running, LuaValue[] stack, int x) {
        return Lua.ISK(x) ? running.p.k[Lua.INDEXK(x)] : stack[x];
    }

    /** An operand whose __unm has run: UNM gives the metamethod's result. */
    private static final class Negated extends LuaValue {
        private final LuaValue result;

        Negated(LuaValue result) {
            this.result = result;
        }

        @Override public int type() { return result.type(); }
        @Override public String typename() { return result.typename(); }
        @Override public LuaValue neg() { return result; }
    }

    /** Lua's "floating point byte" (luaO_fb2int), how NEWTABLE encodes sizes. */
    private static int floatingByte(int x) {
        int e = (x >>> 3) & 0x1f;
        return e == 0 ? x : ((x & 7) + 8) << (e - 1);
    }

    /**
     * CONCAT joins registers b..c. Only when all are strings or numbers: otherwise a __concat
     * metamethod may run, and it must see the numbers as numbers.
     */
    private static void concatenating(LuaValue[] stack, int b, int c) {
        boolean fractional = false;
        for (int j = b; j <= c; j++) {
            LuaValue v = stack[j];
            if (v.type() != LuaValue.TSTRING && v.type() != LuaValue.TNUMBER) return;
            if (Lua51.needsText(v)) fractional = true;
        }
        if (!fractional) return;
        for (int j = b; j <= c; j++) {
            if (Lua51.needsText(stack[j])) stack[j] = Lua51.text(stack[j]);
        }
    }

    /**
     * Runs a Java function that calls Lua code (pcall, xpcall) as a frame of its own, so that
     * error levels counted from inside stop at it as Lua 5.1's do.
     */
    Varargs called(Supplier<Varargs> body) {
        Frames f = frames();
        int depth = f.depth;
        // Called by a Java function (tostring as another's __tostring): Lua 5.1 made the call with
        // luaD_call, which counts it towards LUAI_MAXCCALLS and fails in the caller, a C function
        // (no position; Redis's reply says "on =[C]:-1").
        boolean byC = depth > 0 && f.closures[depth - 1] == null;
        if (byC && f.cCalls + 1 >= MAX_C_CALLS) throw new PositionlessError(LuaValue.valueOf("C stack overflow"), true);
        f.push(null, null, byC);
        try {
            return body.get();
        } finally {
            f.unwindTo(depth);
        }
    }

    /**
     * How the Java function running now was called, as Lua 5.1's getfuncname sees it: by a Lua
     * function's call instruction (kind and name as that names the callee: "global", "field",
     * "method"...), by a Lua function otherwise (a metamethod: no name), or by a Java function
     * (pcall, gsub's replacement, a coroutine's start).
     */
    record CallSite(boolean byLua, String kind, String name) {
        static final CallSite BY_C = new CallSite(false, null, null);
        static final CallSite UNNAMED = new CallSite(true, null, null);
    }

    CallSite runningCall() {
        Frames f = frames();
        if (f.depth == 0 || f.closures[f.depth - 1] == null) return CallSite.BY_C;
        LuaClosure c = f.closures[f.depth - 1];
        int pc = f.pcs[f.depth - 1];
        if (!calling(c, pc)) return CallSite.UNNAMED;
        String[] name = FailedInstruction.objectName(c.p, pc, Lua.GETARG_A(c.p.code[pc]));
        return name == null ? CallSite.UNNAMED : new CallSite(true, name[0], name[1]);
    }

    /**
     * "source:line" of the Lua function level calls up (1: the one calling the running Java
     * function), or null. A function that tail-called a Lua function is gone in Lua 5.1, where
     * its level is a lost tail call with no line ({@link TailCalls#wasTailCall}).
     */
    String where(int level) {
        Frames f = frames();
        int at = f.depth - level;
        if (at < 0 || f.closures[at] == null) return null;
        LuaClosure c = f.closures[at];
        int pc = f.pcs[at];
        if (at + 1 < f.depth && f.closures[at + 1] != null && TailCalls.wasTailCall(c.p, pc)) return null;
        int[] lines = c.p.lineinfo;
        if (lines == null || pc < 0 || pc >= lines.length) return null;
        return LuaErrors.chunkId(c.p.source.tojstring()) + ":" + lines[pc];
    }

    /** The running coroutine's functions, outermost first, for the debugger: how many, and each one's closure (null for Java), instruction and registers. */
    int frameCount() {
        return frames().depth;
    }

    LuaClosure frameClosure(int frame) {
        return frames().closures[frame];
    }

    int framePc(int frame) {
        return frames().pcs[frame];
    }

    LuaValue[] frameStack(int frame) {
        return frames().stacks[frame];
    }

    /**
     * Whether the frame called the next one with "return f(x)": a frame Lua 5.1 has replaced by
     * its callee's ({@link TailCalls}: luaj runs such calls as plain ones here).
     */
    boolean lostToTailCall(int frame) {
        Frames f = frames();
        return frame + 1 < f.depth && f.closures[frame] != null && f.closures[frame + 1] != null
                && TailCalls.wasTailCall(f.closures[frame].p, f.pcs[frame]);
    }

    /**
     * The name frame's function was called by (getfuncname): only a Lua caller's call instruction
     * names it, and not a tail call's.
     */
    String calledName(int frame) {
        Frames f = frames();
        if (frame == 0 || f.closures[frame - 1] == null || lostToTailCall(frame - 1)) return null;
        LuaClosure caller = f.closures[frame - 1];
        int pc = f.pcs[frame - 1];
        if (!calling(caller, pc)) return null;
        String[] name = FailedInstruction.objectName(caller.p, pc, Lua.GETARG_A(caller.p.code[pc]));
        return name == null ? null : name[1];
    }

    /**
     * The coroutine frames() last answered for, and its frames: one comparison per instruction
     * instead of a field read and a type check (a 100k-step arithmetic loop: 5.7-6.0 ms against
     * 6.3-6.5 without).
     */
    private LuaThread framesThread;
    private Frames framesOfThread;

    private Frames frames() {
        LuaThread running = globals.running;
        if (running == framesThread) return framesOfThread;
        Frames f;
        if (running.callstack instanceof Frames known) {
            f = known;
        } else {
            f = new Frames();
            running.callstack = f;
        }
        framesThread = running;
        framesOfThread = f;
        return f;
    }

    /** The Lua functions running in one coroutine, innermost last (null for Java functions). */
    private static final class Frames {
        LuaClosure[] closures = new LuaClosure[16];
        LuaValue[][] stacks = new LuaValue[16][];
        /** The instruction each function is at. */
        int[] pcs = new int[16];
        /**
         * Per function: the opcode whose effect {@link #afterwards} adjusts (-1: none), its
         * register, table and size.
         */
        int[] after = new int[16];
        int[] afterReg = new int[16];
        LuaTable[] afterTable = new LuaTable[16];
        int[] afterSize = new int[16];
        /** Per function: whether it was called through C ({@link #onCall(LuaClosure, Varargs, LuaValue[])}). */
        boolean[] throughC = new boolean[16];
        /** Functions on this stack called through C: Lua 5.1's nCcalls. */
        int cCalls;
        /** The Java thread that pushed the last frame: a coroutine's own, the main one's for the script's run ({@link #onReturn}). */
        Thread runner;

        /** Operands of the last arithmetic instruction that hold a number in place of their string. */
        private final LuaValue[][] swappedIn = new LuaValue[2][];
        private final int[] swappedAt = new int[2];
        private final LuaValue[] swappedOut = new LuaValue[2];
        int swapped;

        void swap(LuaValue[] values, int at, LuaValue number) {
            swappedIn[swapped] = values;
            swappedAt[swapped] = at;
            swappedOut[swapped++] = values[at];
            values[at] = number;
        }

        void restoreOperands() {
            while (swapped > 0) {
                swapped--;
                swappedIn[swapped][swappedAt[swapped]] = swappedOut[swapped];
                swappedIn[swapped] = null;
                swappedOut[swapped] = null;
            }
        }

        void expect(int at, int op, int reg, LuaTable t, int size) {
            after[at] = op;
            afterReg[at] = reg;
            afterTable[at] = t;
            afterSize[at] = size;
        }
        int depth;

        void push(LuaClosure c, LuaValue[] stack, boolean viaC) {
            if (depth == closures.length) {
                throughC = java.util.Arrays.copyOf(throughC, depth * 2);
                closures = java.util.Arrays.copyOf(closures, depth * 2);
                stacks = java.util.Arrays.copyOf(stacks, depth * 2);
                pcs = java.util.Arrays.copyOf(pcs, depth * 2);
                after = java.util.Arrays.copyOf(after, depth * 2);
                afterReg = java.util.Arrays.copyOf(afterReg, depth * 2);
                afterTable = java.util.Arrays.copyOf(afterTable, depth * 2);
                afterSize = java.util.Arrays.copyOf(afterSize, depth * 2);
            }
            runner = Thread.currentThread();
            pcs[depth] = -1;
            after[depth] = -1;
            throughC[depth] = viaC;
            if (viaC) cCalls++;
            closures[depth] = c;
            stacks[depth++] = stack;
        }

        /** Back to target frames, whatever an error left above them. */
        void unwindTo(int target) {
            while (depth > target) pop();
            if (depth == target) return;
            depth = target;
            cCalls = 0;
            for (int i = 0; i < depth; i++) if (throughC[i]) cCalls++;
        }

        void pop() {
            if (depth == 0) return;
            if (throughC[depth - 1]) cCalls--;
            afterTable[depth - 1] = null;
            closures[--depth] = null;
            stacks[depth] = null;
        }
    }

    /** Called by luaj as an error leaves the innermost Lua function, which is still on top here. */
    @Override
    public String traceback(int level) {
        Frames f = frames();
        if (f.depth == 0 || f.closures[f.depth - 1] == null) return "";
        String text = FailedInstruction.describe(f.closures[f.depth - 1], f.pcs[f.depth - 1], f.stacks[f.depth - 1]);
        return text == null ? "" : text;
    }
}
