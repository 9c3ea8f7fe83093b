package io.cinnabar.command;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * All commands by name. Families are listed once in {@link #standard()}; a duplicate name fails
 * at startup. Lookups take the raw name bytes, case-insensitively, without allocating.
 */
public final class CommandTable {
    private final Map<String, CommandSpec> byName = new TreeMap<>();
    private CommandSpec[] slots = new CommandSpec[512];
    private String currentGroup;

    /** Every command family Cinnabar serves. */
    public static CommandTable standard() {
        CommandTable t = new CommandTable();
        t.register(new io.cinnabar.command.connection.ConnectionCommands());
        t.register(new io.cinnabar.command.server.ServerCommands());
        t.register(new io.cinnabar.command.server.ConfigCommands());
        t.register(new io.cinnabar.command.server.ClientCommands());
        t.register(new io.cinnabar.command.server.CommandCommands());
        t.register(new io.cinnabar.command.server.InfoCommand());
        t.register(new io.cinnabar.command.server.MemoryCommand());
        t.register(new io.cinnabar.command.server.PersistenceCommands());
        t.register(new io.cinnabar.command.server.MonitorCommand());
        t.register(new io.cinnabar.command.strings.StringCommands());
        t.register(new io.cinnabar.command.bitmaps.BitmapCommands());
        t.register(new io.cinnabar.command.hashes.HashCommands());
        t.register(new io.cinnabar.command.lists.ListCommands());
        t.register(new io.cinnabar.command.keys.KeyCommands());
        t.register(new io.cinnabar.command.keys.ExpireCommands());
        t.register(new io.cinnabar.command.keys.DumpCommands());
        t.register(new io.cinnabar.command.sort.SortCommands());
        t.register(new io.cinnabar.command.sets.SetCommands());
        t.register(new io.cinnabar.command.tx.TransactionCommands());
        t.register(new io.cinnabar.command.zsets.ZSetCommands());
        t.register(new io.cinnabar.command.geo.GeoCommands());
        t.register(new io.cinnabar.command.pubsub.PubSubCommands());
        t.register(new io.cinnabar.command.scripting.ScriptingCommands());
        t.register(new io.cinnabar.command.scripting.FunctionCommands());
        return t;
    }

    public void register(CommandFamily family) {
        currentGroup = family.group();
        family.register(this);
        currentGroup = null;
    }

    public void add(CommandSpec.Builder builder, CommandHandler handler) {
        CommandSpec spec = builder.build(currentGroup, handler, null);
        if (byName.put(spec.name, spec) != null) throw new IllegalStateException("duplicate command " + spec.name);
        insert(spec);
    }

    public CommandSpec lookup(byte[] name) {
        int mask = slots.length - 1;
        for (int i = hash(name, name.length) & mask; ; i = (i + 1) & mask) {
            CommandSpec s = slots[i];
            if (s == null) return null;
            if (equalsIgnoreCase(s.name, name)) return s;
        }
    }

    public CommandSpec lookup(String name) {
        return lookup(name.getBytes(StandardCharsets.UTF_8));
    }

    /** The command (or, for a container, the subcommand) argv names; null if unknown. */
    public CommandSpec resolve(byte[][] argv) {
        CommandSpec spec = lookup(argv[0]);
        if (spec != null && !spec.subcommands.isEmpty()) spec = argv.length >= 2 ? subcommand(spec, argv[1]) : null;
        return spec;
    }

    /** container's subcommand called name (any case), null if it has none. */
    static CommandSpec subcommand(CommandSpec container, byte[] name) {
        for (CommandSpec s : container.subcommands.values()) {
            if (equalsIgnoreCase(s.name, name)) return s;
        }
        return null;
    }

    public Collection<CommandSpec> all() {
        return Collections.unmodifiableCollection(byName.values());
    }

    public int size() {
        return byName.size();
    }

    /** Every command and subcommand, for INFO commandstats and CONFIG RESETSTAT. */
    public List<CommandSpec> allWithSubcommands() {
        List<CommandSpec> out = new ArrayList<>();
        for (CommandSpec s : byName.values()) {
            out.add(s);
            out.addAll(s.subcommands.values());
        }
        return out;
    }

    private void insert(CommandSpec spec) {
        if (byName.size() * 2 > slots.length) {
            CommandSpec[] old = slots;
            slots = new CommandSpec[old.length * 2];
            for (CommandSpec s : old) if (s != null) place(s);
        }
        place(spec);
    }

    private void place(CommandSpec s) {
        byte[] n = s.name.getBytes(StandardCharsets.UTF_8);
        int mask = slots.length - 1;
        int i = hash(n, n.length) & mask;
        while (slots[i] != null) i = (i + 1) & mask;
        slots[i] = s;
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
