package io.cinnabar.persistence;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

class RespCommandBufferTest {
    private static String s(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void encodesCommandsAsRedisPropagatesThem() {
        assertEquals("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$0\r\n\r\n", s(RespCommandBuffer.encode(b("SET"), b("key"), b(""))));
        assertEquals("*2\r\n$6\r\nSELECT\r\n$2\r\n15\r\n", s(new RespCommandBuffer().select(15).toByteArray()));
    }

    @Test
    void numbersAsBulks() {
        RespCommandBuffer buf = new RespCommandBuffer(16);
        buf.bulk(0).bulk(-7).bulk(Long.MAX_VALUE).bulk(Long.MIN_VALUE);
        assertEquals("$1\r\n0\r\n$2\r\n-7\r\n$19\r\n9223372036854775807\r\n$20\r\n-9223372036854775808\r\n",
                s(buf.toByteArray()));
    }

    @Test
    void growsAndClears() throws IOException {
        RespCommandBuffer buf = new RespCommandBuffer(16);
        byte[] big = new byte[100_000];
        buf.arrayHeader(1).bulk(big, 10, 50_000).raw(b("#TS:1\r\n"));
        assertEquals(4 + 8 + 50_000 + 2 + 7, buf.size());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        buf.writeTo(out);
        assertEquals(buf.size(), out.size());
        buf.clear();
        assertEquals(0, buf.size());
        assertEquals(true, buf.isEmpty());
    }
}
