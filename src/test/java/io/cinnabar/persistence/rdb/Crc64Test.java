package io.cinnabar.persistence.rdb;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

class Crc64Test {
    @Test
    void checkValueOfRedisCrc64() {
        assertEquals(0xe9c6d914c4b8d9caL, Crc64.of("123456789".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void emptyInputIsZero() {
        assertEquals(0, Crc64.of(new byte[0]));
    }

    @Test
    void chunkedUpdatesMatchOneShot() {
        byte[] data = new byte[1000];
        new Random(7).nextBytes(data);
        long whole = Crc64.of(data);
        for (int split : new int[] {0, 1, 7, 8, 9, 500, 999, 1000}) {
            long crc = Crc64.update(0, data, 0, split);
            crc = Crc64.update(crc, data, split, data.length - split);
            assertEquals(whole, crc, "split at " + split);
        }
    }

    @Test
    void tableLoopMatchesBitwiseDefinition() {
        byte[] data = new byte[77];
        new Random(3).nextBytes(data);
        long crc = 0;
        for (byte b : data) {
            crc ^= b & 0xff;
            for (int k = 0; k < 8; k++) crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0x95ac9329ac4bc9b5L : crc >>> 1;
        }
        assertEquals(crc, Crc64.of(data));
    }
}
