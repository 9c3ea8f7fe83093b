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
