package io.cinnabar.command.scripting;

import io.cinnabar.command.CommandError;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.cinnabar.command.scripting.RedisApi.fn;

/**
 * Function libraries (FUNCTION LOAD): their code, the functions they registered and the
 * environment they run in. As in Redis, library code sees only the load API (register_function,
 * log, versions) while it loads; its functions see the scripts' globals when called.
 */
final class FunctionLibraries {
    record Function(String name, String description, ScriptFlags flags, LuaValue callback, String library) { }

    record Library(String name, byte[] code, Map<String, Function> functions) { }

    /** Redis's LOAD_TIMEOUT_MS: a library's top-level code may run this long. */
    private static final long LOAD_TIMEOUT_NANOS = 500_000_000L;
    private final ScriptEngine engine;
    private final Map<String, Library> libraries = new LinkedHashMap<>();
    private final Map<String, Function> functions = new LinkedHashMap<>();
    /**
     * The environment of library code: empty, reading through to the load API or the globals.
     * A Globals, because luaj gives closures the debug hook (SCRIPT KILL) only through theirs.
     */
    private final SandboxGlobals environment = new SandboxGlobals();
    private final LuaTable loadApi;
    /** The library being loaded; non-null only during FUNCTION LOAD. */
    private Map<String, Function> registering;
    private String registeringLibrary;

    FunctionLibraries(ScriptEngine engine) {
        this.engine = engine;
        ReadOnlyTable redis = new ReadOnlyTable();
        redis.rawset("register_function", fn(this::registerFunction));
        LuaTable full = (LuaTable) engine.globals().rawget("redis");
        for (String k : List.of("log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING", "REDIS_VERSION", "REDIS_VERSION_NUM")) {
            redis.rawset(k, full.rawget(k));
        }
        redis.setmetatable(ScriptEngine.nonexistentGlobalError());
        redis.lock();
        ReadOnlyTable api = new ReadOnlyTable();
        api.rawset("redis", redis);
        api.setmetatable(ScriptEngine.nonexistentGlobalError());
        api.lock();
        loadApi = api;
        LuaTable meta = new LuaTable();
        meta.rawset("__index", fn(a -> (registering != null ? loadApi : engine.globals()).get(a.arg(2))));
        environment.setmetatable(ReadOnlyTable.lockedCopy(meta, new java.util.IdentityHashMap<>()));
        environment.debuglib = engine.globals().debuglib;
        environment.lock();
    }

    Function function(String name) {
        return functions.get(name);
    }

    Collection<Library> libraries() {
        return libraries.values();
    }

    int functionCount() {
        return functions.size();
    }

    /** FUNCTION LOAD: the library's name, or CommandError with Redis's text. */
    String load(byte[] payload, boolean replace) {
        String[] meta = metadata(payload);
        String engineName = meta[0], name = meta[1];
        if (!engineName.equalsIgnoreCase("LUA")) throw new CommandError("ERR Engine '" + engineName + "' not found");
        if (!validName(name)) throw invalidName();
        Library old = libraries.get(name);
        if (old != null && !replace) throw new CommandError("ERR Library '" + name + "' already exists");
        int newline = indexOf(payload, (byte) '\n');
        byte[] code = java.util.Arrays.copyOfRange(payload, newline, payload.length);
        LuaValue chunk;
        try {
            chunk = TailCalls.disable(engine.globals().load(new ByteArrayInputStream(code), "@user_function", "t", environment));
        } catch (LuaError e) {
            throw new CommandError("ERR Error compiling function: " + LuaErrors.lua51Message(String.valueOf(e.getMessage())));
        }
        Map<String, Function> registered = new LinkedHashMap<>();
        registering = registered;
        registeringLibrary = name;
        engine.loadDeadlineNanos = System.nanoTime() + LOAD_TIMEOUT_NANOS;
        try {
            chunk.call();
        } catch (LuaError e) {
            LuaValue v = LuaErrors.value(e);
            String msg = v.istable() && v.rawget("err").isstring() ? v.rawget("err").tojstring() : "ERR " + v.tojstring();
            throw new CommandError("ERR Error registering functions: " + msg);
        } finally {
            engine.loadDeadlineNanos = 0;
            registering = null;
            registeringLibrary = null;
        }
        if (registered.isEmpty()) throw new CommandError("ERR No functions registered");
        for (Function f : registered.values()) {
            Function existing = functions.get(f.name());
            if (existing != null && !existing.library().equals(name)) {
                throw new CommandError("ERR Function " + f.name() + " already exists");
            }
        }
        if (old != null) delete(name);
        libraries.put(name, new Library(name, payload, registered));
        functions.putAll(registered);
        return name;
    }

    /** FUNCTION DELETE: false if there is no such library. */
    boolean delete(String name) {
        Library l = libraries.remove(name);
        if (l == null) return false;
        for (String f : l.functions().keySet()) functions.remove(f);
        return true;
    }

    void flush() {
        libraries.clear();
        functions.clear();
    }

    /** "#!<engine> name=<library>": engine and name, Redis's errors otherwise. */
    private static String[] metadata(byte[] payload) {
        if (payload.length < 2 || payload[0] != '#' || payload[1] != '!') throw new CommandError("ERR Missing library metadata");
        int end = indexOf(payload, (byte) '\n');
        if (end < 0) throw new CommandError("ERR Invalid library metadata");
        String[] parts = new String(payload, 2, end - 2, StandardCharsets.UTF_8).trim().split("[ \t]+");
        if (parts.length == 0 || parts[0].isEmpty()) throw new CommandError("ERR Invalid library metadata");
        String name = null;
        for (int i = 1; i < parts.length; i++) {
            if (parts[i].regionMatches(true, 0, "name=", 0, 5)) {
                if (name != null) throw new CommandError("ERR Invalid metadata value, name argument was given multiple times");
                name = parts[i].substring(5);
            } else {
                throw new CommandError("ERR Invalid metadata value given: " + parts[i]);
            }
        }
        if (name == null) throw new CommandError("ERR Library name was not given");
        return new String[] {parts[0], name};
    }

    private static int indexOf(byte[] b, byte c) {
        for (int i = 0; i < b.length; i++) if (b[i] == c) return i;
        return -1;
    }

    private static boolean validName(String name) {
        if (name.isEmpty()) return false;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
        }
        return true;
    }

    private static CommandError invalidName() {
        return new CommandError("ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long");
    }

    private static LuaError loadError(String message) {
        return LuaErrors.raise(LuaErrors.errorTable(message, false));
    }

    /** redis.register_function(name, callback) or redis.register_function{function_name=..., callback=..., flags=..., description=...} */
    private Varargs registerFunction(Varargs a) {
        if (registering == null) throw loadError("redis.register_function can only be called on FUNCTION LOAD command");
        int argc = a.narg();
        if (argc < 1 || argc > 2) throw loadError("wrong number of arguments to redis.register_function");
        String name = null, description = null;
        LuaValue callback = null;
        ScriptFlags flags = new ScriptFlags(false, false, false, false, false, false, 0);
        if (argc == 2) {
            if (!a.arg(1).isstring()) throw loadError("first argument to redis.register_function must be a string");
            if (!a.arg(2).isfunction()) throw loadError("second argument to redis.register_function must be a function");
            name = a.arg(1).tojstring();
            callback = a.arg(2);
        } else {
            LuaValue t = a.arg1();
            if (!t.istable()) throw loadError("calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).");
            LuaValue k = LuaValue.NIL;
            while (true) {
                Varargs n = t.next(k);
                if ((k = n.arg1()).isnil()) break;
                LuaValue v = n.arg(2);
                if (!k.isstring()) throw loadError("named argument key given to redis.register_function is not a string");
                switch (k.tojstring().toLowerCase(java.util.Locale.ROOT)) {
                    case "function_name" -> {
                        if (!v.isstring()) throw loadError("function_name argument given to redis.register_function must be a string");
                        name = v.tojstring();
                    }
                    case "description" -> {
                        if (!v.isstring()) throw loadError("description argument given to redis.register_function must be a string");
                        description = v.tojstring();
                    }
                    case "callback" -> {
                        if (!v.isfunction()) throw loadError("callback argument given to redis.register_function must be a function");
                        callback = v;
                    }
                    case "flags" -> {
                        if (!v.istable()) throw loadError("flags argument to redis.register_function must be a table representing function flags");
                        flags = flags(v);
                    }
                    default -> throw loadError("unknown argument given to redis.register_function");
                }
            }
            if (name == null) throw loadError("redis.register_function must get a function name argument");
            if (callback == null) throw loadError("redis.register_function must get a callback argument");
        }
        if (!validName(name)) throw loadError(invalidName().getMessage().substring(4));
        if (registering.containsKey(name)) throw loadError("Function already exists in the library");
        registering.put(name, new Function(name, description, flags, callback, registeringLibrary));
        return LuaValue.NONE;
    }

    private static ScriptFlags flags(LuaValue t) {
        boolean noWrites = false, allowOom = false, allowStale = false, noCluster = false, crossSlot = false;
        for (int i = 1; !t.rawget(i).isnil(); i++) {
            LuaValue f = t.rawget(i);
            if (!f.isstring()) throw loadError("unknown flag given");
            switch (f.tojstring()) {
                case "no-writes" -> noWrites = true;
                case "allow-oom" -> allowOom = true;
                case "allow-stale" -> allowStale = true;
                case "no-cluster" -> noCluster = true;
                case "allow-cross-slot-keys" -> crossSlot = true;
                default -> throw loadError("unknown flag given");
            }
        }
        return new ScriptFlags(false, noWrites, allowOom, allowStale, noCluster, crossSlot, 0);
    }

    /** Flag names as FUNCTION LIST shows them. */
    static List<String> flagNames(ScriptFlags f) {
        List<String> out = new ArrayList<>();
        if (f.noWrites()) out.add("no-writes");
        if (f.allowOom()) out.add("allow-oom");
        if (f.allowStale()) out.add("allow-stale");
        if (f.noCluster()) out.add("no-cluster");
        if (f.allowCrossSlot()) out.add("allow-cross-slot-keys");
        return out;
    }
}
