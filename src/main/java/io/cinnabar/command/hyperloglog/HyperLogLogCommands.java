package io.cinnabar.command.hyperloglog;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.command.strings.StringValues;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Database;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

import static io.cinnabar.command.CommandFlag.ADMIN;
import static io.cinnabar.command.CommandFlag.DENYOOM;
import static io.cinnabar.command.CommandFlag.FAST;
import static io.cinnabar.command.CommandFlag.MAY_REPLICATE;
import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandFlag.WRITE;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.ACCESS;
import static io.cinnabar.command.KeyFlag.INSERT;
import static io.cinnabar.command.KeyFlag.RO;
import static io.cinnabar.command.KeyFlag.RW;
import static io.cinnabar.command.KeySpec.at;

/**
 * PFADD, PFCOUNT, PFMERGE, PFDEBUG, PFSELFTEST (hyperloglog.c). A HyperLogLog is a plain string
 * in Redis's format ({@link Hll}); each command edits a copy and stores it only if it changed.
 */
public final class HyperLogLogCommands implements CommandFamily {
    static final String NOT_HLL = "WRONGTYPE Key is not a valid HyperLogLog string value.";
    static final String CORRUPT = "INVALIDOBJ Corrupted HLL object detected";

    @Override
    public String group() {
        return "hyperloglog";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("PFADD", -2, WRITE, DENYOOM, FAST).keys(at(1, RW, INSERT))
                .doc("2.8.9", "Adds the specified elements to the specified HyperLogLog.", "O(1) to add every element."), this::pfadd);
        t.add(spec("PFCOUNT", -2, READONLY, MAY_REPLICATE).keys(at(1, RW, ACCESS).range(-1, 1)
                        .notes("RW because it may change the internal representation of the key, and propagate to replicas"))
                .doc("2.8.9", "Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).",
                        "O(1) with a very small average constant time when called with a single key. O(N) with N being the number of keys, and much bigger constant times, when called with multiple keys."),
                this::pfcount);
        t.add(spec("PFMERGE", -2, WRITE, DENYOOM).keys(at(1, RW, ACCESS, INSERT), at(2, RO, ACCESS).range(-1, 1))
                .doc("2.8.9", "Merge N different HyperLogLogs into a single one.", "O(N) to merge N HyperLogLogs, but with high constant times."),
                this::pfmerge);
        t.add(spec("PFDEBUG", 3, WRITE, DENYOOM, ADMIN).keys(at(2, RW, ACCESS)).syscmd()
                .doc("2.8.9", "Internal commands for debugging HyperLogLog values", "N/A"), this::pfdebug);
        t.add(spec("PFSELFTEST", 1, ADMIN).syscmd()
                .doc("2.8.9", "An internal command for testing HyperLogLog values", "N/A"), this::pfselftest);
    }

    /** The HLL in a stored string, or Redis's "not a valid HyperLogLog" WRONGTYPE. */
    private static Hll open(byte[] value) {
        if (!Hll.isValid(value)) throw new CommandError(NOT_HLL);
        return Hll.of(value);
    }

    private static long sparseMaxBytes(Call c) {
        return c.config().getLong(ConfigOptions.HLL_SPARSE_MAX_BYTES);
    }

    /** PFADD key [element ...] */
    private void pfadd(Call c) {
        Database db = c.db();
        byte[] key = c.arg(1);
        byte[] old = StringValues.forWrite(db, key);
        Hll hll = old == null ? Hll.empty() : open(old);
        boolean updated = old == null;
        long maxBytes = sparseMaxBytes(c);
        for (int i = 2; i < c.argCount(); i++) {
            int r = hll.add(c.arg(i), maxBytes);
            if (r < 0) {
                // Redis edits in place: the elements added before the corrupt spot stay added.
                if (updated) db.setRawKeepTtl(key, hll.bytes());
                throw new CommandError(CORRUPT);
            }
            updated |= r == 1;
        }
        if (!updated) {
            db.unchanged(key);
            c.reply().integer(0);
            return;
        }
        hll.invalidateCache();
        db.setRawKeepTtl(key, hll.bytes());
        c.notify(KeyspaceEvents.STRING, "pfadd", key);
        c.reply().integer(1);
    }

    /** PFCOUNT key [key ...]: one key answers from (and refreshes) its cached cardinality; several, their union's. */
    private void pfcount(Call c) {
        Database db = c.db();
        if (c.argCount() > 2) {
            byte[] max = new byte[Hll.REGISTERS];
            for (int i = 1; i < c.argCount(); i++) mergeInto(max, db.getString(c.arg(i)));
            c.reply().integer(Hll.countRaw(max));
            return;
        }
        byte[] key = c.arg(1);
        byte[] value = db.getString(key);
        if (value == null) {
            c.reply().integer(0);
            return;
        }
        Hll hll = open(value);
        if (hll.cacheValid()) {
            db.markRaw(key);
            c.reply().integer(hll.cachedCardinality());
            return;
        }
        long card = hll.count();
        if (card < 0) throw new CommandError(CORRUPT);
        // The cache lives in the string: refreshing it is a change, propagated as Redis does.
        hll.cacheCardinality(card);
        db.setRawKeepTtl(key, hll.bytes());
        c.reply().integer(card);
    }

    /** Raises max to the registers of value (absent: an empty HLL). */
    private static boolean mergeInto(byte[] max, byte[] value) {
        if (value == null) return false;
        Hll hll = open(value);
        if (!hll.mergeInto(max)) throw new CommandError(CORRUPT);
        return hll.encoding() == Hll.DENSE;
    }

    /** PFMERGE destkey [sourcekey ...]: the destination counts as a source too. */
    private void pfmerge(Call c) {
        Database db = c.db();
        byte[] max = new byte[Hll.REGISTERS];
        boolean dense = false;
        for (int i = 1; i < c.argCount(); i++) dense |= mergeInto(max, db.getString(c.arg(i)));
        byte[] key = c.arg(1);
        byte[] old = StringValues.forWrite(db, key);
        Hll hll = old == null ? Hll.empty() : Hll.of(old);
        if (dense && !hll.toDense()) throw new CommandError(CORRUPT);
        if (hll.encoding() == Hll.DENSE) {
            hll.setDense(max);
        } else {
            long maxBytes = sparseMaxBytes(c);
            for (int j = 0; j < Hll.REGISTERS; j++) {
                if (max[j] != 0) hll.set(j, max[j], maxBytes);
            }
        }
        hll.invalidateCache();
        db.setRawKeepTtl(key, hll.bytes());
        c.notify(KeyspaceEvents.STRING, "pfadd", key);
        c.reply().ok();
    }

    /** PFDEBUG GETREG|DECODE|ENCODING|TODENSE key */
    private void pfdebug(Call c) {
        Database db = c.db();
        byte[] key = c.arg(2);
        byte[] value = StringValues.forWrite(db, key);
        if (value == null) throw new CommandError("ERR The specified key does not exist");
        Hll hll = open(value);
        db.unchanged(key);
        db.markRaw(key);
        if (c.argIs(1, "GETREG")) {
            if (hll.encoding() == Hll.SPARSE) toDense(c, key, hll);
            c.reply().array(Hll.REGISTERS);
            for (int j = 0; j < Hll.REGISTERS; j++) c.reply().integer(hll.register(j));
        } else if (c.argIs(1, "DECODE")) {
            if (hll.encoding() != Hll.SPARSE) throw new CommandError("ERR HLL encoding is not sparse");
            c.reply().bulk(hll.decodeSparse().getBytes(StandardCharsets.US_ASCII));
        } else if (c.argIs(1, "ENCODING")) {
            c.reply().simple(hll.encoding() == Hll.DENSE ? "dense" : "sparse");
        } else if (c.argIs(1, "TODENSE")) {
            boolean sparse = hll.encoding() == Hll.SPARSE;
            if (sparse) toDense(c, key, hll);
            c.reply().integer(sparse ? 1 : 0);
        } else {
            throw new CommandError("ERR Unknown PFDEBUG subcommand '" + c.quoted(1) + "'");
        }
    }

    /**
     * Stores the dense form of a sparse HLL: a change (propagated, as Redis forces it), but not a
     * modification of the key: a WATCH of it holds, as Redis's pfdebugCommand signals nothing.
     */
    private static void toDense(Call c, byte[] key, Hll hll) {
        if (!hll.toDense()) throw new CommandError(CORRUPT);
        c.db().reencode(key, hll.bytes());
    }

    /** PFSELFTEST: Redis's self test of the register packing and of the estimator's error, sparse against dense. */
    private void pfselftest(Call c) {
        String failure = SelfTest.run(sparseMaxBytes(c), ThreadLocalRandom.current());
        if (failure != null) throw new CommandError("ERR TESTFAILED " + failure);
        c.reply().ok();
    }
}
