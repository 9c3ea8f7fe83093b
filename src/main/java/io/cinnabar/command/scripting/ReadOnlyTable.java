package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

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

    static void refuse(boolean locked) {
        if (locked) throw new LuaError(MESSAGE);
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
