package io.cinnabar.command.keys;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandSpec;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.KeyFlag;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.command.PropagatedCommands;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Database;
import io.cinnabar.persistence.rdb.DumpPayload;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.cinnabar.command.CommandFlag.MOVABLEKEYS;
import static io.cinnabar.command.CommandFlag.WRITE;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.ACCESS;
import static io.cinnabar.command.KeyFlag.DELETE;
import static io.cinnabar.command.KeyFlag.INCOMPLETE;
import static io.cinnabar.command.KeyFlag.RW;
import static io.cinnabar.command.KeySpec.after;
import static io.cinnabar.command.KeySpec.at;

/**
 * MIGRATE, as Redis's migrateCommand: the keys go to the target as DUMP payloads inside RESTORE
 * (RESTORE-ASKING in a cluster) over a connection kept in {@link MigrateSockets}, synchronously,
 * each network step bounded by the timeout; keys the target acknowledged are deleted here (unless
 * COPY) and the command propagates as DEL of those.
 */
public final class MigrateCommand implements CommandFamily {
    /** Redis sends the command to the target in chunks of this many bytes, each with the full timeout. */
    private static final int CHUNK = 64 * 1024;
    /** Redis reads each reply line into a 1024-byte buffer. */
    private static final int LINE_MAX = 1023;

    @Override
    public String group() {
        return "generic";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("MIGRATE", -6, WRITE, MOVABLEKEYS)
                .keys(at(3, RW, ACCESS, DELETE), after("KEYS", -2, RW, ACCESS, DELETE, INCOMPLETE).range(-1, 1))
                .keyFinder(MigrateCommand::keys).acl("@dangerous").tips("nondeterministic_output")
                .doc("2.6.0", "Atomically transfer a key from a Redis instance to another one.",
                        "This command actually executes a DUMP+DEL in the source instance, and a RESTORE in the target instance. See the pages of these commands for time complexity. Also an O(N) data transfer between the two instances is performed.")
                .history("3.0.0", "Added the `COPY` and `REPLACE` options.", "3.0.6", "Added the `KEYS` option.",
                        "4.0.7", "Added the `AUTH` option.", "6.0.0", "Added the `AUTH2` option."),
                this::migrate);
    }

    /** Redis's migrateGetKeys: the key argument, or what follows KEYS (none when the key argument is not empty then). */
    static void keys(byte[][] argv, CommandSpec.KeySink sink) {
        int first = 3, num = 1;
        int flags = KeyFlag.bits(RW, ACCESS, DELETE);
        if (argv.length > 6) {
            for (int i = 6; i < argv.length; i++) {
                String word = new String(argv[i], StandardCharsets.ISO_8859_1);
                if (word.equalsIgnoreCase("keys")) {
                    if (argv[3].length > 0) {
                        num = 0;
                    } else {
                        first = i + 1;
                        num = argv.length - first;
                    }
                    break;
                }
                if (word.equalsIgnoreCase("auth")) i += 1;
                else if (word.equalsIgnoreCase("auth2")) i += 2;
            }
        }
        for (int i = 0; i < num; i++) sink.key(first + i, flags);
    }

    /** MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password | AUTH2 username password] [KEYS key ...] */
    private void migrate(Call c) {
        boolean copy = false, replace = false;
        byte[] username = null, password = null;
        int firstKey = 3, numKeys = 1;
        for (int j = 6; j < c.argCount(); j++) {
            int more = c.argCount() - 1 - j;
            if (c.argIs(j, "COPY")) {
                copy = true;
            } else if (c.argIs(j, "REPLACE")) {
                replace = true;
            } else if (c.argIs(j, "AUTH")) {
                if (more == 0) throw CommandError.syntax();
                password = c.arg(++j);
                c.redact(j);
            } else if (c.argIs(j, "AUTH2")) {
                if (more < 2) throw CommandError.syntax();
                username = c.arg(++j);
                c.redact(j);
                password = c.arg(++j);
                c.redact(j);
            } else if (c.argIs(j, "KEYS")) {
                if (c.arg(3).length != 0) {
                    throw new CommandError("ERR When using MIGRATE KEYS option, the key argument must be set to the empty string");
                }
                firstKey = j + 1;
                numKeys = c.argCount() - j - 1;
                break;
            } else {
                throw CommandError.syntax();
            }
        }
        long timeout = c.longArg(5);
        long dbid = c.longArg(4);
        if (timeout <= 0) timeout = 1000;

        Database db = c.db();
        List<byte[]> keys = new ArrayList<>();
        List<Object> values = new ArrayList<>();
        for (int j = 0; j < numKeys; j++) {
            Object v = db.read(c.arg(firstKey + j));
            if (v == null) continue;
            keys.add(c.arg(firstKey + j));
            values.add(v);
        }
        if (keys.isEmpty()) {
            c.reply().simple("NOKEY");
            return;
        }
        Request request = new Request(keys, values, username, password, dbid, replace);
        MigrateSockets sockets = MigrateSockets.of(c.server());
        // One retry on a fresh connection when a cached one turns out dead before any reply.
        for (boolean mayRetry = true; ; mayRetry = false) {
            Outcome outcome;
            try {
                MigrateSockets.Cached cs = sockets.get(c.argString(1), c.argString(2), timeout);
                outcome = transfer(c, request, cs, timeout, copy);
                if (outcome == Outcome.DONE) return;
                sockets.close(cs);
            } catch (SyncConnection.Refused e) {
                outcome = Outcome.WRITE_RETRYABLE;
            } catch (IOException e) {
                throw new CommandError("IOERR error or timeout connecting to the client");
            }
            if (outcome.retryable && mayRetry) continue;
            throw new CommandError("IOERR error or timeout " + (outcome.writing ? "writing" : "reading") + " to target instance");
        }
    }

    /** How an attempt ended; a failure other than a timeout before any reply may be retried (Redis's may_retry). */
    private enum Outcome {
        DONE(false, false), WRITE_RETRYABLE(true, true), WRITE_FINAL(true, false), READ_RETRYABLE(false, true),
        READ_FINAL(false, false);

        final boolean writing, retryable;

        Outcome(boolean writing, boolean retryable) {
            this.writing = writing;
            this.retryable = retryable;
        }
    }

    /** What one MIGRATE sends: the keys found, their values, and the options. */
    private record Request(List<byte[]> keys, List<Object> values, byte[] username, byte[] password,
                           long dbid, boolean replace) {}

    /**
     * One attempt over cs: DONE once the client was answered, else how it failed (the caller
     * closes cs and retries or replies IOERR).
     */
    private Outcome transfer(Call c, Request r, MigrateSockets.Cached cs, long timeout, boolean copy) {
        Database db = c.db();
        boolean select = cs.lastDbid != r.dbid;
        List<byte[]> sent = new ArrayList<>();
        byte[] out = commands(c, r, select, sent);
        try {
            for (int pos = 0; pos < out.length; pos += CHUNK) {
                cs.conn.write(out, pos, Math.min(CHUNK, out.length - pos), timeout);
            }
        } catch (IOException e) {
            return e instanceof SyncConnection.TimedOut ? Outcome.WRITE_FINAL : Outcome.WRITE_RETRYABLE;
        }
        String authReply = null, selectReply = null;
        try {
            if (r.password != null) authReply = cs.conn.readLine(LINE_MAX, timeout);
            if (select) selectReply = cs.conn.readLine(LINE_MAX, timeout);
        } catch (IOException e) {
            return e instanceof SyncConnection.TimedOut ? Outcome.READ_FINAL : Outcome.READ_RETRYABLE;
        }
        String targetError = null;
        IOException socketError = null;
        List<byte[]> deleted = new ArrayList<>();
        int j;
        for (j = 0; j < sent.size(); j++) {
            String line;
            try {
                line = cs.conn.readLine(LINE_MAX, timeout);
            } catch (IOException e) {
                socketError = e;
                break;
            }
            boolean authFailed = authReply != null && authReply.startsWith("-");
            boolean selectFailed = selectReply != null && selectReply.startsWith("-");
            if (authFailed || selectFailed || line.startsWith("-")) {
                if (targetError == null) {
                    cs.lastDbid = -1;
                    String e = authFailed ? authReply : selectFailed ? selectReply : line;
                    targetError = "ERR Target instance replied with error: " + e.substring(1);
                }
            } else if (!copy) {
                byte[] key = sent.get(j);
                if (db.deleteValue(key) != null) c.notify(KeyspaceEvents.GENERIC, "del", key);
                deleted.add(key);
            }
        }
        if (targetError == null && socketError != null && j == 0 && !(socketError instanceof SyncConnection.TimedOut)) {
            return Outcome.READ_RETRYABLE;
        }
        if (socketError != null) MigrateSockets.of(c.server()).close(cs);
        if (!deleted.isEmpty()) {
            byte[][] argv = new byte[deleted.size() + 1][];
            argv[0] = PropagatedCommands.DEL;
            for (int i = 0; i < deleted.size(); i++) argv[i + 1] = deleted.get(i);
            c.propagateAs(argv);
        }
        if (targetError != null) {
            c.errorAfterChanges(targetError);
            return Outcome.DONE;
        }
        if (socketError != null) {
            if (!deleted.isEmpty()) {
                // The keys the target took are gone here: that must propagate, so no thrown error.
                c.errorAfterChanges("IOERR error or timeout reading to target instance");
                return Outcome.DONE;
            }
            return Outcome.READ_FINAL;
        }
        cs.lastDbid = r.dbid;
        c.reply().ok();
        return Outcome.DONE;
    }

    /** AUTH, SELECT and one RESTORE per key still alive (sent collects those keys), as RESP. */
    private static byte[] commands(Call c, Request r, boolean select, List<byte[]> sent) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (r.password != null) {
            if (r.username != null) array(out, "AUTH".getBytes(StandardCharsets.US_ASCII), r.username, r.password);
            else array(out, "AUTH".getBytes(StandardCharsets.US_ASCII), r.password);
        }
        if (select) array(out, "SELECT".getBytes(StandardCharsets.US_ASCII), PropagatedCommands.number(r.dbid));
        byte[] restore = (c.server().cluster() != null ? "RESTORE-ASKING" : "RESTORE").getBytes(StandardCharsets.US_ASCII);
        boolean compress = c.config().getBool(ConfigOptions.RDBCOMPRESSION);
        Database db = c.db();
        for (int j = 0; j < r.keys.size(); j++) {
            byte[] key = r.keys.get(j);
            long ttl = 0;
            long expireAt = db.expireAt(key);
            if (expireAt == -2) continue;
            if (expireAt != -1) {
                ttl = expireAt - c.mstime();
                if (ttl < 0) continue;
                if (ttl < 1) ttl = 1;
            }
            sent.add(key);
            byte[] payload;
            try {
                payload = DumpPayload.create(r.values.get(j), compress);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            byte[] ttlArg = PropagatedCommands.number(ttl);
            if (r.replace) array(out, restore, key, ttlArg, payload, "REPLACE".getBytes(StandardCharsets.US_ASCII));
            else array(out, restore, key, ttlArg, payload);
        }
        return out.toByteArray();
    }

    private static void array(ByteArrayOutputStream out, byte[]... args) {
        out.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (byte[] a : args) {
            out.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(a);
            out.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
    }
}
