package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import io.lettuce.core.BitFieldArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.args.BitOP;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static io.cinnabar.command.Raw.cmd;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** BITOP, BITFIELD, BITFIELD_RO; every expected reply was read from a real Redis 7.0.15 given the same calls. */
@CinnabarTest
class BitOpsIT {
    private static final String BAD_TYPE =
            "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.";
    private static final String BAD_OFFSET = "ERR bit offset is not an integer or out of range";

    private static String error(Jedis jedis, String name, String... args) {
        return Raw.error(() -> cmd(jedis, name, args));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @BeforeEach
    void clean(Jedis jedis) {
        jedis.flushAll();
    }

    @Test
    void bitfieldTypeIsReadUpToANulByte(Jedis jedis) {
        // getBitfieldTypeFromArgument reads the bits with strlen (found by hand against redis-server 7.0.15).
        jedis.set("s", "abc");
        assertEquals(List.of(97L), cmd(jedis, "BITFIELD", "s", "GET", "u8\0x", "0"));
    }

    @Test
    void bitop(Jedis jedis) {
        jedis.set(bytes("a"), new byte[] {(byte) 0xF0, 0x0F, 0x55});
        jedis.set(bytes("b"), new byte[] {(byte) 0xFF});
        assertEquals(3L, jedis.bitop(BitOP.AND, "d", "a", "b"));
        assertArrayEquals(new byte[] {(byte) 0xF0, 0, 0}, jedis.get(bytes("d")));
        assertEquals(3L, jedis.bitop(BitOP.OR, "d", "a", "b", "missing"));
        assertArrayEquals(new byte[] {(byte) 0xFF, 0x0F, 0x55}, jedis.get(bytes("d")));
        assertEquals(3L, jedis.bitop(BitOP.XOR, "d", "a", "b"));
        assertArrayEquals(new byte[] {0x0F, 0x0F, 0x55}, jedis.get(bytes("d")));
        assertEquals(3L, jedis.bitop(BitOP.NOT, "d", "a"));
        assertArrayEquals(new byte[] {0x0F, (byte) 0xF0, (byte) 0xAA}, jedis.get(bytes("d")));
        jedis.expire("d", 100);
        assertEquals(1L, jedis.bitop(BitOP.AND, "d", "b", "b"));
        assertEquals(-1L, jedis.ttl("d"), "the destination is replaced, TTL and all");
        // Only missing (empty) sources: the destination is deleted.
        assertEquals(0L, jedis.bitop(BitOP.OR, "d", "missing"));
        assertFalse(jedis.exists("d"));
        assertEquals("ERR BITOP NOT must be called with a single source key.", error(jedis, "BITOP", "NOT", "d", "a", "b"));
        assertEquals("ERR syntax error", error(jedis, "BITOP", "NAND", "d", "a"));
        jedis.lpush("list", "x");
        assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value", error(jedis, "BITOP", "AND", "d", "a", "list"));
        assertEquals("ERR wrong number of arguments for 'bitop' command", error(jedis, "BITOP", "AND", "d"));
    }

    /**
     * BITOP over a destination that holds an earlier result as long writes into that result's
     * buffer: 3,000 random operations on sources of 0-300 bytes (SETRANGE and SETBIT edit some in
     * place, so their buffers run past their strings), the destination often one of the sources,
     * against a model, every value read back after each.
     */
    @Test
    void bitopResultsWrittenOverMatchAModel(Jedis jedis) {
        java.util.Random rnd = new java.util.Random(8);
        java.util.Map<String, byte[]> model = new java.util.HashMap<>();
        String[] keys = {"a", "b", "c", "d", "e"};
        BitOP[] ops = {BitOP.AND, BitOP.OR, BitOP.XOR, BitOP.NOT};
        for (int step = 0; step < 3000; step++) {
            String key = keys[rnd.nextInt(keys.length)];
            int what = rnd.nextInt(10);
            if (what == 0) {
                byte[] v = new byte[rnd.nextInt(300)];
                rnd.nextBytes(v);
                jedis.set(bytes(key), v);
                model.put(key, v);
            } else if (what == 1) {
                byte[] old = model.getOrDefault(key, new byte[0]);
                int at = rnd.nextInt(300);
                byte[] patch = new byte[1 + rnd.nextInt(40)];
                rnd.nextBytes(patch);
                jedis.setrange(bytes(key), at, patch);
                byte[] v = Arrays.copyOf(old, Math.max(old.length, at + patch.length));
                System.arraycopy(patch, 0, v, at, patch.length);
                model.put(key, v);
            } else if (what == 2) {
                long bit = rnd.nextInt(2400);
                jedis.setbit(bytes(key), bit, true);
                byte[] v = model.getOrDefault(key, new byte[0]);
                v = Arrays.copyOf(v, (int) Math.max(v.length, bit / 8 + 1));
                v[(int) (bit / 8)] |= (byte) (0x80 >>> (bit % 8));
                model.put(key, v);
            } else {
                BitOP op = ops[rnd.nextInt(ops.length)];
                String[] sources = new String[op == BitOP.NOT ? 1 : 1 + rnd.nextInt(3)];
                for (int i = 0; i < sources.length; i++) sources[i] = keys[rnd.nextInt(keys.length)];
                byte[] expected = bitop(op, Arrays.stream(sources).map(k -> model.getOrDefault(k, new byte[0])).toArray(byte[][]::new));
                assertEquals(expected.length, jedis.bitop(op, key, sources), "step " + step);
                if (expected.length == 0) model.remove(key); else model.put(key, expected);
            }
            // GETRANGE reads a value where it lies; GET, now and then, takes the array for its reply.
            for (String k : keys) {
                byte[] v = model.get(k);
                if (v == null) assertFalse(jedis.exists(k), "step " + step + ": " + k);
                else assertArrayEquals(v, jedis.getrange(bytes(k), 0, -1), "step " + step + ": " + k);
            }
            if (step % 10 == 0) {
                byte[] v = model.get(key);
                assertArrayEquals(v, v == null ? null : jedis.get(bytes(key)), "step " + step + ": GET " + key);
            }
        }
    }

    private static byte[] bitop(BitOP op, byte[][] sources) {
        int length = Arrays.stream(sources).mapToInt(s -> s.length).max().orElse(0);
        byte[] r = new byte[length];
        for (int i = 0; i < length; i++) {
            int v = i < sources[0].length ? sources[0][i] : 0;
            if (op == BitOP.NOT) v = ~v;
            for (int j = 1; j < sources.length; j++) {
                int s = i < sources[j].length ? sources[j][i] : 0;
                v = op == BitOP.AND ? v & s : op == BitOP.OR ? v | s : v ^ s;
            }
            r[i] = (byte) v;
        }
        return r;
    }

    /** A result written over the last one's buffer is a new value all the same: TTL gone, WATCH touched, one change. */
    @Test
    void bitopOverItsLastResultReplacesTheValue(Jedis jedis, CinnabarServer server) {
        byte[] a = new byte[1000], b = new byte[1000];
        Arrays.fill(a, (byte) 0x0F);
        Arrays.fill(b, (byte) 0x3C);
        jedis.set(bytes("a"), a);
        jedis.set(bytes("b"), b);
        assertEquals(1000L, jedis.bitop(BitOP.AND, "d", "a", "b"));
        assertEquals(1000L, jedis.bitop(BitOP.OR, "d", "a", "b"));
        jedis.expire("d", 100);
        long changes = changes(jedis);
        try (Jedis other = new Jedis("127.0.0.1", server.port())) {
            jedis.watch("d");
            assertEquals(1000L, other.bitop(BitOP.XOR, "d", "a", "b"));
            redis.clients.jedis.Transaction tx = jedis.multi();
            tx.get("d");
            assertNull(tx.exec(), "WATCH saw the overwrite");
        }
        assertEquals(changes + 1, changes(jedis));
        assertEquals(-1L, jedis.ttl("d"));
        assertEquals(0x33, jedis.get(bytes("d"))[500]);
        assertEquals("raw", jedis.objectEncoding("d"));
        assertEquals(jedis.memoryUsage("a"), jedis.memoryUsage("d"));
    }

    /** bitopCommand stores its result without trying the embstr or int encodings. */
    @Test
    void bitopResultIsRawEncoded(Jedis jedis) {
        jedis.set("one", "1");
        assertEquals(1L, jedis.bitop(BitOP.OR, "d", "one"));
        assertEquals("1", jedis.get("d"));
        assertEquals("raw", jedis.objectEncoding("d"));
    }

    @Test
    void bitfield(Jedis jedis) {
        assertEquals(Arrays.asList(0L, 4L, -128L, null, -9222246136947933184L), cmd(jedis, "BITFIELD", "bf",
                "SET", "i8", "0", "-100", "INCRBY", "u4", "#3", "20", "OVERFLOW", "SAT", "INCRBY", "i8", "0", "-100",
                "OVERFLOW", "FAIL", "INCRBY", "u2", "100", "5", "GET", "i64", "0"));
        // The FAIL that wrote nothing still grew the string to reach bit 101.
        assertArrayEquals(new byte[] {(byte) 0x80, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, jedis.get(bytes("bf")));
        assertEquals(List.of(-1L, 0L, 255L, -100L, -128L, -100L, 56L), cmd(jedis, "BITFIELD", "k",
                "INCRBY", "i1", "0", "1", "OVERFLOW", "SAT", "SET", "u8", "8", "-1", "GET", "u8", "8",
                "INCRBY", "i8", "16", "-100", "INCRBY", "i8", "16", "-100", "OVERFLOW", "WRAP",
                "INCRBY", "i8", "24", "-100", "INCRBY", "i8", "24", "-100"));
        assertEquals(List.of(), cmd(jedis, "BITFIELD", "k"));
        assertEquals(List.of(0L), cmd(jedis, "BITFIELD", "missing", "GET", "u8", "0"));
        assertFalse(jedis.exists("missing"), "GET alone creates nothing");
        assertEquals(List.of(255L), cmd(jedis, "BITFIELD_RO", "k", "GET", "u8", "8"));
        assertEquals("ERR BITFIELD_RO only supports the GET subcommand", error(jedis, "BITFIELD_RO", "k", "SET", "u8", "0", "1"));
        assertEquals(BAD_TYPE, error(jedis, "BITFIELD", "k", "GET", "u64", "0"));
        assertEquals(BAD_TYPE, error(jedis, "BITFIELD", "k", "GET", "i65", "0"));
        assertEquals(BAD_TYPE, error(jedis, "BITFIELD", "k", "GET", "x8", "0"));
        assertEquals(BAD_OFFSET, error(jedis, "BITFIELD", "k", "GET", "u8", "-1"));
        assertEquals(BAD_OFFSET, error(jedis, "BITFIELD", "k", "GET", "u8", "#x"));
        assertEquals(BAD_OFFSET, error(jedis, "BITFIELD", "k", "GET", "u8", "4294967296"));
        assertEquals("ERR Invalid OVERFLOW type specified", error(jedis, "BITFIELD", "k", "OVERFLOW", "foo"));
        assertEquals("ERR syntax error", error(jedis, "BITFIELD", "k", "GET", "u8"));
        assertEquals("ERR value is not an integer or out of range", error(jedis, "BITFIELD", "k", "SET", "u8", "0", "x"));
        jedis.lpush("list", "x");
        assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value",
                error(jedis, "BITFIELD", "list", "GET", "u8", "0"));
    }

    @Test
    void onlyChangesCountAsChanges(Jedis jedis) {
        cmd(jedis, "BITFIELD", "k", "SET", "u8", "0", "7");
        long before = changes(jedis);
        cmd(jedis, "BITFIELD", "k", "SET", "u8", "0", "7");
        cmd(jedis, "BITFIELD", "k", "GET", "u8", "0");
        assertEquals(before, changes(jedis));
        cmd(jedis, "BITFIELD", "k", "SET", "u8", "0", "8");
        cmd(jedis, "SETBIT", "k", "0", "1");
        cmd(jedis, "SETBIT", "k", "0", "1");
        assertEquals(before + 2, changes(jedis));
    }

    private static long changes(Jedis jedis) {
        String info = jedis.info("persistence");
        String line = info.lines().filter(l -> l.startsWith("rdb_changes_since_last_save:")).findFirst().orElseThrow();
        return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
    }

    @Test
    void resp3(CinnabarServer server) {
        try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", server.port()),
                DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP3).build())) {
            assertEquals(Arrays.asList(0L, null), cmd(jedis, "BITFIELD", "k", "SET", "u8", "0", "200",
                    "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "100"));
            assertEquals(1L, jedis.bitop(BitOP.NOT, "n", "k"));
            assertEquals(List.of(55L), cmd(jedis, "BITFIELD_RO", "n", "GET", "u8", "0"));
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"RESP2", "RESP3"})
    void lettuce(ProtocolVersion protocol, CinnabarServer server) {
        RedisClient client = Lettuce.client(server.port(), protocol);
        try (StatefulRedisConnection<String, String> conn = client.connect()) {
            RedisCommands<String, String> r = conn.sync();
            r.flushall();
            assertEquals(List.of(0L, 5L), r.bitfield("k", BitFieldArgs.Builder.set(BitFieldArgs.signed(8), 0, 5)
                    .get(BitFieldArgs.signed(8), 0)));
            assertEquals(List.of(127L), r.bitfield("k", BitFieldArgs.Builder.overflow(BitFieldArgs.OverflowType.SAT)
                    .incrBy(BitFieldArgs.signed(8), 0, 1000)));
            // Lettuce has no BITFIELD_RO method: sent as a custom command.
            assertEquals(List.of(127L), r.dispatch(() -> "BITFIELD_RO".getBytes(StandardCharsets.US_ASCII),
                    new io.lettuce.core.output.ArrayOutput<>(io.lettuce.core.codec.StringCodec.UTF8),
                    new io.lettuce.core.protocol.CommandArgs<>(io.lettuce.core.codec.StringCodec.UTF8).addKey("k").add("GET").add("i8").add(0)));
            r.set("o", "x");
            assertEquals(1L, r.bitopOr("d", "k", "o"));
            assertEquals(1L, r.bitopNot("e", "d"));
            assertEquals(1L, r.bitopAnd("f", "d", "e"));
            assertEquals("\u0000", r.get("f"));
            r.lpush("list", "x");
            RedisCommandExecutionException e = assertThrows(RedisCommandExecutionException.class,
                    () -> r.bitfield("list", BitFieldArgs.Builder.get(BitFieldArgs.unsigned(8), 0)));
            assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value", e.getMessage());
        } finally {
            client.shutdown();
        }
    }
}
