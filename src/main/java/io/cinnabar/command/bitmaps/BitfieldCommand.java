package io.cinnabar.command.bitmaps;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.command.strings.StringValues;
import io.cinnabar.keyspace.Database;
import io.cinnabar.keyspace.GrowableString;
import io.cinnabar.util.BinaryText;
import io.cinnabar.util.Numbers;

import java.util.ArrayList;
import java.util.List;

/**
 * BITFIELD and BITFIELD_RO (Redis's bitfieldGeneric): every operation is parsed first, so a bad
 * one fails the command before anything is read or written; then they run in order on one copy
 * of the string, grown once to the farthest bit written.
 */
final class BitfieldCommand {
    private static final String BAD_TYPE =
            "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.";
    private static final int GET = 0, SET = 1, INCRBY = 2;

    private record Op(int opcode, long offset, long value, int overflow, int bits, boolean signed) {}

    private BitfieldCommand() {}

    /** BITFIELD key [GET type offset | [OVERFLOW WRAP|SAT|FAIL] SET type offset value | INCRBY type offset increment ...] */
    static void run(Call c, boolean readOnlyCommand) {
        List<Op> ops = new ArrayList<>();
        int overflow = Bitfields.WRAP;
        boolean readonly = true;
        long highestWrite = 0;
        long[] parsed = new long[1];
        for (int j = 2; j < c.argCount(); j++) {
            int remaining = c.argCount() - j - 1;
            int opcode;
            if (c.argIs(j, "GET") && remaining >= 2) opcode = GET;
            else if (c.argIs(j, "SET") && remaining >= 3) opcode = SET;
            else if (c.argIs(j, "INCRBY") && remaining >= 3) opcode = INCRBY;
            else if (c.argIs(j, "OVERFLOW") && remaining >= 1) {
                j++;
                if (c.argIs(j, "WRAP")) overflow = Bitfields.WRAP;
                else if (c.argIs(j, "SAT")) overflow = Bitfields.SAT;
                else if (c.argIs(j, "FAIL")) overflow = Bitfields.FAIL;
                else throw new CommandError("ERR Invalid OVERFLOW type specified");
                continue;
            } else {
                throw CommandError.syntax();
            }
            byte[] type = c.arg(j + 1);
            int typeLength = BinaryText.cLength(type); // its bits are read with strlen: "u8\0x" is u8
            boolean signed = typeLength > 0 && type[0] == 'i';
            if (!signed && (typeLength == 0 || type[0] != 'u')) throw new CommandError(BAD_TYPE);
            if (!Numbers.parseLong(type, 1, typeLength - 1, parsed) || parsed[0] < 1 || parsed[0] > (signed ? 64 : 63)) {
                throw new CommandError(BAD_TYPE);
            }
            int bits = (int) parsed[0];
            long offset = BitmapCommands.bitOffset(c, j + 2, bits);
            long value = 0;
            if (opcode != GET) {
                readonly = false;
                highestWrite = Math.max(highestWrite, offset + bits - 1);
                value = c.longArg(j + 3);
            }
            ops.add(new Op(opcode, offset, value, overflow, bits, signed));
            j += opcode == GET ? 2 : 3;
        }
        Database db = c.db();
        byte[] key = c.arg(1);
        if (readonly) {
            // Bytes past a grown string's length are zeros, as past any string's end.
            Object value = db.getStringInPlace(key);
            byte[] p = value == null ? new byte[0] : StringValues.bytes(value);
            c.reply().array(ops.size());
            for (Op op : ops) c.reply().integer(get(p, op));
            return;
        }
        if (readOnlyCommand) throw new CommandError("ERR BITFIELD_RO only supports the GET subcommand");
        write(c, db, key, ops, highestWrite);
    }

    private static long get(byte[] p, Op op) {
        return op.signed ? Bitfields.getSigned(p, op.offset, op.bits) : Bitfields.getUnsigned(p, op.offset, op.bits);
    }

    /** Runs the operations on the string grown (in place) to hold bit highestWrite. */
    private static void write(Call c, Database db, byte[] key, List<Op> ops, long highestWrite) {
        GrowableString s = db.growable(key);
        int needed = (int) (highestWrite >>> 3) + 1;
        // As Redis's lookupStringForBitCommand: creating or lengthening the string is itself a change.
        boolean grew = s == null || s.length() < needed;
        byte[] p = s == null ? new byte[needed] : s.writable(needed);
        int changes = 0;
        c.reply().array(ops.size());
        for (Op op : ops) {
            if (op.opcode == GET) {
                c.reply().integer(get(p, op));
                continue;
            }
            long oldValue = get(p, op);
            Bitfields.Result r = op.opcode == INCRBY
                    ? add(oldValue, op.value, op)
                    : add(op.value, 0, op);
            if (r.overflow() != 0 && op.overflow == Bitfields.FAIL) {
                c.reply().nullBulk();
                continue;
            }
            c.reply().integer(op.opcode == INCRBY ? r.value() : oldValue);
            Bitfields.set(p, op.offset, op.bits, r.value());
            if (grew || get(p, op) != oldValue) changes++;
        }
        if (s == null) db.setRawKeepTtl(key, p);
        if (changes > 0) {
            c.notify(KeyspaceEvents.STRING, "setbit", key);
        } else {
            // Redis may have created or padded the string, yet counts no change: not propagated.
            if (s != null) db.unchanged(key);
            c.preventPropagation();
        }
    }

    private static Bitfields.Result add(long value, long incr, Op op) {
        return op.signed ? Bitfields.addSigned(value, incr, op.bits, op.overflow)
                : Bitfields.addUnsigned(value, incr, op.bits, op.overflow);
    }
}
