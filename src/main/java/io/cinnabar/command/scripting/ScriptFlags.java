package io.cinnabar.command.scripting;

import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandSpec.CallFlags;
import io.cinnabar.util.BinaryText;


/**
 * The flags a script declares in its shebang ("#!lua flags=no-writes,allow-oom"), parsed as
 * Redis's evalExtractShebangFlags does, with its errors. A script without a shebang runs in
 * compatibility mode, where flags are not checked.
 */
record ScriptFlags(boolean compat, boolean noWrites, boolean allowOom, boolean allowStale,
                   boolean noCluster, boolean allowCrossSlot, int shebangLength) {

    static final ScriptFlags COMPAT = new ScriptFlags(true, false, false, false, false, false, 0);

    /**
     * Redis's scriptFlagsToCmdFlags: a script with a shebang replaces its command's write,
     * deny-oom, stale and may-replicate flags with what it declared (flags null: not known, the
     * command's own).
     */
    static int commandFlags(ScriptFlags flags, int declared) {
        if (flags == null || flags.compat) return declared;
        int out = declared & ~(CallFlags.WRITE | CallFlags.DENYOOM | CallFlags.MAY_REPLICATE | CallFlags.STALE);
        // no-writes implies allow-oom
        if (!flags.allowOom && !flags.noWrites) out |= CallFlags.DENYOOM;
        if (!flags.noWrites) out |= CallFlags.WRITE;
        if (flags.allowStale) out |= CallFlags.STALE;
        return out;
    }

    static ScriptFlags parse(byte[] body) {
        if (body.length < 2 || body[0] != '#' || body[1] != '!') return COMPAT;
        int end = 0;
        while (end < body.length && body[end] != '\n') end++;
        if (end == body.length) throw new CommandError("ERR Invalid script shebang");
        String line = BinaryText.decode(body, 0, end);
        String[] parts = line.trim().split("[ \t]+");
        if (parts.length == 0 || parts[0].isEmpty()) throw new CommandError("ERR Invalid engine in script shebang");
        if (!parts[0].equals("#!lua")) throw new CommandError("ERR Unexpected engine in script shebang: " + parts[0]);
        boolean noWrites = false, allowOom = false, allowStale = false, noCluster = false, crossSlot = false;
        for (int i = 1; i < parts.length; i++) {
            if (!parts[i].startsWith("flags=")) throw new CommandError("ERR Unknown lua shebang option: " + parts[i]);
            String list = parts[i].substring(6);
            if (list.isEmpty()) continue;
            for (String f : list.split(",", -1)) {
                switch (f) {
                    case "no-writes" -> noWrites = true;
                    case "allow-oom" -> allowOom = true;
                    case "allow-stale" -> allowStale = true;
                    case "no-cluster" -> noCluster = true;
                    case "allow-cross-slot-keys" -> crossSlot = true;
                    default -> throw new CommandError("ERR Unexpected flag in script shebang: " + f);
                }
            }
        }
        return new ScriptFlags(false, noWrites, allowOom, allowStale, noCluster, crossSlot, end);
    }
}
