package io.cinnabar.command.cluster;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

class HashSlotTest {
    private static int slot(String key) {
        return HashSlot.of(key.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void crc16IsXmodem() {
        // The check value of CRC-16/XMODEM, which Redis's crc16.c quotes.
        byte[] digits = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertEquals(0x31C3, HashSlot.crc16(digits, 0, digits.length));
    }

    /** Each value is what CLUSTER KEYSLOT answered on a real Redis 7.0.15. */
    @Test
    void slotsEqualRealRedis() {
        assertEquals(12182, slot("foo"));
        assertEquals(5061, slot("bar"));
        assertEquals(15495, slot("a"));
        assertEquals(3300, slot("b"));
        assertEquals(16287, slot("x"));
        assertEquals(0, slot(""));
        assertEquals(12739, slot("123456789"));
        assertEquals(1649, slot("user:1000"));
        assertEquals(15768, slot("éà"));
        assertEquals(4092, slot("{"));
        assertEquals(12090, slot("}"));
    }

    @Test
    void hashTagsAsRealRedis() {
        assertEquals(5474, slot("{user}1"));
        assertEquals(5474, slot("{user}2"));
        assertEquals(15495, slot("{a}x"));
        // An empty tag hashes the whole key; only the first '{' and the next '}' count.
        assertEquals(10595, slot("{}x"));
        assertEquals(8363, slot("foo{}{bar}"));
        assertEquals(4015, slot("foo{{bar}}zap"));
        assertEquals(5061, slot("foo{bar}{zap}"));
    }
}
