package io.cinnabar.command;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What Redis knows about a command before running it: name, arity (negative = at least),
 * flags, the legacy key triple, ACL categories and, for container commands such as CONFIG,
 * its subcommands. Declared once beside the handler; COMMAND, the Dispatcher, MULTI queueing
 * and propagation all read it.
 */
public final class CommandSpec {
    final String name;
    final String fullName;
    final int arity;
    /** Never changed after construction; {@link #hasFlag}, asked several times per call, reads it without a wrapper. */
    private final EnumSet<CommandFlag> flags;
    /** The enable-* option that allows this PROTECTED command (DEBUG, MODULE LOAD...), else null. */
    final io.cinnabar.config.ConfigOption protectedBy;
    /** Redis's legacy key triple, derived from the key specs (populateCommandLegacyRangeSpec); last as printed. */
    final int firstKey, lastKey, keyStep;
    final String group;
    final String summary;
    final String since;
    /** COMMAND DOCS' other fields, null or empty when Redis has none. */
    final String complexity, deprecatedSince, replacedBy;
    final List<String[]> history;
    final boolean syscmd;
    final List<String> aclCategories;
    final List<String> tips;
    final CommandHandler handler;
    /** Redis's getkeys_proc, for the commands that have one; null otherwise. */
    final KeyFinder keyFinder;
    /** Redis's key specs, in its order. */
    final List<KeySpec> keySpecs;
    final CommandSpec parent;
    final Map<String, CommandSpec> subcommands = new LinkedHashMap<>();
    final CommandStats stats = new CommandStats();
    final boolean write, readonly, denyOom, noAuth, fast, admin;
    /** Redis's hidden CMD_TOUCHES_ARBITRARY_KEYS: lazy expiry it causes is not wrapped in MULTI/EXEC. */
    final boolean touchesArbitraryKeys;
    /** All its "keys" are shard channel names (NOT_KEY specs): no key is touched. */
    public final boolean keysAreChannels;
    /** Runs for a RESP2 client in subscriber mode (Redis allows only these there). */
    public final boolean allowedWhileSubscribed;
    /** Never propagated as itself: what it runs propagates, and tracks or invalidates keys (EXEC, scripts). */
    public final boolean propagatesInnerCommands;
    /** Refused with MISCONF like a write while the disk fails, so monitors notice (PING). */
    final boolean refusedOnDiskError;
    /** May run for long (scripts): run where other clients can still get BUSY replies. */
    final boolean mayRunLong;
    /**
     * Its handler is safe while a script owns the keyspace past the threshold (SCRIPT KILL); other
     * ALLOW_BUSY commands run then while the script stands still at its next check.
     */
    final boolean runsWhileBusy;
    /** Redis's getCommandFlags hook (scripts: their shebang's flags); null when a call's flags are the spec's. */
    private final CallFlags callFlags;
    /** This spec's {@link CallFlags} bits. */
    private final int declaredCallFlags;
    /** {@link AclCategories} bits of {@link #aclCategories}. */
    final long categoryBits;
    /** Which arguments are Pub/Sub channels, for ACL channel permissions (Redis's getChannelsFromCommand). */
    final ChannelArgs channelArgs;
    /** Index into ACL users' command bitmaps (Redis's command id); set once by the table that holds the spec. */
    int aclId = -1;

    /** Which arguments of a Pub/Sub command are channels ACL rules apply to. */
    public enum ChannelArgs {
        NONE,
        /** The first argument is published to (PUBLISH, SPUBLISH). */
        PUBLISH,
        /** Every argument is subscribed to (SUBSCRIBE, SSUBSCRIBE). */
        SUBSCRIBE,
        /** Every argument is a pattern subscribed to, compared literally with the user's (PSUBSCRIBE). */
        PSUBSCRIBE
    }

    /** The flags that decide Redis's checks before a call, for commands whose calls differ (Redis's getCommandFlags). */
    @FunctionalInterface
    public interface CallFlags {
        int WRITE = 1, DENYOOM = 2, MAY_REPLICATE = 4, READONLY = 8, STALE = 16;

        /** The call's bits, given the spec's own (declared). */
        int of(ServerContext server, byte[][] argv, int declared);
    }

    private CommandSpec(Builder b, String group, CommandHandler handler, CommandSpec parent) {
        this.name = b.name.toLowerCase(Locale.ROOT);
        this.fullName = parent == null ? name : parent.name + "|" + name;
        this.arity = b.arity;
        this.keySpecs = List.copyOf(b.keySpecs);
        int[] legacy = new int[3];
        boolean movable = legacyRange(keySpecs, legacy);
        this.firstKey = legacy[0];
        this.lastKey = legacy[1];
        this.keyStep = legacy[2];
        EnumSet<CommandFlag> f = b.flags.clone();
        if (movable) f.add(CommandFlag.MOVABLEKEYS);
        this.flags = f;
        this.group = group;
        this.summary = b.summary;
        this.since = b.since;
        this.complexity = b.complexity;
        this.deprecatedSince = b.deprecatedSince;
        this.replacedBy = b.replacedBy;
        this.history = List.copyOf(b.history);
        this.syscmd = b.syscmd;
        this.handler = handler;
        this.keyFinder = b.keyFinder;
        this.parent = parent;
        this.write = flags.contains(CommandFlag.WRITE);
        this.readonly = flags.contains(CommandFlag.READONLY);
        this.denyOom = flags.contains(CommandFlag.DENYOOM);
        this.noAuth = flags.contains(CommandFlag.NO_AUTH);
        this.protectedBy = b.protectedBy;
        this.fast = flags.contains(CommandFlag.FAST);
        this.admin = flags.contains(CommandFlag.ADMIN);
        this.touchesArbitraryKeys = b.touchesArbitraryKeys;
        this.keysAreChannels = !keySpecs.isEmpty() && keySpecs.stream().allMatch(k -> k.has(KeyFlag.NOT_KEY));
        this.allowedWhileSubscribed = b.allowedWhileSubscribed;
        this.propagatesInnerCommands = b.propagatesInnerCommands;
        this.refusedOnDiskError = b.refusedOnDiskError;
        this.mayRunLong = b.mayRunLong;
        this.runsWhileBusy = b.runsWhileBusy;
        this.callFlags = b.callFlags;
        this.declaredCallFlags = (write ? CallFlags.WRITE : 0) | (denyOom ? CallFlags.DENYOOM : 0)
                | (flags.contains(CommandFlag.MAY_REPLICATE) ? CallFlags.MAY_REPLICATE : 0) | (readonly ? CallFlags.READONLY : 0)
                | (flags.contains(CommandFlag.STALE) ? CallFlags.STALE : 0);
        this.aclCategories = categories(b.extraCategories, !b.subs.isEmpty() || !b.groupCategory);
        this.tips = Collections.unmodifiableList(new ArrayList<>(b.tips));
        this.categoryBits = AclCategories.bits(aclCategories);
        this.channelArgs = b.channelArgs;
    }

    public String name() { return name; }
    public String fullName() { return fullName; }
    public int arity() { return arity; }

    /** Redis's arity check: exactly arity arguments (name included), or at least -arity when negative. */
    boolean arityAccepts(byte[][] args) {
        return (arity <= 0 || arity == args.length) && args.length >= -arity;
    }
    public Set<CommandFlag> flags() { return Collections.unmodifiableSet(flags); }
    public int firstKey() { return firstKey; }
    public int lastKey() { return lastKey; }
    public int keyStep() { return keyStep; }
    public String group() { return group; }
    public String summary() { return summary; }
    public String since() { return since; }
    public String complexity() { return complexity; }
    public String deprecatedSince() { return deprecatedSince; }
    public String replacedBy() { return replacedBy; }
    /** (since, what changed) pairs, oldest first. */
    public List<String[]> history() { return history; }
    /** Redis's doc flags as COMMAND DOCS prints them: "deprecated", "syscmd". */
    public List<String> docFlags() {
        List<String> out = new ArrayList<>(2);
        if (deprecatedSince != null) out.add("deprecated");
        if (syscmd) out.add("syscmd");
        return out;
    }
    public List<String> aclCategories() { return aclCategories; }
    /** {@link AclCategories} bits of the command's categories. */
    public long categoryBits() { return categoryBits; }
    /** The command's index in ACL command bitmaps. */
    public int aclId() { return aclId; }
    public ChannelArgs channelArgs() { return channelArgs; }
    /** Runs without authentication (AUTH, HELLO...): never refused by ACL command rules either. */
    public boolean noAuth() { return noAuth; }
    public boolean isContainer() { return !subcommands.isEmpty(); }
    /** Redis's command tips as COMMAND INFO prints them, e.g. "nondeterministic_output". */
    public List<String> tips() { return tips; }
    public CommandSpec parent() { return parent; }
    /** Redis's getkeys_proc for this command, or null. */
    public KeyFinder keyFinder() { return keyFinder; }
    public List<KeySpec> keySpecs() { return keySpecs; }
    public Map<String, CommandSpec> subcommands() { return Collections.unmodifiableMap(subcommands); }
    public CommandStats stats() { return stats; }
    public boolean isWrite() { return write; }

    /** This call's {@link CallFlags} bits: the spec's, or what its hook decides for these arguments. */
    int callFlags(ServerContext server, byte[][] argv) {
        return callFlags == null ? declaredCallFlags : callFlags.of(server, argv, declaredCallFlags);
    }
    /** A command that may run long (a script): it runs where other clients can still be answered. */
    public boolean mayRunLong() { return mayRunLong; }

    public boolean hasFlag(CommandFlag f) {
        return flags.contains(f);
    }

    CommandHandler handler() {
        return handler;
    }

    /** Redis derives most ACL categories from flags and the command's group. */
    private List<String> categories(List<String> extra, boolean container) {
        List<String> out = new ArrayList<>();
        if (write) out.add("@write");
        // Redis keeps read-only scripts (EVAL_RO, FCALL_RO) out of @read.
        if (readonly && !"scripting".equals(group)) out.add("@read");
        if (admin) {
            out.add("@admin");
            out.add("@dangerous");
        }
        if (flags.contains(CommandFlag.PUBSUB)) out.add("@pubsub");
        if (fast) out.add("@fast");
        if (flags.contains(CommandFlag.BLOCKING)) out.add("@blocking");
        if (!fast) out.add("@slow");
        // Redis gives container commands (CLIENT, CONFIG...), and commands whose JSON lists their
        // categories explicitly without the group's (SORT), only their declared categories.
        String fromGroup = container ? null : switch (group == null ? "" : group) {
            case "string" -> "@string";
            case "generic" -> "@keyspace";
            case "connection" -> "@connection";
            case "list" -> "@list";
            case "hash" -> "@hash";
            case "set" -> "@set";
            case "sorted-set" -> "@sortedset";
            case "stream" -> "@stream";
            case "transactions" -> "@transaction";
            case "scripting" -> "@scripting";
            case "pubsub" -> "@pubsub";
            case "bitmap" -> "@bitmap";
            case "hyperloglog" -> "@hyperloglog";
            case "geo" -> "@geo";
            default -> null;
        };
        if (fromGroup != null && !out.contains(fromGroup)) out.add(fromGroup);
        for (String e : extra) if (!out.contains(e)) out.add(e);
        return Collections.unmodifiableList(out);
    }

    /**
     * Redis's populateCommandLegacyRangeSpec: the (first, last, step) triple of the index + range
     * specs that follow each other (a single one as it is), into out; true when some keys are
     * beyond it (movablekeys).
     */
    private static boolean legacyRange(List<KeySpec> specs, int[] out) {
        if (specs.isEmpty()) return false;
        KeySpec only = specs.get(0);
        if (specs.size() == 1 && only.isIndexRange()) {
            out[0] = only.index();
            out[1] = only.lastKey() >= 0 ? only.index() + only.lastKey() : only.lastKey();
            out[2] = only.keyStep();
            return only.has(KeyFlag.INCOMPLETE);
        }
        boolean movable = false;
        int first = Integer.MAX_VALUE, last = 0, prevLast = 0;
        for (KeySpec k : specs) {
            if (!k.isIndexRange() || k.keyStep() != 1 || (prevLast != 0 && prevLast != k.index() - 1)) {
                movable = true;
                continue;
            }
            if (k.has(KeyFlag.INCOMPLETE)) movable = true;
            first = Math.min(first, k.index());
            int abs = k.lastKey() >= 0 ? k.index() + k.lastKey() : k.lastKey();
            // Redis compares unsigned, so a negative (from the end) last key wins.
            last = Integer.compareUnsigned(last, abs) >= 0 ? last : abs;
            prevLast = last;
        }
        if (first == Integer.MAX_VALUE) return true;
        out[0] = first;
        out[1] = last;
        out[2] = 1;
        return movable;
    }

    /** Redis's doesCommandHaveKeys: a getkeys procedure, or a spec of real keys. */
    public boolean hasKeys() {
        return keyFinder != null || keySpecs.stream().anyMatch(k -> !k.has(KeyFlag.NOT_KEY));
    }

    /**
     * Redis's getKeysFromCommandWithSpecs, for COMMAND GETKEYS and ACL: the keys of this call with
     * how it uses them, from the key specs when they are complete and their flags fixed, else from
     * the getkeys procedure. Shard channels (NOT_KEY) are left out. out is cleared first.
     */
    public void keysWithFlags(byte[][] argv, KeyRefs out) {
        out.clear();
        boolean realKeys = false, variableFlags = false;
        for (KeySpec k : keySpecs) {
            realKeys |= !k.has(KeyFlag.NOT_KEY);
            variableFlags |= k.has(KeyFlag.VARIABLE_FLAGS);
        }
        if (realKeys && !variableFlags) {
            boolean valid = true;
            for (KeySpec k : keySpecs) {
                if (!k.has(KeyFlag.NOT_KEY) && !k.find(argv, out)) {
                    valid = false;
                    break;
                }
            }
            if (valid) return;
            out.clear();
        }
        if (keyFinder != null) keyFinder.find(argv, out);
    }

    /**
     * Redis's getKeysFromCommand, which client tracking uses: the getkeys procedure, else the
     * legacy triple (nothing when a variable-arity call is too short for it).
     */
    public void forEachKey(byte[][] argv, java.util.function.IntConsumer keyPosition) {
        if (keyFinder != null) {
            keyFinder.find(argv, (pos, flags) -> keyPosition.accept(pos));
            return;
        }
        if (firstKey == 0) return;
        int last = lastKey < 0 ? argv.length + lastKey : lastKey;
        if (last >= firstKey && firstKey + (last - firstKey) / keyStep * keyStep >= argv.length) return;
        for (int i = firstKey; i <= last; i += keyStep) keyPosition.accept(i);
    }

    /**
     * Redis's getkeys_proc: finds the keys of a call where the key specs cannot (a numkeys
     * argument the specs could not read, SORT's STORE, SET's flags that depend on GET).
     */
    @FunctionalInterface
    public interface KeyFinder {
        /** Calls sink once per key with its position in argv (argv[0] is the command name). */
        void find(byte[][] argv, KeySink sink);
    }

    @FunctionalInterface
    public interface KeySink {
        /** flagBits: {@link KeyFlag} bits, 0 when the procedure does not say (as several of Redis's do not). */
        void key(int position, int flagBits);
    }

    /** Starts a spec: {@code spec("GET", 2, READONLY, FAST).keys(at(1, RO, ACCESS))}. */
    public static Builder spec(String name, int arity, CommandFlag... flags) {
        return new Builder(name, arity, flags);
    }

    public static final class Builder {
        final String name;
        final int arity;
        final EnumSet<CommandFlag> flags = EnumSet.noneOf(CommandFlag.class);
        String summary = "";
        String since = "1.0.0";
        String complexity, deprecatedSince, replacedBy;
        final List<String[]> history = new ArrayList<>();
        boolean syscmd;
        final List<String> extraCategories = new ArrayList<>();
        final List<String> tips = new ArrayList<>();
        final List<Object[]> subs = new ArrayList<>();
        boolean groupCategory = true;
        KeyFinder keyFinder;
        io.cinnabar.config.ConfigOption protectedBy;
        final List<KeySpec> keySpecs = new ArrayList<>();
        boolean touchesArbitraryKeys, propagatesInnerCommands, refusedOnDiskError, allowedWhileSubscribed,
                mayRunLong, runsWhileBusy;
        CallFlags callFlags;
        ChannelArgs channelArgs = ChannelArgs.NONE;

        Builder(String name, int arity, CommandFlag... flags) {
            this.name = name;
            this.arity = arity;
            Collections.addAll(this.flags, flags);
        }

        /** Redis's key specs, in its order; the legacy triple and movablekeys follow from them. */
        public Builder keys(KeySpec... specs) {
            Collections.addAll(keySpecs, specs);
            return this;
        }

        /** Redis's getkeys_proc: finds the keys where the specs cannot (numkeys, SORT's STORE, SET's GET flags). */
        public Builder keyFinder(KeyFinder finder) {
            keyFinder = finder;
            return this;
        }

        public Builder doc(String since, String summary) {
            this.since = since;
            this.summary = summary;
            return this;
        }

        /** As {@link #doc(String, String)} with the time complexity, in Redis's words. */
        public Builder doc(String since, String summary, String complexity) {
            this.complexity = complexity;
            return doc(since, summary);
        }


        /** The command's history as (since, change) pairs: {@code history("2.4.0", "Accepts multiple elements.")}. */
        public Builder history(String... sinceChangePairs) {
            for (int i = 0; i + 1 < sinceChangePairs.length; i += 2) history.add(new String[] {sinceChangePairs[i], sinceChangePairs[i + 1]});
            return this;
        }

        /** Deprecated since that version in favour of replacedBy (Redis's doc flag "deprecated"). */
        public Builder deprecated(String since, String replacedBy) {
            this.deprecatedSince = since;
            this.replacedBy = replacedBy;
            return this;
        }

        /** A system command, not for users (Redis's doc flag "syscmd"). */
        public Builder syscmd() {
            syscmd = true;
            return this;
        }

        public Builder acl(String... categories) {
            Collections.addAll(extraCategories, categories);
            return this;
        }

        /**
         * Only the flag-derived and declared categories, not the group's: SORT is in group
         * "generic" but Redis does not put it in @keyspace.
         */
        public Builder withoutGroupCategory() {
            groupCategory = false;
            return this;
        }

        /** The command may reach (and lazily expire) any key: SCAN, RANDOMKEY. */
        public Builder touchesArbitraryKeys() {
            touchesArbitraryKeys = true;
            return this;
        }

        /** Allowed to a RESP2 client with subscriptions (the subscribe family, PING, QUIT, RESET). */
        public Builder allowedWhileSubscribed() {
            allowedWhileSubscribed = true;
            return this;
        }

        /** The command runs others and propagates what they do, never itself (EXEC). */
        public Builder propagatesInnerCommands() {
            propagatesInnerCommands = true;
            return this;
        }

        /** Refused with MISCONF while the disk fails, though it writes nothing (PING, as in Redis). */
        public Builder refusedOnDiskError() {
            refusedOnDiskError = true;
            return this;
        }

        /** The command may run for long (EVAL): other clients get BUSY past busy-reply-threshold. */
        public Builder mayRunLong() {
            mayRunLong = true;
            return this;
        }

        /** Decides per call the flags Redis's checks use (scripts: their shebang flags). */
        public Builder callFlags(CallFlags hook) {
            callFlags = hook;
            return this;
        }

        /**
         * The handler may run while a script owns the keyspace past the threshold: it touches no
         * data, only the running script's or the connection's state (SCRIPT KILL, HELLO). Other
         * ALLOW_BUSY commands wait for the script's next check instead (WATCH, RESET).
         */
        public Builder runsWhileBusy() {
            runsWhileBusy = true;
            return this;
        }

        /** Which arguments are channels that ACL channel permissions apply to. */
        public Builder channels(ChannelArgs which) {
            channelArgs = which;
            return this;
        }

        /** Redis's command tips, lower-case as COMMAND INFO prints them ("request_policy:all_shards"). */
        /** Redis's CMD_PROTECTED: the command runs only as setting (enable-debug-command...) allows. */
        public Builder protectedBy(io.cinnabar.config.ConfigOption setting) {
            flags.add(CommandFlag.PROTECTED);
            protectedBy = setting;
            return this;
        }

        public Builder tips(String... tips) {
            Collections.addAll(this.tips, tips);
            return this;
        }

        /** Declares a subcommand of a container command (CONFIG GET, CLIENT LIST...). */
        public Builder sub(Builder sub, CommandHandler handler) {
            subs.add(new Object[] {sub, handler});
            return this;
        }

        CommandSpec build(String group, CommandHandler handler, CommandSpec parent) {
            CommandSpec spec = new CommandSpec(this, group, handler, parent);
            for (Object[] s : subs) {
                CommandSpec child = ((Builder) s[0]).build(group, (CommandHandler) s[1], spec);
                if (spec.subcommands.put(child.name, child) != null) {
                    throw new IllegalStateException("duplicate subcommand " + child.fullName);
                }
            }
            return spec;
        }
    }
}
