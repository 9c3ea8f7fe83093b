package io.cinnabar.command.bitmaps;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.command.strings.StringValues;
import io.cinnabar.config.ConfigOptions;
import io.cinnabar.keyspace.Database;
import io.cinnabar.keyspace.GrowableString;
import io.cinnabar.util.Numbers;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

import static io.cinnabar.command.CommandFlag.DENYOOM;
import static io.cinnabar.command.CommandFlag.FAST;
import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandFlag.WRITE;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.ACCESS;
import static io.cinnabar.command.KeyFlag.RO;
import static io.cinnabar.command.KeyFlag.OW;
import static io.cinnabar.command.KeyFlag.RW;
import static io.cinnabar.command.KeyFlag.UPDATE;
import static io.cinnabar.command.KeyFlag.VARIABLE_FLAGS;
import static io.cinnabar.command.KeySpec.at;

/** Bit commands on string values (bitops.c): SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP; BITFIELD is in {@link BitfieldCommand}. */
public final class BitmapCommands implements CommandFamily {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final String BAD_OFFSET = "ERR bit offset is not an integer or out of range";
    private static final String BAD_BIT = "ERR bit is not an integer or out of range";

    @Override
    public String group() {
        return "bitmap";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("SETBIT", 4, WRITE, DENYOOM).keys(at(1, RW, ACCESS, UPDATE))
                .doc("2.2.0", "Sets or clears the bit at offset in the string value stored at key", "O(1)"), this::setbit);
        t.add(spec("GETBIT", 3, READONLY, FAST).keys(at(1, RO, ACCESS))
                .doc("2.2.0", "Returns the bit value at offset in the string value stored at key", "O(1)"), this::getbit);
        t.add(spec("BITCOUNT", -2, READONLY).keys(at(1, RO, ACCESS)).doc("2.6.0", "Count set bits in a string", "O(N)")
                .history("7.0.0", "Added the `BYTE|BIT` option."), this::bitcount);
        t.add(spec("BITPOS", -3, READONLY).keys(at(1, RO, ACCESS)).doc("2.8.7", "Find first bit set or clear in a string", "O(N)")
                .history("7.0.0", "Added the `BYTE|BIT` option."), this::bitpos);
        t.add(spec("BITOP", -4, WRITE, DENYOOM).keys(at(2, OW, UPDATE), at(3, RO, ACCESS).range(-1, 1))
                .doc("2.6.0", "Perform bitwise operations between strings", "O(N)"), this::bitop);
        t.add(spec("BITFIELD", -2, WRITE, DENYOOM)
                .keys(at(1, RW, UPDATE, ACCESS, VARIABLE_FLAGS).notes("This command allows both access and modification of the key"))
                .keyFinder(io.cinnabar.command.KeyProcs::bitfield)
                .doc("3.2.0", "Perform arbitrary bitfield integer operations on strings", "O(1) for each subcommand specified"),
                c -> BitfieldCommand.run(c, false));
        t.add(spec("BITFIELD_RO", -2, READONLY, FAST).keys(at(1, RO, ACCESS))
                .doc("6.0.0", "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD",
                        "O(1) for each subcommand specified"), c -> BitfieldCommand.run(c, true));
    }

    /** Redis's getBitOffsetFromArgument: a non-negative integer addressing a byte below proto-max-bulk-len. */
    private static long bitOffset(Call c, int index) {
        return bitOffset(c, index, 0);
    }

    /** As {@link #bitOffset(Call, int)}; with bits > 0, "#n" (BITFIELD) means n * bits. */
    static long bitOffset(Call c, int index, int bits) {
        byte[] arg = c.arg(index);
        int skip = bits > 0 && arg.length > 0 && arg[0] == '#' ? 1 : 0;
        long[] parsed = new long[1];
        if (!Numbers.parseLong(arg, skip, arg.length - skip, parsed)) throw new CommandError(BAD_OFFSET);
        long offset = skip == 1 ? parsed[0] * bits : parsed[0];
        if (offset < 0 || (offset >>> 3) >= c.config().getLong(ConfigOptions.PROTO_MAX_BULK_LEN)) {
            throw new CommandError(BAD_OFFSET);
        }
        return offset;
    }

    /** SETBIT key offset value */
    private void setbit(Call c) {
        long offset = bitOffset(c, 2);
        long on = c.longArg(3, BAD_BIT);
        if ((on & ~1L) != 0) throw new CommandError(BAD_BIT);
        Database db = c.db();
        byte[] key = c.arg(1);
        GrowableString s = db.growable(key);
        int byteIndex = (int) (offset >>> 3);
        int mask = 1 << (7 - (int) (offset & 7));
        boolean wasSet = s != null && byteIndex < s.length() && (s.array()[byteIndex] & mask) != 0;
        boolean grows = s == null || byteIndex >= s.length();
        if (grows || wasSet != (on == 1)) {
            StringValues.checkLength(c, byteIndex, 1);
            byte[] p = s == null ? new byte[byteIndex + 1] : s.writable(byteIndex + 1);
            if (on == 1) p[byteIndex] |= (byte) mask; else p[byteIndex] &= (byte) ~mask;
            if (s == null) db.setRawKeepTtl(key, p);
            c.notify(KeyspaceEvents.STRING, "setbit", key);
        } else {
            // Redis's dbUnshareStringValue still ran: the unchanged string is now "raw" (growable() did that).
            db.unchanged(key);
        }
        c.reply().integer(wasSet ? 1 : 0);
    }

    /** GETBIT key offset */
    private void getbit(Call c) {
        long offset = bitOffset(c, 2);
        Object s = c.db().getStringInPlace(c.arg(1));
        long byteIndex = offset >>> 3;
        boolean set = s != null && byteIndex < StringValues.length(s)
                && (StringValues.bytes(s)[(int) byteIndex] & (1 << (7 - (int) (offset & 7)))) != 0;
        c.reply().integer(set ? 1 : 0);
    }

    /** BITOP AND|OR|XOR|NOT destkey key [key ...]: missing keys are empty strings, shorter ones are zero padded. */
    private void bitop(Call c) {
        int op;
        if (c.argIs(1, "AND")) op = 0;
        else if (c.argIs(1, "OR")) op = 1;
        else if (c.argIs(1, "XOR")) op = 2;
        else if (c.argIs(1, "NOT")) op = 3;
        else throw CommandError.syntax();
        if (op == 3 && c.argCount() != 4) throw new CommandError("ERR BITOP NOT must be called with a single source key.");
        Database db = c.db();
        int n = c.argCount() - 3, maxLength = 0;
        byte[] key = c.arg(2);
        boolean destinationIsSource = false;
        // Read where they lie: an array past its string's length holds zeros, as the padding of
        // a shorter source does.
        byte[][] sources = new byte[n][];
        for (int j = 0; j < n; j++) {
            Object s = db.getStringInPlace(c.arg(j + 3));
            sources[j] = s == null ? EMPTY : StringValues.bytes(s);
            maxLength = Math.max(maxLength, s == null ? 0 : StringValues.length(s));
            destinationIsSource |= Arrays.equals(key, c.arg(j + 3));
        }
        if (maxLength == 0) {
            if (db.delete(key)) c.notify(KeyspaceEvents.GENERIC, "del", key);
            c.reply().integer(0);
            return;
        }
        // A copy of the first source, then one loop per operation that the JIT vectorises (one
        // loop testing the operation per byte was not). The copy goes over the destination's
        // last result where that is as long, or into an array it need not zero first.
        byte[] result = destinationIsSource ? null : db.overwritable(key, maxLength);
        if (result == null) result = Arrays.copyOf(sources[0], maxLength);
        else copyInto(result, sources[0]);
        if (op == 3) not(result);
        for (int j = 1; j < n; j++) {
            switch (op) {
                case 0 -> and(result, sources[j]);
                case 1 -> or(result, sources[j]);
                default -> xor(result, sources[j]);
            }
        }
        // bitopCommand stores createObject(OBJ_STRING, ...) without trying embstr or int.
        db.setRaw(key, result);
        c.notify(KeyspaceEvents.STRING, "set", key);
        c.reply().integer(maxLength);
    }

    private static final byte[] EMPTY = new byte[0];

    /** r = s, zero padded or cut to r's length. */
    private static void copyInto(byte[] r, byte[] s) {
        int n = Math.min(r.length, s.length);
        System.arraycopy(s, 0, r, 0, n);
        Arrays.fill(r, n, r.length, (byte) 0);
    }

    private static void not(byte[] r) {
        for (int i = 0; i < r.length; i++) r[i] = (byte) ~r[i];
    }

    /** r &= s, where s's missing bytes past its end are zero. */
    private static void and(byte[] r, byte[] s) {
        int n = Math.min(r.length, s.length);
        for (int i = 0; i < n; i++) r[i] &= s[i];
        Arrays.fill(r, n, r.length, (byte) 0);
    }

    private static void or(byte[] r, byte[] s) {
        int n = Math.min(r.length, s.length);
        for (int i = 0; i < n; i++) r[i] |= s[i];
    }

    private static void xor(byte[] r, byte[] s) {
        int n = Math.min(r.length, s.length);
        for (int i = 0; i < n; i++) r[i] ^= s[i];
    }

    /** BITCOUNT key [start end [BYTE | BIT]] */
    private void bitcount(Call c) {
        Object s = c.db().getStringInPlace(c.arg(1));
        if (s == null) {
            c.reply().integer(0);
            return;
        }
        byte[] p = StringValues.bytes(s);
        int length = StringValues.length(s);
        int n = c.argCount();
        long start, end;
        int firstMask = 0, lastMask = 0;
        if (n == 4 || n == 5) {
            long total = length;
            start = c.longArg(2);
            end = c.longArg(3);
            if (start < 0 && end < 0 && start > end) {
                c.reply().integer(0);
                return;
            }
            boolean bits = n == 5 && unitIsBit(c, 4);
            long[] r = byteRange(start, end, total, bits);
            start = r[0];
            end = r[1];
            firstMask = (int) r[2];
            lastMask = (int) r[3];
        } else if (n == 2) {
            start = 0;
            end = length - 1;
        } else {
            throw CommandError.syntax();
        }
        if (start > end) {
            c.reply().integer(0);
            return;
        }
        long count = popcount(p, (int) start, (int) (end - start + 1));
        if (firstMask != 0) count -= Integer.bitCount(p[(int) start] & firstMask);
        if (lastMask != 0) count -= Integer.bitCount(p[(int) end] & lastMask);
        c.reply().integer(count);
    }

    /**
     * Redis's range rules for BITCOUNT and BITPOS: negative indexes count from the end and are
     * clamped; a BIT range becomes a byte range plus masks of the bits outside it in its first and
     * last byte. Returns {start, end, firstMask, lastMask}; start > end means an empty range.
     */
    private static long[] byteRange(long start, long end, long totalBytes, boolean bits) {
        long total = bits ? totalBytes << 3 : totalBytes;
        if (start < 0) start = total + start;
        if (end < 0) end = total + end;
        if (start < 0) start = 0;
        if (end < 0) end = 0;
        if (end >= total) end = total - 1;
        long firstMask = 0, lastMask = 0;
        if (bits && start <= end) {
            firstMask = ~((1 << (8 - (start & 7))) - 1) & 0xFF;
            lastMask = (1 << (7 - (end & 7))) - 1;
            start >>= 3;
            end >>= 3;
        }
        return new long[] {start, end, firstMask, lastMask};
    }

    private static boolean unitIsBit(Call c, int index) {
        if (c.argIs(index, "BIT")) return true;
        if (c.argIs(index, "BYTE")) return false;
        throw CommandError.syntax();
    }

    private static long popcount(byte[] p, int from, int count) {
        long total = 0;
        int i = from, end = from + count;
        for (; i + 8 <= end; i += 8) total += Long.bitCount((long) LONGS.get(p, i));
        for (; i < end; i++) total += Integer.bitCount(p[i] & 0xFF);
        return total;
    }

    /** BITPOS key bit [start [end [BYTE | BIT]]] */
    private void bitpos(Call c) {
        long[] parsed = new long[1];
        if (!Numbers.parseLong(c.arg(2), parsed)) throw CommandError.notInteger();
        long bitArg = parsed[0];
        if (bitArg != 0 && bitArg != 1) throw new CommandError("ERR The bit argument must be 1 or 0.");
        int bit = (int) bitArg;
        Object s = c.db().getStringInPlace(c.arg(1));
        if (s == null) {
            c.reply().integer(bit == 1 ? -1 : 0);
            return;
        }
        byte[] p = StringValues.bytes(s);
        int length = StringValues.length(s);
        int n = c.argCount();
        long start, end;
        boolean endGiven = false;
        int firstMask = 0, lastMask = 0;
        if (n >= 4 && n <= 6) {
            long total = length;
            start = c.longArg(3);
            boolean bits = n == 6 && unitIsBit(c, 5);
            if (n >= 5) {
                end = c.longArg(4);
                endGiven = true;
            } else {
                end = bits ? (total << 3) + 7 : total - 1;
            }
            long[] r = byteRange(start, end, total, bits);
            start = r[0];
            end = r[1];
            firstMask = (int) r[2];
            lastMask = (int) r[3];
        } else if (n == 3) {
            start = 0;
            end = length - 1;
        } else {
            throw CommandError.syntax();
        }
        if (start > end) {
            c.reply().integer(-1);
            return;
        }
        // Mirrors bitposCommand step by step: a masked first byte, the whole bytes, a masked last byte.
        long bytes = end - start + 1;
        long pos;
        search:
        {
            if (firstMask != 0) {
                int b = bit == 1 ? p[(int) start] & ~firstMask : p[(int) start] | firstMask;
                if (lastMask != 0 && bytes == 1) b = bit == 1 ? b & ~lastMask : b | lastMask;
                pos = firstBit(new byte[] {(byte) b}, 0, 1, bit);
                if (bytes == 1 || (pos != -1 && pos != 8)) break search;
                start++;
                bytes--;
            }
            long whole = bytes - (lastMask != 0 ? 1 : 0);
            if (whole > 0) {
                pos = firstBit(p, (int) start, (int) whole, bit);
                if (bytes == whole || (pos != -1 && pos != whole << 3)) break search;
                start += whole;
                bytes -= whole;
            }
            int b = bit == 1 ? p[(int) end] & ~lastMask : p[(int) end] | lastMask;
            pos = firstBit(new byte[] {(byte) b}, 0, 1, bit);
        }
        // With an explicit end, the bits past it are not an implicit run of zeros.
        if (endGiven && bit == 0 && pos == bytes << 3) {
            c.reply().integer(-1);
            return;
        }
        if (pos != -1) pos += start << 3;
        c.reply().integer(pos);
    }

    /**
     * Redis's redisBitpos: the first bit equal to {@code bit} in count bytes from {@code from}.
     * Looking for 0 in all-ones bytes answers count*8 (the string is taken as zero padded);
     * looking for 1 in all-zero bytes answers -1.
     */
    static long firstBit(byte[] p, int from, int count, int bit) {
        int i = from, end = from + count;
        long skip = bit == 1 ? 0L : -1L;
        while (i + 8 <= end && (long) LONGS.get(p, i) == skip) i += 8;
        int skipByte = bit == 1 ? 0 : 0xFF;
        while (i < end && (p[i] & 0xFF) == skipByte) i++;
        if (i == end) return bit == 1 ? -1 : (long) count << 3;
        int v = p[i] & 0xFF;
        int inByte = bit == 1 ? Integer.numberOfLeadingZeros(v) - 24 : Integer.numberOfLeadingZeros(~v & 0xFF) - 24;
        return ((long) (i - from) << 3) + inByte;
    }
}
