package io.cinnabar.persistence.rdb;

import io.cinnabar.keyspace.IntSet;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

class ZiplistZipmapIntsetTest {
    /** A ziplist written the way Redis 6 wrote them, for the reader to take apart. */
    static byte[] ziplist(Object... items) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        int prev = 0, tail = 10;
        for (Object o : items) {
            ByteArrayOutputStream e = new ByteArrayOutputStream();
            if (prev < 254) {
                e.write(prev);
            } else {
                e.write(0xfe);
                for (int i = 0; i < 4; i++) e.write(prev >>> (8 * i));
            }
            if (o instanceof Long v) {
                if (v >= 0 && v <= 12) {
                    e.write(0xf1 + (int) (long) v);
                } else if (v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE) {
                    e.write(0xfe);
                    e.write((int) (long) v);
                } else if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) {
                    e.write(0xc0);
                    for (int i = 0; i < 2; i++) e.write((int) (v >>> (8 * i)));
                } else if (v >= -(1 << 23) && v < (1 << 23)) {
                    e.write(0xf0);
                    for (int i = 0; i < 3; i++) e.write((int) (v >>> (8 * i)));
                } else if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
                    e.write(0xd0);
                    for (int i = 0; i < 4; i++) e.write((int) (v >>> (8 * i)));
                } else {
                    e.write(0xe0);
                    for (int i = 0; i < 8; i++) e.write((int) (v >>> (8 * i)));
                }
            } else {
                byte[] s = ((String) o).getBytes(StandardCharsets.ISO_8859_1);
                if (s.length < 64) {
                    e.write(s.length);
                } else if (s.length < 16384) {
                    e.write(0x40 | (s.length >>> 8));
                    e.write(s.length);
                } else {
                    e.write(0x80);
                    for (int i = 3; i >= 0; i--) e.write(s.length >>> (8 * i));
                }
                e.writeBytes(s);
            }
            tail = 10 + body.size();
            prev = e.size();
            body.writeBytes(e.toByteArray());
        }
        int total = 10 + body.size() + 1;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < 4; i++) out.write(total >>> (8 * i));
        for (int i = 0; i < 4; i++) out.write(tail >>> (8 * i));
        out.write(items.length);
        out.write(items.length >>> 8);
        out.writeBytes(body.toByteArray());
        out.write(0xff);
        return out.toByteArray();
    }

    static List<String> ziplistEntries(byte[] zl) {
        EntryCollector c = new EntryCollector(1, false);
        return Ziplist.walk(zl, c) < 0 ? null : ListpackTest.texts(c);
    }

    @Test
    void ziplistEveryEncodingReads() {
        String big = "y".repeat(300);
        String huge = "z".repeat(17000);
        byte[] zl = ziplist("a", 0L, 12L, 13L, -100L, 1000L, 100000L, -2000000000L, 1L << 40, big, "b", huge, "c");
        assertEquals(List.of("a", "0", "12", "13", "-100", "1000", "100000", "-2000000000", Long.toString(1L << 40),
                big, "b", huge, "c"), ziplistEntries(zl));
    }

    @Test
    void ziplistCorruptionIsRefused() {
        byte[] zl = ziplist("hello", 5L, "world", "x".repeat(300), "tail");
        byte[] wrongTail = zl.clone();
        wrongTail[4]++;
        assertNull(ziplistEntries(wrongTail));
        byte[] wrongPrevlen = zl.clone();
        wrongPrevlen[10 + 7] = 3; // the prevlen of the second entry
        assertNull(ziplistEntries(wrongPrevlen));
        Random rnd = new Random(2);
        for (int i = 0; i < 20000; i++) {
            byte[] bad = zl.clone();
            bad[rnd.nextInt(bad.length)] = (byte) rnd.nextInt(256);
            ziplistEntries(bad);
        }
    }

    @Test
    void zipmapReadsPairsSkippingFreeBytes() {
        // "\x02\x03foo\x03\x01bar!\x05hello\x05\x00world\xff": one free byte after "bar".
        byte[] zm = "\u0002\u0003foo\u0003\u0001bar!\u0005hello\u0005\u0000world\u00ff".getBytes(StandardCharsets.ISO_8859_1);
        List<String> pairs = new ArrayList<>();
        int n = Zipmap.walk(zm, (b, fo, fl, vo, vl) -> {
            pairs.add(new String(b, fo, fl, StandardCharsets.ISO_8859_1) + "=" + new String(b, vo, vl, StandardCharsets.ISO_8859_1));
            return true;
        });
        assertEquals(2, n);
        assertEquals(List.of("foo=bar", "hello=world"), pairs);
        assertEquals(-1, Zipmap.walk(new byte[] {0, (byte) 0xff}, (b, fo, fl, vo, vl) -> true), "empty");
        byte[] badCount = zm.clone();
        badCount[0] = 3;
        assertEquals(-1, Zipmap.walk(badCount, (b, fo, fl, vo, vl) -> true));
        Random rnd = new Random(4);
        for (int i = 0; i < 20000; i++) {
            byte[] bad = zm.clone();
            bad[rnd.nextInt(bad.length)] = (byte) rnd.nextInt(256);
            Zipmap.walk(bad, (b, fo, fl, vo, vl) -> true);
        }
    }

    @Test
    void intsetBlobRoundTripsAtEveryWidth() {
        for (long extra : new long[] {5, 40000, 1L << 40}) {
            IntSet s = new IntSet();
            for (long v = -10; v <= 10; v++) s.add(v);
            s.add(extra);
            byte[] blob = IntsetBlob.encode(s);
            assertEquals(8 + s.size() * s.width(), blob.length);
            IntSet back = IntsetBlob.decode(blob, true);
            assertNotNull(back);
            assertEquals(s.width(), back.width());
            for (int i = 0; i < s.size(); i++) assertEquals(s.get(i), back.get(i));
        }
    }

    @Test
    void intsetBlobValidation() {
        IntSet s = new IntSet();
        s.add(1);
        s.add(2);
        byte[] blob = IntsetBlob.encode(s);
        byte[] swapped = blob.clone();
        swapped[8] = 2;
        swapped[10] = 1;
        assertNull(IntsetBlob.decode(swapped, true), "out of order with deep");
        assertNotNull(IntsetBlob.decode(swapped, false), "Redis keeps it without deep");
        byte[] badWidth = blob.clone();
        badWidth[0] = 3;
        assertNull(IntsetBlob.decode(badWidth, false));
        byte[] badCount = blob.clone();
        badCount[4] = 5;
        assertNull(IntsetBlob.decode(badCount, false));
        assertNull(IntsetBlob.decode(new byte[] {2, 0, 0, 0, 0, 0, 0, 0}, false), "empty");
    }
}
