package io.cinnabar.persistence.rdb;

import io.cinnabar.keyspace.HashValue;
import io.cinnabar.keyspace.SetValue;
import io.cinnabar.persistence.rdb.RdbFormatException.Kind;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.cinnabar.persistence.rdb.Values.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class DumpPayloadTest {
    private static final RdbLoadOptions DEEP = RdbLoadOptions.DEFAULTS.withDeepSanitize(true);

    private static String restoreError(byte[] payload, RdbLoadOptions options) {
        return DumpPayload.errorReply(assertThrows(RdbFormatException.class, () -> DumpPayload.restore(payload, options, true)));
    }

    /** A payload around a hand-made body, with a correct footer. */
    private static byte[] payload(int type, RdbWriterReaderTest.RawBody body) throws IOException {
        RdbOutput o = new RdbOutput(false);
        o.writeByte(type);
        body.write(o);
        o.writeLittleEndian(RdbType.RDB_VERSION, 2);
        o.writeLittleEndian(o.crc(), 8);
        return o.toByteArray();
    }

    @Test
    void everyEncodingRoundTrips() throws IOException {
        for (Map.Entry<String, Object> e : RdbWriterReaderTest.everyEncoding().entrySet()) {
            for (boolean compression : new boolean[] {true, false}) {
                byte[] p = DumpPayload.create(e.getValue(), compression);
                assertEquals(RdbValues.typeOf(e.getValue()), p[0] & 0xff);
                assertEquals(10, p[p.length - 10]);
                assertEquals(Rendered.describe(e.getValue()), Rendered.describe(DumpPayload.restore(p, DEEP, true)), e.getKey());
            }
        }
    }

    @Test
    void footerChecks() throws IOException {
        byte[] p = DumpPayload.create(b("value"), true);
        assertTrue(DumpPayload.verify(p, true));
        byte[] badCrc = p.clone();
        badCrc[badCrc.length - 1] ^= 1;
        assertEquals(DumpPayload.ERR_VERSION_OR_CHECKSUM, restoreError(badCrc, DEEP));
        assertEquals("value", new String((byte[]) DumpPayload.restore(badCrc, DEEP, false)), "checksum check skipped");
        byte[] v11 = p.clone();
        v11[v11.length - 10] = 11;
        assertFalse(DumpPayload.verify(v11, false), "a newer version is refused even without the checksum check");
        assertEquals(DumpPayload.ERR_VERSION_OR_CHECKSUM, restoreError(new byte[9], DEEP));
        assertEquals(DumpPayload.ERR_VERSION_OR_CHECKSUM, restoreError(new byte[0], DEEP));
    }

    @Test
    void unreadableBodiesAreBadDataFormat() throws IOException {
        assertEquals(DumpPayload.ERR_BAD_FORMAT, restoreError(payload(8, o -> o.writeString(b("x"))), DEEP), "type 8 is not a value type");
        assertEquals(DumpPayload.ERR_BAD_FORMAT, restoreError(payload(200, o -> o.writeString(b("x"))), DEEP));
        assertEquals(DumpPayload.ERR_BAD_FORMAT, restoreError(payload(RdbType.SET, o -> o.writeLength(0)), DEEP), "empty set");
        assertEquals(DumpPayload.ERR_BAD_FORMAT, restoreError(payload(RdbType.STRING, o -> o.writeLength(5)), DEEP), "short");
        RdbFormatException stream = assertThrows(RdbFormatException.class, () -> DumpPayload.restore(
                payload(RdbType.STREAM_LISTPACKS_2, o -> o.writeLength(0)), DEEP, true));
        assertEquals(Kind.SHORT_READ, stream.kind(), "a stream cut after its node count");
        assertEquals(DumpPayload.ERR_BAD_FORMAT, DumpPayload.errorReply(stream));
    }

    @Test
    void deepSanitizingRefusesDuplicatesAndDisorderThatAPlainLoadKeeps() throws IOException {
        Listpack.Builder dupFields = new Listpack.Builder().add(b("f")).add(b("1")).add(b("f")).add(b("2"));
        byte[] hash = payload(RdbType.HASH_LISTPACK, o -> o.writeString(dupFields.build()));
        assertEquals(2, ((HashValue) DumpPayload.restore(hash, RdbLoadOptions.DEFAULTS, true)).size());
        assertEquals(DumpPayload.ERR_BAD_FORMAT, restoreError(hash, DEEP));

        Listpack.Builder dupMembers = new Listpack.Builder().add(b("m")).addInteger(1).add(b("m")).addInteger(2);
        byte[] zset = payload(RdbType.ZSET_LISTPACK, o -> o.writeString(dupMembers.build()));
        DumpPayload.restore(zset, RdbLoadOptions.DEFAULTS, true);
        assertEquals(DumpPayload.ERR_BAD_FORMAT, restoreError(zset, DEEP));

        byte[] unsorted = {2, 0, 0, 0, 2, 0, 0, 0, 5, 0, 1, 0};
        byte[] set = payload(RdbType.SET_INTSET, o -> o.writeString(unsorted));
        assertEquals(2, ((SetValue) DumpPayload.restore(set, RdbLoadOptions.DEFAULTS, true)).size());
        assertEquals(DumpPayload.ERR_BAD_FORMAT, restoreError(set, DEEP));

        Listpack.Builder odd = new Listpack.Builder().add(b("f")).add(b("1")).add(b("g"));
        assertEquals(DumpPayload.ERR_BAD_FORMAT, restoreError(payload(RdbType.HASH_LISTPACK, o -> o.writeString(odd.build())),
                RdbLoadOptions.DEFAULTS), "an odd number of entries is refused even without deep sanitizing");
    }

    @Test
    void mutatedPayloadsAreRefusedOrUsable() throws IOException {
        Random rnd = new Random(99);
        List<byte[]> payloads = new ArrayList<>();
        for (Object v : RdbWriterReaderTest.everyEncoding().values()) {
            byte[] p = DumpPayload.create(v, true);
            if (p.length < 3000) payloads.add(p);
        }
        int refused = 0, accepted = 0;
        for (int i = 0; i < 20000; i++) {
            byte[] p = payloads.get(rnd.nextInt(payloads.size())).clone();
            int body = p.length - 10;
            for (int k = 1 + rnd.nextInt(3); k > 0; k--) {
                int at = rnd.nextInt(body);
                p[at] = (byte) (rnd.nextBoolean() ? rnd.nextInt(256) : p[at] ^ (1 << rnd.nextInt(8)));
            }
            try {
                RdbCorruptionTest.use(DumpPayload.restore(p, rnd.nextBoolean() ? DEEP : RdbLoadOptions.DEFAULTS, false));
                accepted++;
            } catch (RdbFormatException e) {
                refused++;
            }
        }
        assertTrue(refused > 1000 && accepted > 1000, refused + " refused, " + accepted + " accepted");
    }

    /**
     * The corrupt payloads of Redis's own test suite (tests/integration/corrupt-dump.tcl of the
     * unpacked 7.0.15 source, read in place when present): each is refused or yields a usable value.
     */
    @Test
    void corruptPayloadsOfRedisTestSuite() throws IOException {
        Path tcl = Path.of(System.getProperty("user.home"), ".cache/cinnabar-compat/redis-7.0.15/tests/integration/corrupt-dump.tcl");
        assumeTrue(Files.isReadable(tcl), "Redis source not present");
        List<byte[]> payloads = tclStrings(Files.readString(tcl, StandardCharsets.ISO_8859_1));
        assertTrue(payloads.size() > 30, "found " + payloads.size());
        int refusedDeep = 0;
        for (byte[] p : payloads) {
            for (RdbLoadOptions o : new RdbLoadOptions[] {RdbLoadOptions.DEFAULTS, DEEP}) {
                try {
                    RdbCorruptionTest.use(DumpPayload.restore(p, o, true));
                } catch (RdbFormatException e) {
                    if (o == DEEP) refusedDeep++;
                }
            }
        }
        assertEquals(payloads.size(), refusedDeep, "all are refused with deep sanitizing");
    }

    /** Every double-quoted Tcl literal starting with a \x escape, unescaped. */
    static List<byte[]> tclStrings(String tcl) {
        List<byte[]> out = new ArrayList<>();
        int i = 0;
        while ((i = tcl.indexOf("\"\\x", i)) >= 0) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            int p = i + 1;
            while (p < tcl.length() && tcl.charAt(p) != '"') {
                char c = tcl.charAt(p++);
                if (c != '\\') {
                    b.write(c);
                    continue;
                }
                char e = tcl.charAt(p++);
                switch (e) {
                    case 'x' -> {
                        int v = 0, digits = 0;
                        while (digits < 2 && p < tcl.length() && Character.digit(tcl.charAt(p), 16) >= 0) {
                            v = v * 16 + Character.digit(tcl.charAt(p++), 16);
                            digits++;
                        }
                        b.write(v);
                    }
                    case 'n' -> b.write('\n');
                    case 'r' -> b.write('\r');
                    case 't' -> b.write('\t');
                    case '0' -> b.write(0);
                    default -> b.write(e);
                }
            }
            out.add(b.toByteArray());
            i = p + 1;
        }
        return out;
    }

    /** FUNCTION DUMP of "#!lua name=fromredis ..." by redis-server 7.0.15, with and without rdbcompression. */
    private static final String REDIS_FUNCTIONS_LZF = "f5c3404a40501423216c7561206e616d653d66726f6d72656469730a60051c2e7265"
            + "6769737465725f66756e6374696f6e2827616e73776572272c20e000120f292072657475726e20343220656e64290a003389a743031abf20";
    private static final String REDIS_FUNCTIONS_PLAIN = "f5405023216c7561206e616d653d66726f6d72656469730a72656469732e72656769"
            + "737465725f66756e6374696f6e2827616e73776572272c2066756e6374696f6e28292072657475726e20343220656e64290a005542ba03e5fe938a";
    private static final String REDIS_LIBRARY = "#!lua name=fromredis\nredis.register_function('answer', function() return 42 end)";

    private static String functionsError(byte[] payload) {
        return assertThrows(RdbFormatException.class, () -> DumpPayload.functionCodes(payload, true)).reason();
    }

    @Test
    void functionPayloadsOfRedisReadAndAreWrittenTheSameWithoutCompression() throws IOException {
        for (String hex : List.of(REDIS_FUNCTIONS_LZF, REDIS_FUNCTIONS_PLAIN)) {
            List<byte[]> codes = DumpPayload.functionCodes(java.util.HexFormat.of().parseHex(hex), true);
            assertEquals(1, codes.size());
            assertEquals(REDIS_LIBRARY, new String(codes.get(0), StandardCharsets.UTF_8));
        }
        byte[] ours = DumpPayload.functions(List.of(b(REDIS_LIBRARY)), false);
        assertEquals(REDIS_FUNCTIONS_PLAIN, java.util.HexFormat.of().formatHex(ours));
    }

    @Test
    void functionPayloadsRoundTripAndBadOnesGiveRedisErrors() throws IOException {
        List<byte[]> codes = List.of(b("#!lua name=a\n" + "x".repeat(100)), b("#!lua name=b\nshort"));
        byte[] p = DumpPayload.functions(codes, true);
        List<byte[]> back = DumpPayload.functionCodes(p, true);
        assertEquals(2, back.size());
        for (int i = 0; i < 2; i++) assertEquals(new String(codes.get(i)), new String(back.get(i)));
        assertEquals(List.of(), DumpPayload.functionCodes(DumpPayload.functions(List.of(), true), true), "no libraries");

        byte[] badCrc = p.clone();
        badCrc[badCrc.length - 1] ^= 1;
        assertEquals("DUMP payload version or checksum are wrong", functionsError(badCrc));
        assertEquals(2, DumpPayload.functionCodes(badCrc, false).size(), "checksum check skipped");
        assertEquals("DUMP payload version or checksum are wrong", functionsError(b("bad_payload")));
        assertEquals("given type is not a function", functionsError(DumpPayload.create(b("value"), false)));
        assertEquals("Failed loading library payload", functionsError(payload(RdbType.OPCODE_FUNCTION2, o -> o.writeLength(50))));
    }
}
