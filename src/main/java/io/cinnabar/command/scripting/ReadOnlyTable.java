package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.util.function.Supplier;

/**
 * A Lua table scripts cannot change once locked, as Redis's patched Lua marks the globals and
 * every library table: a script must not leave state behind for the next one.
 */
class ReadOnlyTable extends LuaTable {
    static final String MESSAGE = "Attempt to modify a readonly table";
    private boolean locked;

    void lock() {
        locked = true;
    }

    /** Whether a store into t is refused as Redis refuses it, before anything else is checked. */
    static boolean refuses(LuaValue t) {
        return t instanceof ReadOnlyTable r && r.locked || t instanceof SandboxGlobals g && g.locked();
    }

    static void refuse(boolean locked) {
        if (locked) throw new Refused();
    }

    /** The refusal, told apart from other errors so that a library function can raise it as C does. */
    static final class Refused extends LuaError {
        Refused() {
            super(MESSAGE);
        }
    }

    /**
     * A library function that changes tables (rawset, setmetatable, table.insert/remove/sort):
     * Lua 5.1 raises the refusal inside it, in C, where luaG_runerror adds no position
     * ("Attempt to modify a readonly table", not "user_script:1: Attempt ..."). A refusal that
     * already left a Lua function (table.sort's comparator) keeps that function's position.
     */
    static Varargs raisedInC(Supplier<Varargs> call) {
        try {
            return call.get();
        } catch (Refused e) {
            if (LuaErrors.leftALuaFunction(e)) throw e;
            throw new PositionlessError(LuaValue.valueOf(MESSAGE));
        }
    }

    @Override public void rawset(int key, LuaValue value) { refuse(locked); super.rawset(key, value); }
    @Override public void rawset(LuaValue key, LuaValue value) { refuse(locked); super.rawset(key, value); }
    @Override public void hashset(LuaValue key, LuaValue value) { refuse(locked); super.hashset(key, value); }
    @Override public LuaValue setmetatable(LuaValue mt) { refuse(locked); return super.setmetatable(mt); }
    @Override public void insert(int pos, LuaValue value) { refuse(locked); super.insert(pos, value); }
    @Override public LuaValue remove(int pos) { refuse(locked); return super.remove(pos); }
    @Override public void sort(LuaValue comparator) { refuse(locked); super.sort(comparator); }

    /** A locked copy of t, with its nested tables and metatable copied and locked too. */
    static LuaValue lockedCopy(LuaValue t, java.util.Map<LuaValue, LuaValue> done) {
        if (!t.istable() || t instanceof ReadOnlyTable) return t;
        LuaValue seen = done.get(t);
        if (seen != null) return seen;
        ReadOnlyTable copy = new ReadOnlyTable();
        done.put(t, copy);
        LuaValue k = LuaValue.NIL;
        while (true) {
            org.luaj.vm2.Varargs n = t.next(k);
            if ((k = n.arg1()).isnil()) break;
            copy.rawset(k, lockedCopy(n.arg(2), done));
        }
        LuaValue mt = t.getmetatable();
        if (mt != null) copy.setmetatable(lockedCopy(mt, done));
        copy.lock();
        return copy;
    }
}
