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

    /**
     * What CLUSTER KEYSLOT answered on a real Redis 7.0.15. Hash tags: an empty one hashes the
     * whole key; only the first '{' and the next '}' count.
     */
    private static final Object[][] REAL_REDIS = {
            {"foo", 12182}, {"bar", 5061}, {"a", 15495}, {"b", 3300}, {"x", 16287}, {"", 0}, {"123456789", 12739},
            {"user:1000", 1649}, {"éà", 15768}, {"{", 4092}, {"}", 12090},
            {"{user}1", 5474}, {"{user}2", 5474}, {"{a}x", 15495}, {"{}x", 10595}, {"foo{}{bar}", 8363},
            {"foo{{bar}}zap", 4015}, {"foo{bar}{zap}", 5061},
    };

    @Test
    void slotsAndHashTagsEqualRealRedis() {
        for (Object[] c : REAL_REDIS) assertEquals(c[1], slot((String) c[0]), (String) c[0]);
    }
}
