package io.cinnabar.command.scripting;

import org.luaj.vm2.Lua;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;

/**
 * Lua 5.1's text for an operation that failed on a value of the wrong type, such as "attempt to
 * index local 't' (a nil value)" or "attempt to compare number with nil", worked out from the
 * instruction that failed and the values in its registers. luaj's own texts name no variable
 * ("attempt to index ? (a nil value)") and word several cases differently ("attempt to
 * concatenate nil and string"); scripts and their tests match on Lua 5.1's.
 *
 * Variables are named as Lua 5.1's getobjname does: a local by its name, else by the
 * instruction that last set the register (a global, a field with a constant name, an upvalue, a
 * method), found by scanning the function's code as Lua's findsetreg does. luaj compiles to
 * Lua 5.2 bytecode, so globals are fields of the _ENV upvalue here.
 */
final class FailedInstruction {
    private FailedInstruction() {}

    /** The message for the instruction at pc failing on these registers, or null when it cannot have failed itself. */
    static String describe(LuaClosure closure, int pc, LuaValue[] stack) {
        Prototype p = closure.p;
        if (stack == null || pc < 0 || pc >= p.code.length) return null;
        int i = p.code[pc];
        int a = Lua.GETARG_A(i), b = Lua.GETARG_B(i), c = Lua.GETARG_C(i);
        switch (Lua.GET_OPCODE(i)) {
            case Lua.OP_GETTABLE, Lua.OP_SELF -> {
                return indexable(stack[b]) ? null : typeError(p, pc, b, stack[b], "index");
            }
            case Lua.OP_GETTABUP, Lua.OP_SETTABUP -> {
                // Lua 5.2 indexes an upvalue in place where Lua 5.1 first copied it to a register.
                int up = Lua.GET_OPCODE(i) == Lua.OP_GETTABUP ? b : a;
                if (up >= closure.upValues.length || up >= p.upvalues.length || p.upvalues[up].name == null) return null;
                LuaValue t = closure.upValues[up].getValue();
                if (indexable(t)) return null;
                return "attempt to index upvalue '" + p.upvalues[up].name.tojstring() + "' (a " + t.typename() + " value)";
            }
            case Lua.OP_SETTABLE -> {
                // A string's metatable has __index but no __newindex: assigning into one fails.
                if (!stack[a].istable() && !hasMeta(stack[a])) return typeError(p, pc, a, stack[a], "index");
                return badKey(rk(p, stack, b));
            }
            case Lua.OP_CALL, Lua.OP_TAILCALL -> {
                return callable(stack[a]) ? null : typeError(p, pc, a, stack[a], "call");
            }
            case Lua.OP_ADD, Lua.OP_SUB, Lua.OP_MUL, Lua.OP_DIV, Lua.OP_MOD, Lua.OP_POW -> {
                LuaValue x = rk(p, stack, b), y = rk(p, stack, c);
                if (hasMeta(x) || hasMeta(y)) return null;
                // Lua 5.1 blames the first operand that is not a number (or a numeric string).
                if (!CNumber.tonumber(x).isnil()) {
                    return CNumber.tonumber(y).isnil() ? operandError(p, pc, c, y, "perform arithmetic on") : null;
                }
                return operandError(p, pc, b, x, "perform arithmetic on");
            }
            case Lua.OP_UNM -> {
                return hasMeta(stack[b]) || !CNumber.tonumber(stack[b]).isnil() ? null : typeError(p, pc, b, stack[b], "perform arithmetic on");
            }
            case Lua.OP_LEN -> {
                LuaValue v = stack[b];
                return v.istable() || v.type() == LuaValue.TSTRING || hasMeta(v) ? null : typeError(p, pc, b, v, "get length of");
            }
            case Lua.OP_CONCAT -> {
                // Lua 5.1 joins from the right: the strings and numbers at the end become one
                // string, and the pair before it fails unless one of the two has __concat
                // (luaV_concat). luaG_concaterror names the pair's first unless that is text.
                int r = c;
                while (r >= b && text(stack[r])) r--;
                if (r < b) return null;
                int first = r == c ? r - 1 : r;
                if (first < b || metamethod(stack[first], "__concat") || metamethod(stack[r], "__concat")) return null;
                int named = text(stack[first]) ? r : first;
                return typeError(p, pc, named, stack[named], "concatenate");
            }
            case Lua.OP_LT, Lua.OP_LE -> {
                return compareError(rk(p, stack, b), rk(p, stack, c));
            }
            default -> {
                return null;
            }
        }
    }

    /** luaG_ordererror: "attempt to compare two table values", "attempt to compare number with nil". */
    private static String compareError(LuaValue x, LuaValue y) {
        String tx = x.typename(), ty = y.typename();
        if (tx.equals(ty)) {
            if (x.type() == LuaValue.TNUMBER || x.type() == LuaValue.TSTRING || hasMeta(x)) return null;
            return "attempt to compare two " + tx + " values";
        }
        return "attempt to compare " + tx + " with " + ty;
    }

    /** Lua 5.1's error for a key no table can hold, or null. */
    static String badKey(LuaValue key) {
        if (key.isnil()) return "table index is nil";
        if (key.type() == LuaValue.TNUMBER && Double.isNaN(key.todouble())) return "table index is NaN";
        return null;
    }

    private static boolean indexable(LuaValue v) {
        return v.istable() || v.type() == LuaValue.TSTRING || hasMeta(v);
    }

    private static boolean callable(LuaValue v) {
        return v.isfunction() || hasMeta(v);
    }

    private static boolean text(LuaValue v) {
        return v.type() == LuaValue.TSTRING || v.type() == LuaValue.TNUMBER;
    }

    /** Whether v's metatable has the metamethod event (read raw, as luaT_gettmbyobj does). */
    private static boolean metamethod(LuaValue v, String event) {
        LuaValue mt = v.getmetatable();
        return mt != null && !mt.rawget(event).isnil();
    }

    /** Values with a metatable may have failed inside a metamethod: their own error stands. */
    private static boolean hasMeta(LuaValue v) {
        return v.type() != LuaValue.TSTRING && v.type() != LuaValue.TNUMBER && v.getmetatable() != null;
    }

    private static LuaValue rk(Prototype p, LuaValue[] stack, int x) {
        return Lua.ISK(x) ? p.k[Lua.INDEXK(x)] : stack[x];
    }

    /** A constant operand is not on Lua 5.1's stack, so it gets no name. */
    private static String operandError(Prototype p, int pc, int x, LuaValue v, String op) {
        return Lua.ISK(x) ? "attempt to " + op + " a " + v.typename() + " value" : typeError(p, pc, x, v, op);
    }

    /** luaG_typeerror: "attempt to <op> <kind> '<name>' (a <type> value)", or "attempt to <op> a <type> value". */
    private static String typeError(Prototype p, int pc, int reg, LuaValue v, String op) {
        String[] name = objectName(p, pc, reg);
        return name == null
                ? "attempt to " + op + " a " + v.typename() + " value"
                : "attempt to " + op + " " + name[0] + " '" + name[1] + "' (a " + v.typename() + " value)";
    }

    /** {kind, name} of what register reg holds at pc, as Lua 5.1 calls it, or null. */
    static String[] objectName(Prototype p, int pc, int reg) {
        LuaString local = p.getlocalname(reg + 1, pc);
        if (local != null) return new String[] {"local", local.tojstring()};
        int set = lastSet(p, pc, reg);
        if (set < 0) return null;
        int i = p.code[set];
        int a = Lua.GETARG_A(i), b = Lua.GETARG_B(i), c = Lua.GETARG_C(i);
        return switch (Lua.GET_OPCODE(i)) {
            case Lua.OP_MOVE -> b < a ? objectName(p, set, b) : null;
            case Lua.OP_GETTABUP -> {
                boolean env = b < p.upvalues.length && p.upvalues[b].name != null && p.upvalues[b].name.tojstring().equals("_ENV");
                yield new String[] {env ? "global" : "field", constantName(p, c)};
            }
            case Lua.OP_GETTABLE -> new String[] {"field", constantName(p, c)};
            case Lua.OP_GETUPVAL -> b < p.upvalues.length && p.upvalues[b].name != null
                    ? new String[] {"upvalue", p.upvalues[b].name.tojstring()} : null;
            case Lua.OP_SELF -> new String[] {"method", constantName(p, c)};
            default -> null;
        };
    }

    /** Lua 5.1's kname: a constant string key by its text, any other key as "?". */
    private static String constantName(Prototype p, int x) {
        if (Lua.ISK(x) && p.k[Lua.INDEXK(x)].type() == LuaValue.TSTRING) return p.k[Lua.INDEXK(x)].tojstring();
        return "?";
    }

    /**
     * The last instruction before lastpc that set register reg, or -1 when there is none or it
     * lies in code a forward jump may have skipped (then the value's origin is not known).
     */
    private static int lastSet(Prototype p, int lastpc, int reg) {
        int set = -1, jumpTarget = 0;
        for (int pc = 0; pc < lastpc; pc++) {
            int i = p.code[pc];
            int op = Lua.GET_OPCODE(i), a = Lua.GETARG_A(i);
            boolean changes = switch (op) {
                case Lua.OP_LOADNIL -> a <= reg && reg <= a + Lua.GETARG_B(i);
                case Lua.OP_TFORCALL -> reg >= a + 2;
                case Lua.OP_CALL, Lua.OP_TAILCALL -> reg >= a;
                case Lua.OP_JMP -> {
                    int dest = pc + 1 + Lua.GETARG_sBx(i);
                    if (pc < dest && dest <= lastpc && dest > jumpTarget) jumpTarget = dest;
                    yield false;
                }
                default -> Lua.testAMode(op) && reg == a;
            };
            if (changes) set = pc < jumpTarget ? -1 : pc;
        }
        return set;
    }
}
