package io.cinnabar.command.acl;

import io.cinnabar.command.AclCategories;
import io.cinnabar.command.Client;
import io.cinnabar.command.CommandSpec;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.KeyRefs;
import io.cinnabar.command.ServerContext;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.util.ArgSplitter;
import io.cinnabar.util.BinaryText;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The server's users and the checks made with them (Redis's acl.c): the registry ACL commands
 * change, authentication, and the permission check the Dispatcher makes before each command
 * whose user does not simply allow everything. Keyspace thread only, except
 * {@link #defaultUserNeedsAuth()}, which event loops read for new connections.
 */
public final class Acl {
    private final ServerContext server;
    private final CommandTable table;
    /** Users by name, in Redis's rax order (bytes, which is String order for the names people use). */
    private TreeMap<String, AclUser> users = new TreeMap<>();
    private final AclUser defaultUser;
    final AclLog log;
    /** Every command and subcommand, parents before their subcommands; filled when first needed. */
    private List<CommandSpec> all;
    private Map<String, CommandSpec> byFullName;
    /** The default user is off or has passwords: new connections must authenticate. */
    private volatile boolean defaultUserNeedsAuth;
    /** The default user's nopass flag, read by event loops for protected mode. */
    private volatile boolean defaultUserNopass = true;
    /** Reused by {@link #check}: the call's keys, found once for all selectors. */
    private final KeyRefs keys = new KeyRefs();

    public Acl(ServerContext server) {
        this.server = server;
        this.table = server.commands();
        this.log = new AclLog(server);
        this.defaultUser = createDefaultUser();
        users.put("default", defaultUser);
        String requirepass = server.config().getString(ConfigOptions.REQUIREPASS);
        if (!requirepass.isEmpty()) updateDefaultUserPassword(requirepass);
        server.config().onChange(o -> {
            if (o == ConfigOptions.REQUIREPASS) updateDefaultUserPassword(server.config().getString(ConfigOptions.REQUIREPASS));
        });
    }

    private AclUser createDefaultUser() {
        AclUser u = new AclUser("default", pubsubDefault());
        for (String op : new String[] {"+@all", "~*", "&*", "on", "nopass"}) applyRule(u, bytes(op));
        u.rulesChanged();
        return u;
    }

    /** acl-pubsub-default as selector flags: ALLCHANNELS or none. */
    int pubsubDefault() {
        return "allchannels".equals(server.config().getString(ConfigOptions.ACL_PUBSUB_DEFAULT)) ? AclSelector.ALLCHANNELS : 0;
    }

    io.cinnabar.config.Config config() {
        return server.config();
    }

    public AclUser defaultUser() {
        return defaultUser;
    }

    /** The user a client runs as (a client that never authenticated as another is the default user's). */
    public AclUser userOf(Client c) {
        AclUser u = c.aclUser();
        return u == null ? defaultUser : u;
    }

    /** Redis's authRequired for a new connection: the default user is off or needs a password. Any thread. */
    public boolean defaultUserNeedsAuth() {
        return defaultUserNeedsAuth;
    }

    /** Redis's protected-mode test: the default user has nopass (whether or not it is on). Any thread. */
    public boolean defaultUserNopass() {
        return defaultUserNopass;
    }

    private void defaultUserChanged() {
        defaultUserNopass = defaultUser.has(AclUser.NOPASS);
        defaultUserNeedsAuth = !defaultUser.has(AclUser.NOPASS) || defaultUser.has(AclUser.DISABLED);
    }

    /** requirepass (config file or CONFIG SET) is the default user's only password; empty means nopass. */
    public void updateDefaultUserPassword(String password) {
        applyRule(defaultUser, bytes("resetpass"));
        applyRule(defaultUser, password.isEmpty() ? bytes("nopass") : bytes(">" + password));
        defaultUser.rulesChanged();
        defaultUserChanged();
    }

    public AclUser user(String name) {
        return users.get(name);
    }

    Collection<AclUser> users() {
        return users.values();
    }

    // ---- the command table, as ACL rules see it ----

    List<CommandSpec> all() {
        if (all == null) {
            List<CommandSpec> list = new ArrayList<>();
            Map<String, CommandSpec> names = new HashMap<>();
            for (CommandSpec s : table.all()) {
                list.add(s);
                names.put(s.fullName(), s);
                for (CommandSpec sub : s.subcommands().values()) {
                    list.add(sub);
                    names.put(sub.fullName(), sub);
                }
            }
            all = list;
            byFullName = names;
        }
        return all;
    }

    /** "get" or "config|get", any case; null when there is no such command. */
    CommandSpec byFullName(String name) {
        all();
        return byFullName.get(name.toLowerCase(java.util.Locale.ROOT));
    }

    // ---- rules ----

    /** Redis's ACLSetUser: one rule on u (its cached description is dropped by the caller's rulesChanged). */
    void applyRule(AclUser u, byte[] opBytes) {
        if (opBytes.length == 0) return;
        String op = BinaryText.decode(opBytes);
        String name = AclSelector.cString(op); // keywords are compared with strcasecmp
        char first = op.charAt(0);
        if (name.equalsIgnoreCase("on")) {
            u.flags = (u.flags | AclUser.ENABLED) & ~AclUser.DISABLED;
        } else if (name.equalsIgnoreCase("off")) {
            u.flags = (u.flags | AclUser.DISABLED) & ~AclUser.ENABLED;
        } else if (name.equalsIgnoreCase("skip-sanitize-payload")) {
            u.flags = (u.flags | AclUser.SKIP_SANITIZE) & ~AclUser.SANITIZE;
        } else if (name.equalsIgnoreCase("sanitize-payload")) {
            u.flags = (u.flags | AclUser.SANITIZE) & ~AclUser.SKIP_SANITIZE;
        } else if (name.equalsIgnoreCase("nopass")) {
            u.flags |= AclUser.NOPASS;
            u.passwords.clear();
        } else if (name.equalsIgnoreCase("resetpass")) {
            u.flags &= ~AclUser.NOPASS;
            u.passwords.clear();
        } else if (first == '>' || first == '#') {
            String hash = first == '>' ? AclUser.hash(Arrays.copyOfRange(opBytes, 1, opBytes.length)) : op.substring(1);
            if (first == '#' && !AclUser.validHash(hash)) throw AclRuleException.BAD_HASH;
            if (!u.passwords.contains(hash)) u.passwords.add(hash);
            u.flags &= ~AclUser.NOPASS;
        } else if (first == '<' || first == '!') {
            String hash = first == '<' ? AclUser.hash(Arrays.copyOfRange(opBytes, 1, opBytes.length)) : op.substring(1);
            if (first == '!' && !AclUser.validHash(hash)) throw AclRuleException.BAD_HASH;
            if (!u.passwords.remove(hash)) throw AclRuleException.NO_SUCH_PASSWORD;
        } else if (first == '(' && op.endsWith(")")) {
            AclSelector s = new AclSelector(pubsubDefault());
            // Split as sdssplitargs splits (quotes, escapes, up to a NUL); unbalanced quotes leave it empty.
            byte[][] parts = ArgSplitter.split(Arrays.copyOfRange(opBytes, 1, opBytes.length - 1));
            if (parts != null) for (byte[] part : parts) s.apply(BinaryText.decode(part), this);
            u.selectors.add(s);
        } else if (name.equalsIgnoreCase("clearselectors")) {
            u.selectors.subList(1, u.selectors.size()).clear();
        } else if (name.equalsIgnoreCase("reset")) {
            for (String r : new String[] {"resetpass", "resetkeys", "resetchannels"}) applyRule(u, bytes(r));
            if (pubsubDefault() != 0) applyRule(u, bytes("allchannels"));
            for (String r : new String[] {"off", "sanitize-payload", "clearselectors", "-@all"}) applyRule(u, bytes(r));
        } else {
            u.root().apply(op, this);
        }
    }

    /**
     * Redis's ACLMergeSelectorArguments: a selector spread over several arguments ("(+get", "~key)")
     * becomes one; null when a parenthesis is left open, the argument that opened it in unmatched[0].
     */
    static List<byte[]> mergeSelectors(List<byte[]> args, String[] unmatched) {
        List<byte[]> out = new ArrayList<>();
        StringBuilder open = null;
        String openedBy = null;
        for (byte[] a : args) {
            String op = BinaryText.decode(a);
            // An opening argument starts the selector again, even inside one ("(+get" "(~k)").
            if (op.startsWith("(") && !op.endsWith(")")) {
                open = new StringBuilder(op);
                openedBy = BinaryText.decodeCString(a); // quoted with %s: ends at a NUL
                continue;
            }
            if (open != null) {
                open.append(' ').append(BinaryText.decodeCString(a)); // appended with " %s"
                if (op.endsWith(")")) {
                    out.add(bytes(open.toString()));
                    open = null;
                }
                continue;
            }
            out.add(a);
        }
        if (open != null) {
            unmatched[0] = openedBy;
            return null;
        }
        return out;
    }

    /**
     * Redis's ACLStringSetUser: applies rules to the user (created if absent) all or nothing; null,
     * or the error text. Subscribers of the user whose channels are no longer allowed are disconnected.
     */
    String setUser(String name, List<byte[]> rules, Client caller) {
        String[] unmatched = new String[1];
        List<byte[]> merged = mergeSelectors(rules, unmatched);
        if (merged == null) return "ERR Unmatched parenthesis in acl selector starting at '" + unmatched[0] + "'.";
        AclUser existing = users.get(name);
        AclUser temp = new AclUser(name, pubsubDefault());
        if (existing != null) temp.copyFrom(existing);
        for (byte[] op : merged) {
            try {
                applyRule(temp, op);
            } catch (AclRuleException e) {
                // Redis quotes the modifier with sdscatfmt's %s, which ends at a NUL byte.
                return "ERR Error in ACL SETUSER modifier '" + BinaryText.decodeCString(op)
                        + "': " + e.getMessage();
            }
        }
        temp.rulesChanged();
        if (existing != null) {
            killSubscribersIfNeeded(temp, existing, caller);
            existing.copyFrom(temp);
        } else {
            users.put(name, temp);
        }
        if (existing == defaultUser) defaultUserChanged();
        return null;
    }

    /** Redis's ACLKillPubsubClientsIfNeeded: subscribers of original whose channels next no longer allows. */
    private void killSubscribersIfNeeded(AclUser next, AclUser original, Client caller) {
        List<byte[]> upcoming = new ArrayList<>();
        for (AclSelector s : next.selectors) {
            if (s.has(AclSelector.ALLCHANNELS)) return;
            upcoming.addAll(s.channels);
        }
        boolean superset = true;
        for (AclSelector s : original.selectors) {
            if (s.has(AclSelector.ALLCHANNELS)) superset = false;
            for (byte[] c : s.channels) {
                if (upcoming.stream().noneMatch(u -> Arrays.equals(u, c))) superset = false;
            }
        }
        if (superset) return;
        for (Client c : new ArrayList<>(server.clients())) {
            if (userOf(c) != original || c.subscriptions() == null || c.subscriptions().total() == 0) continue;
            if (!c.subscriptions().all((ch, pattern) -> AclSelector.channelAllowed(upcoming, ch, pattern))) {
                disconnect(c, caller);
            }
        }
    }

    /** Redis's ACLFreeUserAndKillClients: the user's connections go, the caller's after its reply. */
    void killClientsOf(AclUser u, Client caller) {
        for (Client c : new ArrayList<>(server.clients())) {
            if (c.aclUser() != u) continue;
            c.aclUser(null);
            c.authenticated(false);
            disconnect(c, caller);
        }
    }

    private static void disconnect(Client c, Client caller) {
        if (c == caller) c.closeAfterReply();
        else c.kill();
    }

    /** ACL DELUSER of one user; false when there is none. */
    boolean deleteUser(String name, Client caller) {
        AclUser u = users.remove(name);
        if (u == null) return false;
        killClientsOf(u, caller);
        return true;
    }

    // ---- authentication ----

    /**
     * Redis's ACLAuthenticateUser: on success the client runs as the user from now on; a failure
     * is logged (object: the command's name as sent).
     */
    public boolean authenticate(Client c, byte[] userName, byte[] password, byte[] commandName) {
        String name = BinaryText.decode(userName);
        AclUser u = users.get(name);
        if (u != null && u.passwordMatches(password)) {
            c.authenticated(true);
            c.aclUser(u == defaultUser ? null : u);
            return true;
        }
        log.add(c, null, AclSelector.DENIED_AUTH, c.transaction() != null ? AclLog.MULTI : AclLog.TOPLEVEL, name,
                BinaryText.decode(commandName));
        return false;
    }

    // ---- permission checks ----

    /** Result of {@link #check}: allowed. */
    public static final int OK = AclSelector.OK;

    /**
     * Redis's ACLCheckAllUserCommandPerm: OK, or the reason (DENIED_CMD, DENIED_KEY,
     * DENIED_CHANNEL) with the offending argument's index in errPos[0]. With several selectors
     * the error reported is the command, else the last key or channel no selector allowed.
     */
    public int check(AclUser u, CommandSpec spec, byte[][] argv, int[] errPos) {
        return check(u, spec, argv, errPos, keys);
    }

    private int check(AclUser u, CommandSpec spec, byte[][] argv, int[] errPos, KeyRefs keys) {
        int relevant = AclSelector.DENIED_CMD, lastIdx = 0;
        boolean[] keysFound = {false};
        int[] pos = {0};
        for (AclSelector s : u.selectors) {
            int r = s.check(spec, argv, keys, keysFound, pos);
            if (r == OK) return OK;
            if (r > relevant || (r == relevant && pos[0] > lastIdx)) {
                relevant = r;
                lastIdx = pos[0];
            }
        }
        errPos[0] = lastIdx;
        return relevant;
    }

    /**
     * The Dispatcher's check before a command: null when allowed, else the NOPERM error (and an
     * ACL LOG entry, context multi inside MULTI).
     */
    public String refusal(Client c, AclUser u, CommandSpec spec, byte[][] argv) {
        return refusalText(checkAndLog(c, u, spec, argv, c.multi() != null ? AclLog.MULTI : AclLog.TOPLEVEL), spec);
    }

    /**
     * {@link #refusal} while a script runs past busy-reply-threshold (Redis checks ACLs before it
     * answers BUSY): with a key buffer of its own, as the script's thread checks its calls with
     * {@link #keys} meanwhile, and the ACL LOG entry handed to logLater (added once the script ended).
     */
    public String busyRefusal(Client c, CommandSpec spec, byte[][] argv, java.util.function.Consumer<Runnable> logLater) {
        AclUser u = userOf(c);
        if (u.allowsEverything) return null;
        int[] pos = new int[1];
        int r = check(u, spec, argv, pos, new KeyRefs());
        if (r == OK) return null;
        int context = c.multi() != null ? AclLog.MULTI : AclLog.TOPLEVEL;
        String object = logObject(r, spec, argv, pos[0]);
        logLater.accept(() -> log.add(c, u, r, context, null, object));
        return refusalText(r, spec);
    }

    private static String refusalText(int r, CommandSpec spec) {
        return switch (r) {
            case OK -> null;
            case AclSelector.DENIED_CMD -> "NOPERM this user has no permissions to run the '" + spec.fullName() + "' command";
            case AclSelector.DENIED_KEY -> "NOPERM this user has no permissions to access one of the keys used as arguments";
            default -> "NOPERM this user has no permissions to access one of the channels used as arguments";
        };
    }

    /** EXEC's check of a queued command, in case the rules changed since it was queued. */
    public String execRefusal(Client c, CommandSpec spec, byte[][] argv) {
        String reason = switch (checkAndLog(c, userOf(c), spec, argv, AclLog.MULTI)) {
            case OK -> null;
            case AclSelector.DENIED_CMD -> "no permission to execute the command or subcommand";
            case AclSelector.DENIED_KEY -> "no permission to touch the specified keys";
            default -> "no permission to access one of the channels used as arguments";
        };
        return reason == null ? null : "NOPERM ACLs rules changed between the moment the transaction was accumulated and "
                + "the EXEC call. This command is no longer allowed for the following reason: " + reason;
    }

    /** Redis's scriptVerifyACL for redis.call: null, or the error text (logged with context lua). */
    public String scriptRefusal(Client caller, CommandSpec spec, byte[][] argv) {
        int r = checkAndLog(caller, userOf(caller), spec, argv, AclLog.LUA);
        return r == OK ? null : "The user executing the script " + reasonText(r);
    }

    /** {@link #check}, with an ACL LOG entry for a denial. */
    private int checkAndLog(Client c, AclUser u, CommandSpec spec, byte[][] argv, int context) {
        if (u.allowsEverything) return OK;
        int[] pos = new int[1];
        int r = check(u, spec, argv, pos);
        if (r != OK) log.add(c, u, r, context, null, logObject(r, spec, argv, pos[0]));
        return r;
    }

    /** Redis's getAclErrorMessage. */
    static String reasonText(int r) {
        return switch (r) {
            case AclSelector.DENIED_CMD -> "can't run this command or subcommand";
            case AclSelector.DENIED_KEY -> "can't access at least one of the keys mentioned in the command arguments";
            case AclSelector.DENIED_CHANNEL -> "can't publish to the channel mentioned in the command";
            default -> "lacking the permissions for the command";
        };
    }

    private static String logObject(int r, CommandSpec spec, byte[][] argv, int pos) {
        return r == AclSelector.DENIED_CMD ? spec.fullName() : BinaryText.decode(argv[pos]);
    }

    /**
     * Redis's ACLUserCheckCmdWithUnrestrictedKeyAccess for reads: some selector allows the call
     * and reads of every key (SORT's BY and GET patterns may read any key).
     */
    public boolean readsAnyKey(Client c, CommandSpec spec, byte[][] argv) {
        AclUser u = userOf(c);
        if (u.allowsEverything) return true;
        boolean[] keysFound = {false};
        int[] pos = {0};
        for (AclSelector s : u.selectors) {
            if (s.check(spec, argv, keys, keysFound, pos) == OK && s.readsAnyKey()) return true;
        }
        return false;
    }

    /** redis.acl_check_cmd: whether the caller's user may run argv (nothing logged). */
    public boolean allows(Client caller, CommandSpec spec, byte[][] argv) {
        AclUser u = userOf(caller);
        return u.allowsEverything || check(u, spec, argv, new int[1]) == OK;
    }

    static byte[] bytes(String s) {
        return BinaryText.encode(s);
    }

    /** Category names with their bits, for ACL CAT. */
    static List<String> categories() {
        return AclCategories.NAMES;
    }

    /** Replaces the whole user set (ACL LOAD): the default user is updated in place, other users' clients go. */
    void replaceUsers(TreeMap<String, AclUser> next, Client caller) {
        AclUser newDefault = next.get("default");
        if (newDefault == null) newDefault = createDefaultUser();
        defaultUser.copyFrom(newDefault);
        next.put("default", defaultUser);
        TreeMap<String, AclUser> old = users;
        users = next;
        for (AclUser u : old.values()) if (u != defaultUser) killClientsOf(u, caller);
        defaultUserChanged();
    }

    /** Loads the config file's users or the ACL file at startup; null, or why the server must not start. */
    public String loadAtStartup(List<String[]> configUsers, String aclFile) {
        return AclFile.loadAtStartup(this, configUsers, aclFile);
    }

    /** CONFIG REWRITE's "user" lines: every user, or none when they live in an ACL file. */
    public List<String> configLines() {
        List<String> out = new ArrayList<>();
        if (!server.config().getString(ConfigOptions.ACLFILE).isEmpty()) return out;
        for (AclUser u : users.values()) out.add("user " + u.name() + " " + AclDescription.user(u, this));
        return out;
    }

    /** A user outside the registry, for loading a file before it replaces the registry. */
    AclUser newUser(String name) {
        return new AclUser(name, pubsubDefault());
    }
}
