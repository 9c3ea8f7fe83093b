package io.cinnabar.keyspace;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** OBJECT ENCODING for strings, including the "raw" flag APPEND/SETRANGE/SETBIT leave behind. */
class StringEncodingTest {
    private final Keyspace keyspace = new Keyspace(1);
    private final Database db = keyspace.db(0);

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private String encoding(String key) {
        return db.lookup(b(key)).stringEncoding();
    }

    @Test
    void computedFromTheBytes() {
        db.set(b("i"), b("1234"));
        db.set(b("z"), b("-0"));
        db.set(b("e"), b("x".repeat(44)));
        db.set(b("r"), b("x".repeat(45)));
        db.set(b("long"), b("99999999999999999999"));
        assertEquals("int", encoding("i"));
        assertEquals("embstr", encoding("z"));
        assertEquals("embstr", encoding("e"));
        assertEquals("raw", encoding("r"));
        assertEquals("embstr", encoding("long"), "out of long range");
    }

    @Test
    void inPlaceEditsAreRawUntilTheNextPlainWrite() {
        db.set(b("k"), b("1234"));
        db.setExpire(b("k"), System.currentTimeMillis() + 100_000);
        db.setRawKeepTtl(b("k"), b("2234"));
        assertEquals("raw", encoding("k"));
        assertTrue(db.expireAt(b("k")) > 0, "TTL kept");
        db.persist(b("k"));
        assertEquals("raw", encoding("k"), "the flag survives TTL changes");
        db.setRawKeepTtl(b("new"), b("ab"));
        assertEquals("raw", encoding("new"));
        db.set(b("k"), b("1"));
        assertEquals("int", encoding("k"));
        db.setKeepTtl(b("new"), b("ab"));
        assertEquals("embstr", encoding("new"));
    }

    @Test
    void incrbyfloatResultsAreNeverIntegers() {
        db.setNotIntKeepTtl(b("f"), b("10"));
        assertEquals("embstr", encoding("f"));
        db.setNotIntKeepTtl(b("f"), b("1".repeat(45)));
        assertEquals("raw", encoding("f"));
        db.set(b("f"), b("10"));
        assertEquals("int", encoding("f"), "a plain write integer-encodes again");
    }

    @Test
    void markedRawWithoutAChange() {
        db.set(b("k"), b("12"));
        long dirty = keyspace.dirty();
        db.markRaw(b("k"));
        assertEquals("raw", encoding("k"));
        assertEquals(dirty, keyspace.dirty());
    }

    @Test
    void touchingKeepsTheFlag() {
        db.setRawKeepTtl(b("k"), b("x"));
        db.read(b("k"));
        db.write(b("k"));
        assertEquals("raw", encoding("k"));
        assertTrue(keyspace.idleSeconds(db.lookup(b("k"))) <= 1);
    }
}
