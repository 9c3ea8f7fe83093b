package io.cinnabar.command.acl;

import io.cinnabar.command.AclCategories;
import io.cinnabar.command.CommandSpec;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.KeyFlag;
import io.cinnabar.command.KeyRefs;
import io.cinnabar.keyspace.GlobMatcher;
import io.cinnabar.util.BinaryText;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One set of permissions of a user (Redis's aclSelector): the commands it may run (a bitmap by
 * command id, plus allowed first arguments), the key patterns with read/write permissions and the
 * channel patterns. Every user has a root selector; "(...)" rules add more, any of which may allow
 * a command.
 */
final class AclSelector {
    static final int ALLKEYS = 1, ALLCHANNELS = 2, ALLCOMMANDS = 4, ROOT = 8;
    static final int READ = 1, WRITE = 2, READ_WRITE = 3;

    /** A key pattern and the permissions (READ, WRITE) it grants. */
    static final class KeyPattern {
        final byte[] pattern;
        int perms;

        KeyPattern(byte[] pattern, int perms) {
            this.pattern = pattern;
            this.perms = perms;
        }

        /** "~pat", "%R~pat" or "%W~pat", as Redis's sdsCatPatternString. */
        String describe() {
            String prefix = perms == READ_WRITE ? "~" : perms == READ ? "%R~" : "%W~";
            return prefix + BinaryText.decode(pattern);
        }
    }

    int flags;
    /** Bit i: the command with ACL id i may run. */
    BitSet commands = new BitSet();
    /** Redis's reserved last bit: set by +@all, so that the rules describe as "+@all ..." (commands to come). */
    boolean future;
    /** Command id to the first arguments allowed although the command is not (+select|0); null when none. */
    Map<Integer, List<String>> firstArgs;
    final List<KeyPattern> patterns = new ArrayList<>();
    final List<byte[]> channels = new ArrayList<>();

    AclSelector(int flags) {
        this.flags = flags;
    }

    AclSelector copy() {
        AclSelector s = new AclSelector(flags);
        s.commands = (BitSet) commands.clone();
        s.future = future;
        if (firstArgs != null) {
            s.firstArgs = new LinkedHashMap<>();
            firstArgs.forEach((id, args) -> s.firstArgs.put(id, new ArrayList<>(args)));
        }
        for (KeyPattern p : patterns) s.patterns.add(new KeyPattern(p.pattern, p.perms));
        s.channels.addAll(channels);
        return s;
    }

    boolean has(int flag) {
        return (flags & flag) != 0;
    }

    boolean allowsEverything() {
        return has(ALLKEYS) && has(ALLCHANNELS) && has(ALLCOMMANDS);
    }

    /** Redis's ACLSetSelector: applies one rule; throws {@link AclRuleException} with Redis's reason. */
    void apply(String op, Acl table) {
        String name = cString(op);
        if (name.equalsIgnoreCase("allkeys") || name.equals("~*")) {
            flags |= ALLKEYS;
            patterns.clear();
        } else if (name.equalsIgnoreCase("resetkeys")) {
            flags &= ~ALLKEYS;
            patterns.clear();
        } else if (name.equalsIgnoreCase("allchannels") || name.equals("&*")) {
            flags |= ALLCHANNELS;
            channels.clear();
        } else if (name.equalsIgnoreCase("resetchannels")) {
            flags &= ~ALLCHANNELS;
            channels.clear();
        } else if (name.equalsIgnoreCase("allcommands") || name.equalsIgnoreCase("+@all")) {
            // Every id, also of families not registered yet: the default user keeps the table lazy.
            commands.set(0, CommandTable.MAX_ACL_IDS);
            future = true;
            flags |= ALLCOMMANDS;
            firstArgs = null;
        } else if (name.equalsIgnoreCase("nocommands") || name.equalsIgnoreCase("-@all")) {
            commands.clear();
            future = false;
            flags &= ~ALLCOMMANDS;
            firstArgs = null;
        } else if (op.startsWith("~") || op.startsWith("%")) {
            addKeyPattern(op);
        } else if (op.startsWith("&")) {
            if (has(ALLCHANNELS)) throw AclRuleException.CHANNEL_AFTER_ALL;
            String pattern = op.substring(1);
            if (hasSpaces(pattern)) throw AclRuleException.SYNTAX;
            byte[] p = BinaryText.encode(pattern);
            if (channels.stream().noneMatch(c -> Arrays.equals(c, p))) channels.add(p);
            flags &= ~ALLCHANNELS;
        } else if (name.length() > 1 && (name.charAt(0) == '+' || name.charAt(0) == '-') && name.charAt(1) == '@') {
            long bit = AclCategories.bit(name.substring(2));
            if (bit == 0) throw AclRuleException.UNKNOWN;
            boolean allow = name.charAt(0) == '+';
            for (CommandSpec s : table.all()) if ((s.categoryBits() & bit) != 0) change(s, allow);
        } else if (name.startsWith("+")) {
            allowCommand(name.substring(1), table);
        } else if (name.startsWith("-")) {
            CommandSpec s = table.byFullName(name.substring(1));
            if (s == null) throw AclRuleException.UNKNOWN;
            change(s, false);
        } else {
            throw AclRuleException.SYNTAX;
        }
    }

    /**
     * What C's string functions see of a rule: up to its first NUL. Redis compares rule names with
     * strcasecmp and looks commands and categories up by C string ("+get\0x" allows GET); only
     * patterns (~ % &) and passwords are taken whole, with their length.
     */
    static String cString(String op) {
        int nul = op.indexOf('\0');
        return nul < 0 ? op : op.substring(0, nul);
    }

    private void addKeyPattern(String op) {
        if (has(ALLKEYS)) throw AclRuleException.KEY_AFTER_ALL;
        int perms = 0, offset = 1;
        if (op.charAt(0) == '%') {
            boolean tilde = false;
            for (; offset < op.length() && !tilde; offset++) {
                char ch = Character.toUpperCase(op.charAt(offset));
                if (ch == 'R' && (perms & READ) == 0) perms |= READ;
                else if (ch == 'W' && (perms & WRITE) == 0) perms |= WRITE;
                else if (ch == '~') tilde = true;
                else throw AclRuleException.SYNTAX;
            }
            // "%R" without "~" is "%R~" (an empty pattern), as in Redis 7.0; "%" or "%~x" grants nothing.
            if (perms == 0) throw AclRuleException.SYNTAX;
        } else {
            perms = READ_WRITE;
        }
        String pattern = op.substring(Math.min(offset, op.length()));
        if (hasSpaces(pattern)) throw AclRuleException.SYNTAX;
        byte[] p = BinaryText.encode(pattern);
        for (KeyPattern k : patterns) {
            if (Arrays.equals(k.pattern, p)) {
                k.perms |= perms;
                flags &= ~ALLKEYS;
                return;
            }
        }
        patterns.add(new KeyPattern(p, perms));
        flags &= ~ALLKEYS;
    }

    /** +command, +container|sub, or +command|firstarg. */
    private void allowCommand(String name, Acl table) {
        int bar = name.lastIndexOf('|');
        if (bar < 0) {
            CommandSpec s = table.byFullName(name);
            if (s == null) throw AclRuleException.UNKNOWN;
            change(s, true);
            return;
        }
        CommandSpec cmd = table.byFullName(name.substring(0, bar));
        if (cmd == null) throw AclRuleException.UNKNOWN;
        if (cmd.parent() != null) throw AclRuleException.FIRSTARG_OF_SUBCOMMAND;
        String sub = name.substring(bar + 1);
        if (sub.isEmpty()) throw AclRuleException.SYNTAX;
        if (cmd.isContainer()) {
            CommandSpec s = table.byFullName(name);
            if (s == null) throw AclRuleException.UNKNOWN;
            change(s, true);
        } else {
            if (firstArgs == null) firstArgs = new LinkedHashMap<>();
            List<String> args = firstArgs.computeIfAbsent(cmd.aclId(), k -> new ArrayList<>());
            for (String a : args) if (a.equalsIgnoreCase(sub)) return;
            args.add(sub);
        }
    }

    /** Redis's ACLChangeSelectorPerm: the command and, for a container, all its subcommands. */
    void change(CommandSpec s, boolean allow) {
        setBit(s.aclId(), allow);
        if (firstArgs != null) firstArgs.remove(s.aclId());
        for (CommandSpec sub : s.subcommands().values()) setBit(sub.aclId(), allow);
    }

    private void setBit(int id, boolean allow) {
        commands.set(id, allow);
        if (!allow) flags &= ~ALLCOMMANDS;
    }

    static boolean hasSpaces(String s) {
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (Character.isWhitespace(ch) || ch == 0) return true;
        }
        return false;
    }

    // ---- checks ----

    static final int OK = 0, DENIED_CMD = 1, DENIED_KEY = 2, DENIED_AUTH = 3, DENIED_CHANNEL = 4;

    /**
     * Redis's ACLSelectorCheckCmd: OK, or why not with the argument at fault in errPos[0]. keys
     * holds the call's keys once found (keysFound[0]), shared between the user's selectors.
     */
    int check(CommandSpec spec, byte[][] argv, KeyRefs keys, boolean[] keysFound, int[] errPos) {
        if (!has(ALLCOMMANDS) && !spec.noAuth() && !commands.get(spec.aclId())) {
            List<String> allowed = firstArgs == null ? null : firstArgs.get(spec.aclId());
            int idx = spec.parent() != null ? 2 : 1;
            if (allowed == null || argv.length < 2 || idx >= argv.length) return DENIED_CMD;
            String arg = BinaryText.decode(argv[idx]);
            if (allowed.stream().noneMatch(arg::equalsIgnoreCase)) return DENIED_CMD;
        }
        if (!has(ALLKEYS) && spec.hasKeys()) {
            if (!keysFound[0]) {
                spec.keysWithFlags(argv, keys);
                keysFound[0] = true;
            }
            for (int i = 0; i < keys.size(); i++) {
                int pos = keys.position(i);
                if (!keyAllowed(argv[pos], keys.flags(i))) {
                    errPos[0] = pos;
                    return DENIED_KEY;
                }
            }
        }
        if (!has(ALLCHANNELS) && spec.channelArgs() != CommandSpec.ChannelArgs.NONE) {
            boolean pattern = spec.channelArgs() == CommandSpec.ChannelArgs.PSUBSCRIBE;
            int last = spec.channelArgs() == CommandSpec.ChannelArgs.PUBLISH ? Math.min(1, argv.length - 1) : argv.length - 1;
            for (int i = 1; i <= last; i++) {
                if (!channelAllowed(channels, argv[i], pattern)) {
                    errPos[0] = i;
                    return DENIED_CHANNEL;
                }
            }
        }
        return OK;
    }

    /** Redis's ACLSelectorCheckKey: a pattern granting every permission the key's use needs matches it. */
    boolean keyAllowed(byte[] key, int keyFlags) {
        if (has(ALLKEYS)) return true;
        int need = 0;
        if (KeyFlag.ACCESS.in(keyFlags)) need |= READ;
        if (KeyFlag.INSERT.in(keyFlags) || KeyFlag.DELETE.in(keyFlags) || KeyFlag.UPDATE.in(keyFlags)) need |= WRITE;
        for (KeyPattern p : patterns) {
            if ((p.perms & need) == need && GlobMatcher.matches(p.pattern, key, false)) return true;
        }
        return false;
    }

    /** Redis's ACLSelectorHasUnrestrictedKeyAccess for reads: allkeys, or a "*" pattern that grants reading. */
    boolean readsAnyKey() {
        if (has(ALLKEYS)) return true;
        for (KeyPattern p : patterns) {
            if ((p.perms & READ) != 0 && p.pattern.length == 1 && p.pattern[0] == '*') return true;
        }
        return false;
    }

    /** Redis's ACLCheckChannelAgainstList: patterns (PSUBSCRIBE) compare literally, channels match. */
    static boolean channelAllowed(List<byte[]> list, byte[] channel, boolean isPattern) {
        for (byte[] p : list) {
            if (isPattern ? Arrays.equals(p, channel) : GlobMatcher.matches(p, channel, false)) return true;
        }
        return false;
    }
}
