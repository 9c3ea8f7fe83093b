package io.cinnabar.command.scripting;

import io.cinnabar.command.CommandError;
import io.cinnabar.util.ArgSplitter;
import io.cinnabar.util.BinaryText;
import org.luaj.vm2.LuaClosure;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.Varargs;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static io.cinnabar.command.scripting.RedisApi.fn;

/**
 * Function libraries (FUNCTION LOAD): their code, the functions they registered and the
 * environment they run in. As in Redis, library code sees only the load API (register_function,
 * log, versions) while it loads; its functions see the scripts' globals when called.
 */
final class FunctionLibraries {
    /** chunk: the library's compiled code, where a failed call's callee is looked up (CalledNames). */
    record Function(String name, String description, ScriptFlags flags, LuaValue callback, String library, Prototype chunk,
                    RunPlace place) { }

    record Library(String name, byte[] code, Map<String, Function> functions) { }

    /** What FUNCTION RESTORE does with the libraries already there. */
    enum RestorePolicy { APPEND, REPLACE, FLUSH }

    /** Redis's LOAD_TIMEOUT_MS: a library's top-level code may run this long. */
    private static final long LOAD_TIMEOUT_NANOS = 500_000_000L;
    private final ScriptEngine engine;
    private Catalog current = new Catalog();
    /**
     * The environment of library code: empty, reading through to the load API or the globals.
     * A Globals, because luaj gives closures the debug hook (SCRIPT KILL) only through theirs.
     */
    private final SandboxGlobals environment = new SandboxGlobals();
    private final LuaTable loadApi;
    /** The library being loaded; non-null only during FUNCTION LOAD. */
    private Map<String, Function> registering;
    private String registeringLibrary;
    private Prototype registeringChunk;

    /**
     * A set of libraries and the functions they registered (Redis's functionsLibCtx). Library
     * names are case-sensitive; function names are not (FCALL test finds TEST), as in Redis's dicts.
     */
    private static final class Catalog {
        final Map<String, Library> libraries = new LinkedHashMap<>();
        final Map<String, Function> functions = new HashMap<>();
        int functionCount;

        void link(Library l) {
            for (Function f : l.functions().values()) functions.put(key(f.name()), f);
            libraries.put(l.name(), l);
            functionCount += l.functions().size();
        }

        void unlink(Library l) {
            for (Function f : l.functions().values()) functions.remove(key(f.name()));
            libraries.remove(l.name());
            functionCount -= l.functions().size();
        }

        /** A function of l whose name one of the libraries here has registered already, or null. */
        Function collision(Library l) {
            for (Function f : l.functions().values()) if (functions.containsKey(key(f.name()))) return f;
            return null;
        }

        static String key(String functionName) {
            return functionName.toLowerCase(Locale.ROOT);
        }
    }

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
        return current.functions.get(Catalog.key(name));
    }

    Collection<Library> libraries() {
        return current.libraries.values();
    }

    int functionCount() {
        return current.functionCount;
    }

    /** What the libraries hold: code, names and descriptions (INFO memory's used_memory_functions). */
    long bytes() {
        long n = 0;
        for (Library l : current.libraries.values()) {
            n += l.code().length + l.name().length() + ScriptMemory.ENTRY_OVERHEAD;
            for (Function f : l.functions().values()) {
                n += f.name().length() + (f.description() == null ? 0 : f.description().length()) + ScriptMemory.ENTRY_OVERHEAD;
            }
        }
        return n;
    }

    /** Every library's code, as FUNCTION DUMP and snapshots save them. */
    List<byte[]> codes() {
        List<byte[]> codes = new ArrayList<>(current.libraries.size());
        for (Library l : current.libraries.values()) codes.add(l.code());
        return codes;
    }

    /** FUNCTION LOAD: the library's name, or CommandError with Redis's text. */
    String load(byte[] payload, boolean replace) {
        return create(current, payload, replace, true);
    }

    /** A library from an RDB file: as FUNCTION LOAD, but its code may run as long as it takes, as in Redis. */
    void loadSaved(byte[] payload, boolean replace) {
        create(current, payload, replace, false);
    }

    /**
     * FUNCTION RESTORE: the libraries are all built first, so that a bad one (or a collision)
     * changes nothing; then they replace everything (FLUSH) or join the others.
     */
    void restore(List<byte[]> codes, RestorePolicy policy) {
        Catalog restored = new Catalog();
        for (byte[] code : codes) create(restored, code, false, false);
        if (policy == RestorePolicy.FLUSH) {
            current = restored;
            return;
        }
        join(restored, policy == RestorePolicy.REPLACE);
    }

    /** Redis's libraryJoin: all of from's libraries or, on a collision, none of them. */
    private void join(Catalog from, boolean replace) {
        List<Library> replaced = new ArrayList<>();
        try {
            for (Library l : from.libraries.values()) {
                Library old = current.libraries.get(l.name());
                if (old == null) continue;
                if (!replace) throw new CommandError("ERR Library " + l.name() + " already exists");
                current.unlink(old);
                replaced.add(old);
            }
            for (Library l : from.libraries.values()) {
                Function clash = current.collision(l);
                if (clash != null) throw new CommandError("ERR Function " + clash.name() + " already exists");
            }
        } catch (CommandError e) {
            for (Library old : replaced) current.link(old);
            throw e;
        }
        for (Library l : from.libraries.values()) current.link(l);
    }

    /** FUNCTION DELETE: false if there is no such library. */
    boolean delete(String name) {
        Library l = current.libraries.get(name);
        if (l == null) return false;
        current.unlink(l);
        return true;
    }

    void flush() {
        current = new Catalog();
    }

    /**
     * Redis's functionsCreateWithLibraryCtx: compiles payload and adds its library to catalog.
     * timed: the code's top level gets LOAD_TIMEOUT (FUNCTION LOAD), else no limit (RESTORE, RDB).
     */
    private String create(Catalog catalog, byte[] payload, boolean replace, boolean timed) {
        String[] meta = metadata(payload);
        String engineName = meta[0], name = meta[1];
        if (!validName(name)) throw invalidName();
        if (!engineName.equalsIgnoreCase("LUA")) throw new CommandError("ERR Engine '" + engineName + "' not found");
        Library old = catalog.libraries.get(name);
        if (old != null && !replace) throw new CommandError("ERR Library '" + name + "' already exists");
        Library created = compile(name, payload, timed);
        if (old != null) catalog.unlink(old);
        Function clash = catalog.collision(created);
        if (clash != null) {
            if (old != null) catalog.link(old);
            throw new CommandError("ERR Function " + clash.name() + " already exists");
        }
        catalog.link(created);
        return name;
    }

    /** Runs the library's code with the load API, collecting the functions it registers. */
    private Library compile(String name, byte[] payload, boolean timed) {
        int newline = indexOf(payload, (byte) '\n');
        byte[] code = java.util.Arrays.copyOfRange(payload, newline, payload.length);
        LuaValue chunk;
        try {
            chunk = TailCalls.disable(SyntaxErrors.load(engine.globals(), code, "@user_function", environment));
        } catch (LuaError e) {
            throw new CommandError("ERR Error compiling function: " + LuaErrors.lua51Message(String.valueOf(e.getMessage())));
        }
        Map<String, Function> registered = new LinkedHashMap<>();
        registering = registered;
        registeringLibrary = name;
        registeringChunk = chunk instanceof LuaClosure closure ? closure.p : null;
        engine.loadDeadlineNanos = timed ? System.nanoTime() + LOAD_TIMEOUT_NANOS : 0;
        LuaValue callersMetatable = engine.enter();
        try {
            chunk.call();
        } catch (LuaError e) {
            LuaValue v = LuaErrors.value(e);
            String msg = v.istable() && v.rawget(ReplyFields.ERR).isstring() ? LuaToReply.text(v.rawget(ReplyFields.ERR)) : "ERR " + v.tojstring();
            throw new CommandError("ERR Error registering functions: " + msg);
        } finally {
            StringMetatable.leave(callersMetatable);
            engine.loadDeadlineNanos = 0;
            registering = null;
            registeringLibrary = null;
            registeringChunk = null;
        }
        if (registered.isEmpty()) throw new CommandError("ERR No functions registered");
        return new Library(name, payload, registered);
    }

    /**
     * "#!<engine> name=<library>": engine and name, Redis's errors otherwise. The line is split
     * as Redis's sdssplitargs splits it, so name="foo" names foo.
     */
    private static String[] metadata(byte[] payload) {
        if (payload.length < 2 || payload[0] != '#' || payload[1] != '!') throw new CommandError("ERR Missing library metadata");
        int end = indexOf(payload, (byte) '\n');
        if (end < 0) throw new CommandError("ERR Invalid library metadata");
        byte[][] parts = ArgSplitter.split(java.util.Arrays.copyOf(payload, end));
        if (parts == null || parts.length == 0) throw new CommandError("ERR Invalid library metadata");
        String engineName = text(parts[0]).substring(2);
        String name = null;
        for (int i = 1; i < parts.length; i++) {
            String part = text(parts[i]);
            if (part.regionMatches(true, 0, "name=", 0, 5)) {
                if (name != null) throw new CommandError("ERR Invalid metadata value, name argument was given multiple times");
                name = part.substring(5);
            } else {
                throw new CommandError("ERR Invalid metadata value given: " + part);
            }
        }
        if (name == null) throw new CommandError("ERR Library name was not given");
        return new String[] {engineName, name};
    }

    private static String text(byte[] b) {
        return BinaryText.decode(b);
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
        registering.put(name, new Function(name, description, flags, callback, registeringLibrary, registeringChunk, new RunPlace()));
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
