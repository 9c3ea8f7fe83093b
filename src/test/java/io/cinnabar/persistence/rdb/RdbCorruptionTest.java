package io.cinnabar.persistence.rdb;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.Random;

import static io.cinnabar.persistence.rdb.Values.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad input ends in RdbFormatException: no other exception, no endless loop, no huge allocation. */
class RdbCorruptionTest {
    private static byte[] smallFileOfEveryEncoding() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        RdbWriter w = new RdbWriter(out, true, true);
        w.begin(RdbWriter.standardAux(1, 2, false));
        w.function(b("#!lua name=f\nreturn 1"));
        w.selectDb(0, 10, 1);
        w.key(b("s"), b("a string long enough to be compressed by lzf lzf lzf lzf"), 12345);
        w.key(b("i"), b("-77"), -1, 3, 4);
        w.key(b("l"), Values.list(40, 3), -1);
        w.key(b("si"), Values.intSet(1, 2, 70000), -1);
        w.key(b("sh"), Values.stringSet(5), -1);
        w.key(b("zl"), Values.zset(6, 3), -1);
        w.key(b("zs"), Values.zset(4, 200), -1);
        w.key(b("hl"), Values.hash(6, 3), -1);
        w.key(b("hh"), Values.hash(3, 300), -1);
        w.end();
        return out.toByteArray();
    }

    /** Reads f and uses every value it yields, the way a server would right after loading. */
    private static void readAndUse(byte[] f, boolean deep) throws IOException {
        Loaded l = new Loaded();
        new RdbReader(new ByteArrayInputStream(f), RdbLoadOptions.DEFAULTS.withDeepSanitize(deep)).verifyChecksum(false).read(l);
        for (Loaded.Key k : l.keys.values()) use(k.value());
    }

    static void use(Object value) throws IOException {
        Rendered.describe(value);
        DumpPayload.create(value, true);
    }

    @Test
    void truncationAnywhereIsReported() throws IOException {
        byte[] f = smallFileOfEveryEncoding();
        readAndUse(f, true);
        for (int cut = 0; cut < f.length; cut++) {
            byte[] part = java.util.Arrays.copyOf(f, cut);
            RdbFormatException e = assertThrows(RdbFormatException.class, () -> readAndUse(part, false), "cut at " + cut);
            assertTrue(e.offset() <= cut, e.getMessage());
        }
    }

    @Test
    @Timeout(120)
    void randomDamageIsReportedOrHarmless() throws IOException {
        byte[] f = smallFileOfEveryEncoding();
        Random rnd = new Random(12345);
        int refused = 0;
        for (int i = 0; i < 6000; i++) {
            byte[] bad = f.clone();
            int flips = 1 + rnd.nextInt(4);
            for (int k = 0; k < flips; k++) {
                int at = 9 + rnd.nextInt(bad.length - 9);
                bad[at] = (byte) (rnd.nextBoolean() ? rnd.nextInt(256) : bad[at] ^ (1 << rnd.nextInt(8)));
            }
            try {
                readAndUse(bad, rnd.nextBoolean());
            } catch (RdbFormatException e) {
                refused++;
            }
        }
        assertTrue(refused > 300, "refused " + refused);
    }

    private static byte[] raw(RdbWriterReaderTest.RawBody body) throws IOException {
        RdbOutput o = new RdbOutput(false);
        o.write(b("REDIS0010"), 0, 9);
        o.writeByte(RdbType.OPCODE_SELECTDB);
        o.writeLength(0);
        body.write(o);
        return o.toByteArray();
    }

    /** A value of type whose length (of bytes or elements) says count, followed by only these strings. */
    private static byte[] declared(int type, long count, String... present) throws IOException {
        return raw(o -> {
            o.writeByte(type);
            o.writeString(b("k"));
            o.writeLength(count);
            for (String s : present) o.writeString(b(s));
        });
    }

    @Test
    void hugeDeclaredLengthsFailWithoutAllocatingThem() throws IOException {
        Map<String, byte[]> cases = Map.of(
                "string of 2 GB", declared(RdbType.STRING, Integer.MAX_VALUE - 100, "some bytes"),
                "string of 2^62 bytes", declared(RdbType.STRING, 1L << 62),
                "lzf expanding 2 GB", raw(o -> {
                    o.writeByte(RdbType.STRING);
                    o.writeString(b("k"));
                    o.writeByte(0xc3);
                    o.writeLength(2);
                    o.writeLength(Integer.MAX_VALUE - 100);
                    o.write(b("\u0000a"), 0, 2);
                }),
                "list of 2^62 elements", declared(RdbType.LIST, 1L << 62, "only one"),
                "set of 2^40 members", declared(RdbType.SET, 1L << 40, "only one"),
                "zset of 2^40 members", declared(RdbType.ZSET_2, 1L << 40),
                "hash of 2^40 pairs", declared(RdbType.HASH, 1L << 40),
                "quicklist of 2^40 nodes", declared(RdbType.LIST_QUICKLIST_2, 1L << 40));
        for (Map.Entry<String, byte[]> c : cases.entrySet()) {
            // Through a stream (size unknown) and through an array (size known).
            assertThrows(RdbFormatException.class, () -> Loaded.read(new ByteArrayInputStream(c.getValue()) {
            }, RdbLoadOptions.DEFAULTS), c.getKey());
            byte[] payload = payloadOf(java.util.Arrays.copyOfRange(c.getValue(), 11, c.getValue().length));
            assertEquals(DumpPayload.ERR_BAD_FORMAT, DumpPayload.errorReply(assertThrows(RdbFormatException.class,
                    () -> DumpPayload.restore(payload, RdbLoadOptions.DEFAULTS, true), c.getKey())));
        }
    }

    /** A DUMP payload around a type byte, key and body as a file has them: the key is dropped. */
    private static byte[] payloadOf(byte[] record) throws IOException {
        RdbOutput o = new RdbOutput(false);
        o.writeByte(record[0]);
        int keyLen = record[1];
        o.write(record, 2 + keyLen, record.length - 2 - keyLen);
        o.writeLittleEndian(RdbType.RDB_VERSION, 2);
        o.writeLittleEndian(o.crc(), 8);
        return o.toByteArray();
    }
}
