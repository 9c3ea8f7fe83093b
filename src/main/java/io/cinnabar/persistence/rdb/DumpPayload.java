package io.cinnabar.persistence.rdb;

import io.cinnabar.persistence.rdb.RdbFormatException.Kind;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * DUMP's serialization and RESTORE's check of it: the value's RDB type byte and body, then the
 * RDB version (2 bytes little endian) and the CRC64 of all of that (8 bytes little endian).
 * FUNCTION DUMP / RESTORE use the same footer around the libraries as an RDB file holds them.
 */
public final class DumpPayload {
    /** RESTORE's reply when the footer is wrong: a newer version or a bad checksum. */
    public static final String ERR_VERSION_OR_CHECKSUM = "ERR DUMP payload version or checksum are wrong";
    /** RESTORE's reply when the body cannot be read as a value. */
    public static final String ERR_BAD_FORMAT = "ERR Bad data format";

    private static final int FOOTER = 10;

    private DumpPayload() {
    }

    /** DUMP's payload for value; compression is rdbcompression, which DUMP honours as Redis does. */
    public static byte[] create(Object value, boolean compression) throws IOException {
        RdbOutput out = new RdbOutput(compression);
        out.writeByte(RdbValues.typeOf(value));
        RdbValues.write(out, value);
        return withFooter(out);
    }

    /** rdbSavedObjectLen (DEBUG OBJECT's serializedlength): the bytes of value's body in a payload, without type and footer. */
    public static long bodyLength(Object value, boolean compression) throws IOException {
        return create(value, compression).length - 1 - FOOTER;
    }

    /** FUNCTION DUMP's payload: each library as an RDB file holds it (FUNCTION2 and its code). */
    public static byte[] functions(List<byte[]> codes, boolean compression) throws IOException {
        RdbOutput out = new RdbOutput(compression);
        for (byte[] code : codes) {
            out.writeByte(RdbType.OPCODE_FUNCTION2);
            out.writeString(code);
        }
        return withFooter(out);
    }

    private static byte[] withFooter(RdbOutput out) throws IOException {
        out.writeLittleEndian(RdbType.RDB_VERSION, 2);
        out.writeLittleEndian(out.crc(), 8);
        return out.toByteArray();
    }

    /**
     * The libraries' codes in a FUNCTION RESTORE payload. Throws with Redis's reply text (less
     * "ERR ") as the reason: a bad footer, an entry that is not a library, or one cut short.
     */
    public static List<byte[]> functionCodes(byte[] payload, boolean verifyChecksum) throws RdbFormatException {
        if (!verify(payload, verifyChecksum)) {
            throw new RdbFormatException(Kind.CHECKSUM, 0, "DUMP payload version or checksum are wrong");
        }
        int end = payload.length - FOOTER;
        RdbInput in = new RdbInput(payload, 0, end);
        List<byte[]> codes = new ArrayList<>();
        while (in.offset() < end) {
            int type;
            try {
                type = in.readUnsignedByte();
            } catch (IOException e) {
                throw new RdbFormatException(Kind.CORRUPT, in.offset(), "can not read data type");
            }
            if (type != RdbType.OPCODE_FUNCTION2 && type != RdbType.OPCODE_FUNCTION) {
                throw new RdbFormatException(Kind.CORRUPT, in.offset(), "given type is not a function");
            }
            try {
                codes.add(type == RdbType.OPCODE_FUNCTION2 ? in.readString() : RdbReader.readOldFunction(in));
            } catch (IOException e) {
                throw new RdbFormatException(Kind.CORRUPT, in.offset(), "Failed loading library payload");
            }
        }
        return codes;
    }

    /**
     * Redis's verifyDumpPayload: at least a footer, a version this codec reads, and (unless
     * verifyChecksum is off, as after DEBUG SET-SKIP-CHECKSUM-VALIDATION) a matching CRC64.
     */
    public static boolean verify(byte[] payload, boolean verifyChecksum) {
        if (payload.length < FOOTER) return false;
        int footer = payload.length - FOOTER;
        int version = (int) LittleEndian.get(payload, footer, 2);
        if (version > RdbType.RDB_VERSION) return false;
        if (!verifyChecksum) return true;
        return Crc64.update(0, payload, 0, payload.length - 8) == LittleEndian.get(payload, footer + 2, 8);
    }

    /**
     * The value of a payload, for RESTORE. Throws with kind CHECKSUM when {@link #verify} fails
     * (reply {@link #ERR_VERSION_OR_CHECKSUM}) and with another kind when the body is unreadable
     * or an empty collection (reply {@link #ERR_BAD_FORMAT}; {@link #errorReply} picks).
     */
    public static Object restore(byte[] payload, RdbLoadOptions options, boolean verifyChecksum) throws RdbFormatException {
        if (!verify(payload, verifyChecksum)) {
            throw new RdbFormatException(Kind.CHECKSUM, 0, "DUMP payload version or checksum are wrong");
        }
        RdbInput in = new RdbInput(payload, 0, payload.length - FOOTER);
        try {
            int type = in.readUnsignedByte();
            if (!RdbType.isObjectType(type)) throw in.corrupt("Unknown RDB encoding type " + type);
            Object value = RdbValues.read(in, type, options);
            if (value == null) throw in.corrupt("Empty keys are not allowed");
            return value;
        } catch (RdbFormatException e) {
            throw e;
        } catch (IOException e) {
            // Unreachable: the input is an array, the only IOExceptions are format ones.
            throw new RdbFormatException(Kind.CORRUPT, in.offset(), e.toString());
        }
    }

    /** RESTORE's error text for an exception of {@link #restore}. */
    public static String errorReply(RdbFormatException e) {
        return e.kind() == Kind.CHECKSUM ? ERR_VERSION_OR_CHECKSUM : ERR_BAD_FORMAT;
    }
}
