package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.lang.ref.WeakReference;

/**
 * The string metatable (what s:upper() indexes) of the interpreter whose Lua runs on the calling
 * thread. luaj keeps one in a static field for the whole JVM, where each Redis has its own; the
 * servers of one JVM (embedded tests, the JIT warm-up's) each have theirs, so this one table
 * stands in that field and answers with the running interpreter's. Before, the interpreter made
 * last served every server: getmetatable('').__index was not the other servers' string table,
 * and the server it belonged to stayed reachable after it was closed, with its whole data set.
 */
final class StringMetatable extends ReadOnlyTable {
    private static final StringMetatable INSTANCE = new StringMetatable();
    private static final ThreadLocal<LuaValue> RUNNING = new ThreadLocal<>();
    /** For Lua run outside {@link #enter}: the interpreter made last, while it lives. */
    private static volatile WeakReference<LuaValue> latest = new WeakReference<>(null);
    /** What strings index where no interpreter is running or alive: nothing. */
    private static final LuaValue NONE = new LuaTable();

    private StringMetatable() {
        lock();
    }

    /** An interpreter's own string metatable, made (or made again by SCRIPT FLUSH). */
    static void install(LuaValue own) {
        latest = new WeakReference<>(own);
        LuaString.s_metatable = INSTANCE;
    }

    /** Lua of the interpreter owning this metatable runs on this thread until {@link #leave}; returns what to restore. */
    static LuaValue enter(LuaValue own) {
        LuaValue before = RUNNING.get();
        RUNNING.set(own);
        return before;
    }

    /** Set, not removed, when nothing ran before: a removal would make the next EVAL allocate the thread's entry again. */
    static void leave(LuaValue before) {
        RUNNING.set(before);
    }

    /** The metatable of the Lua running on this thread (for a coroutine's thread to take over). */
    static LuaValue running() {
        LuaValue own = RUNNING.get();
        return own != null ? own : latest.get();
    }

    private static LuaValue own() {
        LuaValue own = running();
        return own != null ? own : NONE;
    }

    @Override public LuaValue rawget(LuaValue key) { return own().rawget(key); }
    @Override public LuaValue rawget(int key) { return own().rawget(key); }
    @Override public Varargs next(LuaValue key) { return own().next(key); }
    @Override public int length() { return own().length(); }
    @Override public int rawlen() { return own().rawlen(); }
}
