package io.cinnabar.command.scripting;

/**
 * The interpreter's classes loaded on a helper thread while the standalone server warms up, so
 * that making its interpreter before "Ready to accept connections" (as redis-server makes its
 * own at start) does not wait for them: a fresh JVM's first interpreter costs 140-650 ms on 2
 * busy cores (luaj's libraries and compiler, Redis's 5.1 bridges, cjson, cmsgpack, struct, bit),
 * a later one 20-40 ms. A throwaway interpreter compiles and runs one chunk; nothing of it is
 * kept. No script may run in the JVM meanwhile: luaj's string metatable is one per JVM, and the
 * real interpreter sets its own when it is made.
 */
public final class LuaClassLoading {
    private LuaClassLoading() {}

    /** Started at once; join it before a server makes its interpreter. */
    public static Thread startInBackground() {
        Thread t = new Thread(LuaClassLoading::load, "cinnabar-lua-loading");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void load() {
        try {
            SandboxGlobals g = ScriptEngine.standardLibraries();
            Lua51.install(g);
            BitLib.table();
            CjsonLib.table();
            StructLib.table();
            CmsgpackLib.table();
            g.load("local t = {} for i = 1, 3 do t[#t + 1] = string.format('%d', i) end return table.concat(t)").call();
        } catch (RuntimeException e) {
            // Only a head start: the server makes its interpreter all the same.
            org.slf4j.LoggerFactory.getLogger(LuaClassLoading.class).debug("Lua class loading: {}", e.toString());
        }
    }
}
