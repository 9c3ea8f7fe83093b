package io.cinnabar.command.scripting;

import org.luaj.vm2.Globals;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;

/**
 * The scripts' global table: locked like Redis's (new globals fail with "Attempt to modify a
 * readonly table"), except for KEYS and ARGV, which the engine sets before each EVAL.
 */
final class SandboxGlobals extends Globals {
    private boolean locked;

    void lock() {
        locked = true;
    }

    boolean locked() {
        return locked;
    }

    /** Sets a global bypassing the lock (KEYS, ARGV). */
    void setUnlocked(LuaString name, LuaValue value) {
        boolean was = locked;
        locked = false;
        try {
            super.rawset(name, value);
        } finally {
            locked = was;
        }
    }

    @Override public void rawset(int key, LuaValue value) { ReadOnlyTable.refuse(locked); super.rawset(key, value); }
    @Override public void rawset(LuaValue key, LuaValue value) { ReadOnlyTable.refuse(locked); super.rawset(key, value); }
    @Override public void hashset(LuaValue key, LuaValue value) { ReadOnlyTable.refuse(locked); super.hashset(key, value); }
    @Override public LuaValue setmetatable(LuaValue mt) { ReadOnlyTable.refuse(locked); return super.setmetatable(mt); }
    @Override public void insert(int pos, LuaValue value) { ReadOnlyTable.refuse(locked); super.insert(pos, value); }
    @Override public LuaValue remove(int pos) { ReadOnlyTable.refuse(locked); return super.remove(pos); }
    @Override public void sort(LuaValue comparator) { ReadOnlyTable.refuse(locked); super.sort(comparator); }
}
