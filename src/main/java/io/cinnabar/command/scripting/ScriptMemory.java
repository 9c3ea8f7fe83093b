package io.cinnabar.command.scripting;

/**
 * INFO memory's scripting figures: the script cache and the function libraries, their counts and
 * the bytes they hold (code, names and a fixed per-entry overhead; the Lua heap itself is the
 * JVM's and is not measured apart).
 */
public record ScriptMemory(int cachedScripts, long scriptsEvalBytes, int functions, int libraries, long functionsBytes) {
    /** Per cached script or function: its map entry and name, as Redis's dict entries and sds. */
    static final int ENTRY_OVERHEAD = 64;

    public static final ScriptMemory NONE = new ScriptMemory(0, 0, 0, 0, 0);
}
