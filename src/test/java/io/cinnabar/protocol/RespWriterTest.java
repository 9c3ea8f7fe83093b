package io.cinnabar.protocol;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

class RespWriterTest {
    private static String encode(int protocol, Consumer<RespWriter> replies) {
        RespWriter w = new RespWriter(8); // tiny, so every reply type exercises growth
        w.protocol(protocol);
        replies.accept(w);
        return new String(w.takeBytes(), StandardCharsets.ISO_8859_1);
    }

    private static void both(String resp2, String resp3, Consumer<RespWriter> replies) {
        assertEquals(resp2, encode(2, replies), "RESP2");
        assertEquals(resp3, encode(3, replies), "RESP3");
    }

    @Test
    void scalarsAreTheSameInBothProtocols() {
        both("+OK\r\n", "+OK\r\n", Reply::ok);
        both("+PONG\r\n", "+PONG\r\n", w -> w.simple("PONG"));
        both(":0\r\n:-1\r\n:9223372036854775807\r\n:-9223372036854775808\r\n",
                ":0\r\n:-1\r\n:9223372036854775807\r\n:-9223372036854775808\r\n", w -> {
                    w.integer(0);
                    w.integer(-1);
                    w.integer(Long.MAX_VALUE);
                    w.integer(Long.MIN_VALUE);
                });
        both("$3\r\nfoo\r\n$0\r\n\r\n", "$3\r\nfoo\r\n$0\r\n\r\n", w -> {
            w.bulk("foo");
            w.bulk(new byte[0]);
        });
        both("$2\r\n10\r\n$20\r\n-9223372036854775808\r\n", "$2\r\n10\r\n$20\r\n-9223372036854775808\r\n", w -> {
            w.bulk(10);
            w.bulk(Long.MIN_VALUE);
        });
        both("*2\r\n$1\r\na\r\n$-1\r\n", "*2\r\n$1\r\na\r\n_\r\n",
                w -> w.bulkArray("a".getBytes(StandardCharsets.US_ASCII), null));
        both("*0\r\n", "*0\r\n", Reply::emptyArray);
    }

    @Test
    void bulkHeadersOfEveryLengthWidth() {
        for (int n : new int[] {0, 1, 9, 10, 42, 99, 100, 999, 1000, 65_536, 1_000_000}) {
            byte[] value = new byte[n];
            java.util.Arrays.fill(value, (byte) 'v');
            String expected = "$" + n + "\r\n" + "v".repeat(n) + "\r\n";
            // Out of a bigger array, as list and hash replies write from their nodes.
            byte[] inNode = new byte[n + 7];
            System.arraycopy(value, 0, inNode, 3, n);
            both(expected + expected, expected + expected, w -> {
                w.bulk(value);
                w.bulk(inNode, 3, n);
            });
        }
    }

    @Test
    void errorsCannotContainNewlines() {
        both("-ERR bad  thing\r\n", "-ERR bad  thing\r\n", w -> w.error("ERR bad\r\nthing"));
    }

    @Test
    void nulls() {
        both("$-1\r\n", "_\r\n", Reply::nullBulk);
        both("*-1\r\n", "_\r\n", Reply::nullArray);
    }

    @Test
    void aggregates() {
        both("*4\r\n$1\r\nk\r\n:1\r\n", "%2\r\n$1\r\nk\r\n:1\r\n", w -> {
            w.map(2);
            w.bulk("k");
            w.integer(1);
        });
        both("*2\r\n", "~2\r\n", w -> w.set(2));
        both("*3\r\n$7\r\nmessage\r\n", ">3\r\n$7\r\nmessage\r\n", w -> {
            w.push(3);
            w.bulk("message");
        });
        both("*5\r\n", "*5\r\n", w -> w.array(5));
    }

    @Test
    void doubles() {
        both("$3\r\n1.5\r\n", ",1.5\r\n", w -> w.doubleValue(1.5));
        both("$19\r\n0.10000000000000001\r\n", ",0.10000000000000001\r\n", w -> w.doubleValue(0.1));
        both("$3\r\ninf\r\n$4\r\n-inf\r\n", ",inf\r\n,-inf\r\n", w -> {
            w.doubleValue(Double.POSITIVE_INFINITY);
            w.doubleValue(Double.NEGATIVE_INFINITY);
        });
        both("$5\r\n1e+20\r\n", ",1e+20\r\n", w -> w.doubleValue(1e20));
    }

    @Test
    void booleans() {
        both(":1\r\n:0\r\n", "#t\r\n#f\r\n", w -> {
            w.bool(true);
            w.bool(false);
        });
    }

    @Test
    void verbatim() {
        both("$5\r\nhello\r\n", "=9\r\ntxt:hello\r\n", w -> w.verbatim("txt", "hello".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void truncateDropsAPartialReply() {
        both("+OK\r\n-ERR x\r\n", "+OK\r\n-ERR x\r\n", w -> {
            w.ok();
            int mark = w.size();
            w.array(3);
            w.bulk("half");
            w.truncate(mark);
            w.error("ERR x");
        });
    }

    @Test
    void writerIsEmptyAfterTakeBytes() {
        RespWriter w = new RespWriter(4);
        w.bulk(new byte[2 << 20]);
        assertEquals((2 << 20) + 12, w.takeBytes().length); // "$2097152\r\n" + data + CRLF
        w.ok();
        assertEquals("+OK\r\n", new String(w.takeBytes(), StandardCharsets.US_ASCII));
    }
}
