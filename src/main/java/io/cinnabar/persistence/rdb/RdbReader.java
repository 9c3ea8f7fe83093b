package io.cinnabar.persistence.rdb;

import io.cinnabar.persistence.rdb.RdbFormatException.Kind;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Reads an RDB file of format version 1 to 10 (Redis 7.0.15's rdbLoadRio) and reports what it
 * holds to an {@link RdbVisitor}. It buffers its input itself; after {@link #read} returns,
 * {@link #remainder()} continues with the first byte after the checksum (an AOF's tail after its
 * RDB preamble). Every problem with the bytes is an {@link RdbFormatException} carrying its
 * offset; I/O errors of the stream pass through as they are.
 */
public final class RdbReader {
    private static final byte[] MAGIC = "REDIS".getBytes(StandardCharsets.US_ASCII);

    private final RdbInput in;
    private final RdbLoadOptions options;
    private boolean verifyChecksum = true;

    public RdbReader(InputStream in, RdbLoadOptions options) {
        this.in = new RdbInput(in);
        this.options = options;
    }

    /** rdbchecksum no (or DEBUG's skip): read the trailer but do not compare it. */
    public RdbReader verifyChecksum(boolean verify) {
        this.verifyChecksum = verify;
        return this;
    }

    /** Bytes consumed so far (for loading progress). */
    public long bytesRead() {
        return in.offset();
    }

    /** The input after the RDB part; valid once {@link #read} has returned. */
    public InputStream remainder() {
        return in.remainder();
    }

    /** Whether head (the first bytes of a file, at least 5) starts like an RDB file: the AOF loader's test. */
    public static boolean hasRdbSignature(byte[] head, int length) {
        if (length < MAGIC.length) return false;
        for (int i = 0; i < MAGIC.length; i++) {
            if (head[i] != MAGIC[i]) return false;
        }
        return true;
    }

    /** The version in a 9-byte header "REDISnnnn", or the reason it cannot be loaded. */
    public static int version(byte[] header) throws RdbFormatException {
        if (header.length < 9 || !hasRdbSignature(header, header.length)) {
            throw new RdbFormatException(Kind.BAD_SIGNATURE, 0, "Wrong signature trying to load DB from file");
        }
        // atoi: leading digits, anything else ends the number.
        int version = 0;
        for (int i = 5; i < 9 && header[i] >= '0' && header[i] <= '9'; i++) version = version * 10 + (header[i] - '0');
        if (version < 1 || version > RdbType.RDB_VERSION) {
            throw new RdbFormatException(Kind.UNSUPPORTED_VERSION, 9, "Can't handle RDB format version " + version);
        }
        return version;
    }

    /** Reads the whole file, checksum included; returns its format version. */
    public int read(RdbVisitor v) throws IOException {
        byte[] header = new byte[9];
        in.readFully(header, 0, 9);
        int version = version(header);
        int db = 0;
        long expireAt = -1, idle = -1;
        int freq = -1;
        while (true) {
            int type = in.readUnsignedByte();
            switch (type) {
                case RdbType.OPCODE_EXPIRETIME:
                    expireAt = (int) in.readLittleEndian(4) * 1000L;
                    continue;
                case RdbType.OPCODE_EXPIRETIME_MS:
                    expireAt = in.readLittleEndian(8);
                    continue;
                case RdbType.OPCODE_FREQ:
                    freq = in.readUnsignedByte();
                    continue;
                case RdbType.OPCODE_IDLE:
                    idle = in.readCount();
                    continue;
                case RdbType.OPCODE_EOF:
                    checkTrailer(version);
                    return version;
                case RdbType.OPCODE_SELECTDB:
                    long id = in.readCount();
                    if (id > Integer.MAX_VALUE) throw in.corrupt("Database index " + id + " is out of range");
                    db = (int) id;
                    v.selectDb(db);
                    continue;
                case RdbType.OPCODE_RESIZEDB:
                    long keys = in.readCount();
                    v.resizeDb(keys, in.readCount());
                    continue;
                case RdbType.OPCODE_AUX:
                    byte[] auxKey = in.readString();
                    v.aux(auxKey, in.readString());
                    continue;
                case RdbType.OPCODE_MODULE_AUX:
                    long moduleId = in.readLength();
                    throw new RdbFormatException(Kind.UNSUPPORTED_TYPE, in.offset(),
                            "The RDB file contains AUX module data I can't load: no matching module '"
                                    + RdbValues.moduleName(moduleId) + "'");
                case RdbType.OPCODE_FUNCTION:
                    v.function(readOldFunction(in));
                    continue;
                case RdbType.OPCODE_FUNCTION2:
                    v.function(in.readString());
                    continue;
                default:
                    byte[] key = in.readString();
                    Object value = RdbValues.read(in, type, options);
                    if (value == null) {
                        v.emptyKeySkipped(db, key);
                    } else {
                        v.entry(db, key, value, expireAt, idle, freq);
                    }
                    expireAt = idle = -1;
                    freq = -1;
            }
        }
    }

    /**
     * The 7.0 release candidates stored a library as name, engine, optional description and body;
     * Redis rebuilds the code as "#!engine name=name\n" + body.
     */
    static byte[] readOldFunction(RdbInput in) throws IOException {
        byte[] name = in.readString();
        byte[] engine = in.readString();
        if (in.readLength() != 0) in.readString(); // the description, dropped as Redis drops it
        byte[] body = in.readString();
        byte[] head = ("#!" + new String(engine, StandardCharsets.ISO_8859_1) + " name="
                + new String(name, StandardCharsets.ISO_8859_1) + "\n").getBytes(StandardCharsets.ISO_8859_1);
        byte[] code = new byte[head.length + body.length];
        System.arraycopy(head, 0, code, 0, head.length);
        System.arraycopy(body, 0, code, head.length, body.length);
        return code;
    }

    /** Versions 5 and later end with the CRC64 of everything before it; 0 means "not computed". */
    private void checkTrailer(int version) throws IOException {
        if (version < 5) return;
        long expected = in.crc();
        long stored = in.readLittleEndian(8);
        if (verifyChecksum && stored != 0 && stored != expected) {
            throw new RdbFormatException(Kind.CHECKSUM, in.offset(), String.format(
                    "Wrong RDB checksum expected: (%x) but got (%x). RDB CRC error", expected, stored));
        }
    }
}
