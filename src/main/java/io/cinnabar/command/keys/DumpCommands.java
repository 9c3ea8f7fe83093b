package io.cinnabar.command.keys;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandSpec;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.command.PropagatedCommands;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Database;
import io.cinnabar.persistence.LoadSources;
import io.cinnabar.persistence.rdb.DumpPayload;
import io.cinnabar.persistence.rdb.RdbFormatException;

import java.io.IOException;
import java.io.UncheckedIOException;

import static io.cinnabar.command.CommandFlag.DENYOOM;
import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandFlag.WRITE;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.ACCESS;
import static io.cinnabar.command.KeyFlag.OW;
import static io.cinnabar.command.KeyFlag.RO;
import static io.cinnabar.command.KeyFlag.UPDATE;
import static io.cinnabar.command.KeySpec.at;

/** DUMP and RESTORE: a value in Redis's serialized form (RDB value + version + CRC64), both ways. */
public final class DumpCommands implements CommandFamily {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(DumpCommands.class);

    @Override
    public String group() {
        return "generic";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("DUMP", 2, READONLY).keys(at(1, RO, ACCESS)).tips("nondeterministic_output")
                .doc("2.6.0", "Return a serialized version of the value stored at the specified key.",
                        "O(1) to access the key and additional O(N*M) to serialize it, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1)."), this::dump);
        t.add(restoreDocs(spec("RESTORE", -4, WRITE, DENYOOM).keys(at(1, OW, UPDATE)).acl("@dangerous"), "2.6.0",
                "Create a key using the provided serialized value, previously obtained using DUMP."), DumpCommands::restore);
    }

    /** RESTORE's docs, which RESTORE-ASKING shares but for its summary and version. */
    public static CommandSpec.Builder restoreDocs(CommandSpec.Builder b, String since, String summary) {
        return b.doc(since, summary,
                        "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).")
                .history("3.0.0", "Added the `REPLACE` modifier.",
                        "5.0.0", "Added the `ABSTTL` modifier.",
                        "5.0.0", "Added the `IDLETIME` and `FREQ` options.");
    }

    /** DUMP key */
    private void dump(Call c) {
        Object value = c.db().read(c.arg(1));
        if (value == null) {
            c.reply().nullBulk();
            return;
        }
        try {
            c.reply().bulk(DumpPayload.create(value, c.config().getBool(ConfigOptions.RDBCOMPRESSION)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** RESTORE and RESTORE-ASKING key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency] */
    public static void restore(Call c) {
        boolean replace = false, absttl = false;
        long idle = -1, freq = -1;
        for (int j = 4; j < c.argCount(); j++) {
            boolean more = j + 1 < c.argCount();
            if (c.argIs(j, "REPLACE")) {
                replace = true;
            } else if (c.argIs(j, "ABSTTL")) {
                absttl = true;
            } else if (c.argIs(j, "IDLETIME") && more && freq == -1) {
                idle = c.longArg(++j);
                if (idle < 0) throw new CommandError("ERR Invalid IDLETIME value, must be >= 0");
            } else if (c.argIs(j, "FREQ") && more && idle == -1) {
                freq = c.longArg(++j);
                if (freq < 0 || freq > 255) throw new CommandError("ERR Invalid FREQ value, must be >= 0 and <= 255");
            } else {
                throw CommandError.syntax();
            }
        }
        Database db = c.db();
        byte[] key = c.arg(1);
        if (!replace && db.lookupForWrite(key) != null) throw new CommandError("BUSYKEY Target key name already exists.");
        long ttl = c.longArg(2);
        if (ttl < 0) throw new CommandError("ERR Invalid TTL value, must be >= 0");
        Object value;
        try {
            // sanitize-dump-payload clients checks every client's payload: there is no master here.
            value = DumpPayload.restore(c.arg(3), LoadSources.rdbOptions(c.config())
                    .withDeepSanitize(!"no".equals(c.config().getString(ConfigOptions.SANITIZE_DUMP_PAYLOAD))),
                    !c.server().skipChecksumValidation());
        } catch (RdbFormatException e) {
            // Redis's rdbReportError in a RESTORE: logged at verbose level, the client gets the reply.
            log.debug("Internal error in RDB reading offset {}, function at rdb.c:0 -> {}", e.offset(), e.reason());
            throw new CommandError(DumpPayload.errorReply(e));
        }
        boolean deleted = replace && db.delete(key);
        if (ttl > 0 && !absttl) ttl += c.mstime();
        if (ttl > 0 && c.alreadyExpired(ttl)) {
            // Already expired: nothing is stored, and a replaced key is simply gone.
            if (deleted) c.propagateAs(PropagatedCommands.DEL, key); else c.preventPropagation();
            if (deleted) c.notify(KeyspaceEvents.GENERIC, "del", key);
            c.reply().ok();
            return;
        }
        if (ttl > 0) db.set(key, value, ttl); else db.set(key, value);
        if (ttl > 0 && !absttl) {
            // The TTL goes out as an absolute time, so a replay does not extend it.
            byte[][] argv = java.util.Arrays.copyOf(c.args(), c.argCount() + 1);
            argv[2] = PropagatedCommands.number(ttl);
            argv[c.argCount()] = PropagatedCommands.ABSTTL;
            c.propagateAs(argv);
        }
        db.setAccess(key, idle, (int) freq);
        c.notify(KeyspaceEvents.GENERIC, "restore", key);
        c.reply().ok();
    }
}
