package io.cinnabar.command;

import io.cinnabar.util.BinaryText;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * All commands by name. Families are listed once in {@link #family(int)} and registered when first
 * needed: a lookup that misses registers the next families, in order, until the name is found,
 * and listing the table registers them all. An embedded server thus starts without linking ~300
 * handler lambdas (about 100 ms of the first start in a JVM); the first command of a family pays
 * its share. The standalone server registers them all before it is ready (see
 * {@link #linkInBackground}): a client's first SUBSCRIBE must not take 50-100 ms. A duplicate
 * name fails when its family registers (CommandTableTest registers them all).
 * Lookups take the raw name bytes, case-insensitively, without allocating or locking: a
 * registration builds a new slot array under the table's lock and publishes it whole, so any
 * thread (the AOF loader's too) may look up.
 */
public final class CommandTable {
    private final Map<String, CommandSpec> byName = new TreeMap<>();
    private volatile CommandSpec[] slots = new CommandSpec[512];
    /** Families of {@link #family(int)} registered so far; written under the lock. */
    private int registered;
    /** Every family is in: set under the lock once {@link #family(int)} has no next one. */
    private volatile boolean complete;
    /** While a family registers (under the lock): the slots it adds to, published when it is done. */
    private CommandSpec[] building;
    private String currentGroup;
    /** The next ACL command id (Redis's ACLGetCommandID): commands and subcommands in registration order. */
    private int nextAclId;
    /** ACL command bitmaps cover ids below this (Redis's USER_COMMAND_BITS_COUNT). */
    public static final int MAX_ACL_IDS = 1024;

    /** CINNABAR's family is in (enable-test-commands yes); otherwise it is an unknown command. */
    private final boolean testCommands;

    private CommandTable(boolean testCommands) {
        this.testCommands = testCommands;
    }

    /** Every command family Cinnabar serves, without the test controls. */
    public static CommandTable standard() {
        return new CommandTable(false);
    }

    /** Every command family Cinnabar serves; with testCommands also CINNABAR (enable-test-commands). */
    public static CommandTable standard(boolean testCommands) {
        return new CommandTable(testCommands);
    }

    /** The i-th family in registration order, created only when reached (its class is loaded then); null past the last. */
    private CommandFamily family(int i) {
        switch (i) {
            case 0: return new io.cinnabar.command.connection.ConnectionCommands();
            case 1: return new io.cinnabar.command.server.ServerCommands();
            case 2: return new io.cinnabar.command.server.ConfigCommands();
            case 3: return new io.cinnabar.command.server.ClientCommands();
            case 4: return new io.cinnabar.command.server.CommandCommands();
            case 5: return new io.cinnabar.command.server.InfoCommand();
            case 6: return new io.cinnabar.command.server.MemoryCommand();
            case 7: return new io.cinnabar.command.server.PersistenceCommands();
            case 8: return new io.cinnabar.command.server.MonitorCommand();
            case 9: return new io.cinnabar.command.strings.StringCommands();
            case 10: return new io.cinnabar.command.bitmaps.BitmapCommands();
            case 11: return new io.cinnabar.command.hashes.HashCommands();
            case 12: return new io.cinnabar.command.lists.ListCommands();
            case 13: return new io.cinnabar.command.keys.KeyCommands();
            case 14: return new io.cinnabar.command.keys.ExpireCommands();
            case 15: return new io.cinnabar.command.keys.DumpCommands();
            case 16: return new io.cinnabar.command.sort.SortCommands();
            case 17: return new io.cinnabar.command.sets.SetCommands();
            case 18: return new io.cinnabar.command.tx.TransactionCommands();
            case 19: return new io.cinnabar.command.zsets.ZSetCommands();
            case 20: return new io.cinnabar.command.geo.GeoCommands();
            case 21: return new io.cinnabar.command.pubsub.PubSubCommands();
            case 22: return new io.cinnabar.command.scripting.ScriptingCommands();
            case 23: return new io.cinnabar.command.scripting.FunctionCommands();
            case 24: return new io.cinnabar.command.hyperloglog.HyperLogLogCommands();
            case 25: return new io.cinnabar.command.streams.StreamCommands();
            case 26: return new io.cinnabar.command.server.SlowlogCommand();
            case 27: return new io.cinnabar.command.acl.AclCommands();
            case 28: return new io.cinnabar.command.server.LatencyCommand();
            case 29: return new io.cinnabar.command.cluster.ClusterCommands();
            case 30: return new io.cinnabar.command.server.ModuleCommand();
            case 31: return new io.cinnabar.command.server.ReplicationCommands();
            case 32: return new io.cinnabar.command.server.WaitCommand();
            case 33: return new io.cinnabar.command.keys.MigrateCommand();
            // Last: without test commands the list ends here.
            case 34: return testCommands ? new io.cinnabar.command.testing.CinnabarCommands() : null;
            default: return null;
        }
    }

    /** Under the lock: the family's commands go into a copy of the slots, then the copy replaces them. */
    private void register(CommandFamily family) {
        currentGroup = family.group();
        building = slots.clone();
        family.register(this);
        slots = building;
        building = null;
        currentGroup = null;
    }

    /** Called by a family's register only. */
    public void add(CommandSpec.Builder builder, CommandHandler handler) {
        CommandSpec spec = builder.build(currentGroup, handler, null);
        if (byName.put(spec.name, spec) != null) throw new IllegalStateException("duplicate command " + spec.name);
        spec.aclId = nextAclId++;
        for (CommandSpec sub : spec.subcommands.values()) sub.aclId = nextAclId++;
        if (nextAclId > MAX_ACL_IDS) throw new IllegalStateException("more commands than ACL bitmaps hold: " + nextAclId);
        insert(spec);
    }

    public CommandSpec lookup(byte[] name) {
        Map<String, CommandSpec> renamed = this.renamed;
        if (renamed != null) return lookupRenamed(renamed, name);
        return lookupOriginal(name);
    }

    private CommandSpec lookupOriginal(byte[] name) {
        CommandSpec found = find(slots, name);
        while (found == null) {
            // Another thread may have registered the name's family, and the rest, since the look
            // above: complete is written after the slots that hold them.
            if (complete) return find(slots, name);
            found = registerNext(name);
        }
        return found;
    }

    /**
     * The rename-command directives applied so far: name (lower case) -> command, with null for a
     * command's own name once it was renamed away. Null while there is none: lookups pay nothing.
     */
    private volatile Map<String, CommandSpec> renamed;

    /**
     * Redis's rename-command at startup: the command answers to newName only (and to nothing when
     * newName is empty); its spec keeps its own name for replies, errors and ACL, as Redis's
     * fullname. Returns null, or Redis's reason for the config file error.
     */
    public synchronized String rename(String name, String newName) {
        CommandSpec spec = lookup(name.getBytes(StandardCharsets.UTF_8));
        if (spec == null) return "No such command in rename-command";
        Map<String, CommandSpec> next = renamed == null ? new java.util.HashMap<>() : new java.util.HashMap<>(renamed);
        next.put(name.toLowerCase(java.util.Locale.ROOT), null);
        if (!newName.isEmpty()) {
            String key = newName.toLowerCase(java.util.Locale.ROOT);
            if (lookupRenamed(next, key.getBytes(StandardCharsets.UTF_8)) != null) return "Target command name already exists";
            next.put(key, spec);
        }
        renamed = next;
        return null;
    }

    private CommandSpec lookupRenamed(Map<String, CommandSpec> renamed, byte[] name) {
        String key = BinaryText.decode(name).toLowerCase(java.util.Locale.ROOT);
        if (renamed.containsKey(key)) return renamed.get(key);
        return lookupOriginal(name);
    }

    private static CommandSpec find(CommandSpec[] slots, byte[] name) {
        int mask = slots.length - 1;
        for (int i = hash(name, name.length) & mask; ; i = (i + 1) & mask) {
            CommandSpec s = slots[i];
            if (s == null) return null;
            if (equalsIgnoreCase(s.name, name)) return s;
        }
    }

    /** Registers the next family (if another thread has not meanwhile); name as found then, or null. */
    private synchronized CommandSpec registerNext(byte[] name) {
        CommandSpec found = find(slots, name);
        if (found == null && registerNextFamily()) found = find(slots, name);
        return found;
    }

    /**
     * Every family in, for what lists the table; returns at once when all are. One family per
     * turn of the lock, so a lookup on another thread waits for one family at most.
     */
    public void registerAll() {
        while (!complete) {
            synchronized (this) {
                registerNextFamily();
            }
        }
    }

    /**
     * Loads and links every family's classes and handlers on a daemon thread, in a table of its
     * own: a table registering them in this JVM afterwards takes ~10 ms instead of ~100-600 ms.
     * For a server that owns its process, started before its other start-up work.
     */
    public static Thread linkInBackground(boolean testCommands) {
        Thread t = new Thread(() -> standard(testCommands).registerAll(), "cinnabar-command-linking");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Under the lock: registers the next family; false (and complete) when there is none. */
    private boolean registerNextFamily() {
        if (complete) return false;
        CommandFamily next = family(registered);
        if (next == null) {
            complete = true;
            return false;
        }
        register(next);
        registered++;
        return true;
    }

    public CommandSpec lookup(String name) {
        return lookup(name.getBytes(StandardCharsets.UTF_8));
    }

    /** The command (or, for a container, the subcommand) argv names; null if unknown. */
    public CommandSpec resolve(byte[][] argv) {
        CommandSpec spec = lookup(argv[0]);
        // As Redis's lookupCommand: a container named alone is itself (whose arity then fails).
        if (spec != null && !spec.subcommands.isEmpty() && argv.length >= 2) spec = subcommand(spec, argv[1]);
        return spec;
    }

    /** container's subcommand called name (any case), null if it has none. */
    static CommandSpec subcommand(CommandSpec container, byte[] name) {
        for (CommandSpec s : container.subcommands.values()) {
            if (equalsIgnoreCase(s.name, name)) return s;
        }
        return null;
    }

    /** Redis's lookupCommandBySds: "get", or "config|get" for a subcommand (any case); null if unknown. */
    public CommandSpec byFullName(String name) {
        int bar = name.indexOf('|');
        if (bar < 0) return lookup(name);
        CommandSpec base = lookup(name.substring(0, bar));
        if (base == null || base.subcommands.isEmpty()) return null;
        String rest = name.substring(bar + 1);
        if (rest.indexOf('|') >= 0) return null;
        return subcommand(base, rest.getBytes(StandardCharsets.UTF_8));
    }

    public Collection<CommandSpec> all() {
        registerAll();
        return Collections.unmodifiableCollection(byName.values());
    }

    public int size() {
        registerAll();
        return byName.size();
    }

    /** Every command and subcommand, for INFO commandstats and CONFIG RESETSTAT. */
    public List<CommandSpec> allWithSubcommands() {
        registerAll();
        List<CommandSpec> out = new ArrayList<>();
        for (CommandSpec s : byName.values()) {
            out.add(s);
            out.addAll(s.subcommands.values());
        }
        return out;
    }

    /**
     * Every command and subcommand registered so far (those of families not yet needed have
     * nothing to reset): a reset of statistics without paying for the families not yet loaded.
     */
    public synchronized void forEachRegistered(java.util.function.Consumer<CommandSpec> action) {
        for (CommandSpec s : byName.values()) {
            action.accept(s);
            s.subcommands.values().forEach(action);
        }
    }

    private void insert(CommandSpec spec) {
        if (byName.size() * 2 > building.length) {
            CommandSpec[] old = building;
            building = new CommandSpec[old.length * 2];
            for (CommandSpec s : old) if (s != null) place(s);
        }
        place(spec);
    }

    private void place(CommandSpec s) {
        byte[] n = s.name.getBytes(StandardCharsets.UTF_8);
        int mask = building.length - 1;
        int i = hash(n, n.length) & mask;
        while (building[i] != null) i = (i + 1) & mask;
        building[i] = s;
    }

    private static int hash(byte[] b, int n) {
        int h = 0;
        for (int i = 0; i < n; i++) h = 31 * h + lower(b[i]);
        return h ^ (h >>> 16);
    }

    private static int lower(byte c) {
        return (c >= 'A' && c <= 'Z') ? c + 32 : c;
    }

    static boolean equalsIgnoreCase(String lowerName, byte[] b) {
        int n = lowerName.length();
        if (n != b.length) return false;
        for (int i = 0; i < n; i++) {
            if (lowerName.charAt(i) != lower(b[i])) return false;
        }
        return true;
    }
}
