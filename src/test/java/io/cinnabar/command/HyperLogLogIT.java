package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

import static io.cinnabar.command.Raw.cmd;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** PFADD, PFCOUNT, PFMERGE, PFDEBUG; the expected values and bytes were read from a real Redis 7.0.15. */
@CinnabarTest
class HyperLogLogIT {
    /** GET of "h" in Redis after PFADD h a b c foo bar 1 2 3 (cached cardinality invalid). */
    private static final byte[] REDIS_SPARSE = HexFormat.of().parseHex(
            "48594c4c0100000000000000000000805cb39040b180438b8046218043c48046c8844a628c419780425a");
    private static final String NOT_HLL = "WRONGTYPE Key is not a valid HyperLogLog string value.";
    private static final String CORRUPT = "INVALIDOBJ Corrupted HLL object detected";

    private static String error(Jedis jedis, String name, String... args) {
        return Raw.error(() -> cmd(jedis, name, args));
    }

    private static String[] numbered(String prefix, int n) {
        String[] out = new String[n];
        for (int i = 0; i < n; i++) out[i] = prefix + i;
        return out;
    }

    @BeforeEach
    void clean(Jedis jedis) {
        jedis.flushAll();
        jedis.configSet("hll-sparse-max-bytes", "3000");
    }

    @Test
    void valuesAreRedisBytesBothWays(Jedis jedis) {
        assertEquals(1L, jedis.pfadd("h", "a", "b", "c", "foo", "bar", "1", "2", "3"));
        assertArrayEquals(REDIS_SPARSE, jedis.get("h".getBytes(StandardCharsets.UTF_8)));
        assertEquals("string", jedis.type("h"));
        assertEquals("raw", jedis.objectEncoding("h"));
        // A value written by Redis counts and grows here as it does there.
        jedis.set("r".getBytes(StandardCharsets.UTF_8), REDIS_SPARSE);
        assertEquals(8L, jedis.pfcount("r"));
        assertEquals(0L, jedis.pfadd("r", "a", "3"));
        assertEquals("Z:7348 v:5,1 Z:178 v:1,1 Z:908 v:1,1 Z:1570 v:1,1 Z:965 v:1,1 Z:1737 v:2,1 Z:2659 v:4,1 Z:408 v:1,1 Z:603",
                cmd(jedis, "PFDEBUG", "DECODE", "r"));
        jedis.pfadd("d", numbered("", 5000));
        assertEquals(4985L, jedis.pfcount("d"));
        assertEquals("dense", cmd(jedis, "PFDEBUG", "ENCODING", "d"));
        jedis.pfadd("e", numbered("e", 300));
        assertEquals(302L, jedis.pfcount("e"));
        assertEquals(5295L, jedis.pfcount("d", "nokey", "e"));
    }

    @Test
    void cachedCardinalityInTheHeader(Jedis jedis) {
        jedis.pfadd("h", "a", "b", "c");
        assertArrayEquals(new byte[] {(byte) 0x80}, jedis.getrange("h".getBytes(StandardCharsets.UTF_8), 15, 15));
        assertEquals(3L, jedis.pfcount("h"));
        assertArrayEquals(new byte[] {0}, jedis.getrange("h".getBytes(StandardCharsets.UTF_8), 15, 15));
        assertArrayEquals(new byte[] {3}, jedis.getrange("h".getBytes(StandardCharsets.UTF_8), 8, 8));
        assertEquals(0L, jedis.pfadd("h", "a", "b", "c"));
        assertArrayEquals(new byte[] {0}, jedis.getrange("h".getBytes(StandardCharsets.UTF_8), 15, 15));
        assertEquals(1L, jedis.pfadd("h", "1", "2", "3"));
        assertArrayEquals(new byte[] {(byte) 0x80}, jedis.getrange("h".getBytes(StandardCharsets.UTF_8), 15, 15));
    }

    @Test
    void sparseToDensePromotionFollowsTheConfig(Jedis jedis) {
        assertEquals(List.of("hll-sparse-max-bytes", "3000"), jedis.configGet("hll-sparse-max-bytes").entrySet().stream()
                .flatMap(e -> java.util.stream.Stream.of(e.getKey(), e.getValue())).toList());
        jedis.pfadd("s", numbered("e", 300));
        assertEquals("sparse", cmd(jedis, "PFDEBUG", "ENCODING", "s"));
        assertEquals(713L, jedis.strlen("s"));
        jedis.configSet("hll-sparse-max-bytes", "100");
        jedis.pfadd("t", numbered("e", 300));
        assertEquals("dense", cmd(jedis, "PFDEBUG", "ENCODING", "t"));
        assertEquals(12304L, jedis.strlen("t"));
        assertEquals(jedis.pfcount("s"), jedis.pfcount("t"));
        assertEquals(1L, cmd(jedis, "PFDEBUG", "TODENSE", "s"));
        assertEquals(0L, cmd(jedis, "PFDEBUG", "TODENSE", "s"));
        assertEquals(16384, ((List<?>) cmd(jedis, "PFDEBUG", "GETREG", "s")).size());
    }

    /** Redis's PFDEBUG converts a sparse value to dense without signalling a change: a WATCH of it holds. */
    @Test
    void pfdebugConversionLeavesWatchAlone(Jedis jedis) {
        jedis.pfadd("s", "a", "b");
        jedis.pfadd("t", "a", "b");
        jedis.watch("s", "t");
        assertEquals(16384, ((List<?>) cmd(jedis, "PFDEBUG", "GETREG", "s")).size());
        assertEquals(1L, cmd(jedis, "PFDEBUG", "TODENSE", "t"));
        assertEquals("dense", cmd(jedis, "PFDEBUG", "ENCODING", "s"));
        var multi = jedis.multi();
        multi.pfcount("s", "t");
        assertEquals(List.of(2L), multi.exec());
    }

    @Test
    void pfmergeAndUnionCount(Jedis jedis) {
        jedis.pfadd("a{t}", "a", "b", "c");
        jedis.pfadd("b{t}", "b", "c", "d");
        jedis.pfadd("c{t}", "c", "d", "e");
        assertEquals("OK", jedis.pfmerge("m{t}", "a{t}", "b{t}", "c{t}"));
        assertEquals(5L, jedis.pfcount("m{t}"));
        assertEquals(5L, jedis.pfcount("a{t}", "b{t}", "c{t}", "nokey{t}"));
        assertEquals("OK", jedis.pfmerge("empty{t}", "nokey{t}"));
        assertEquals(0L, jedis.pfcount("empty{t}"));
        assertEquals("sparse", cmd(jedis, "PFDEBUG", "ENCODING", "empty{t}"));
    }

    @Test
    void errors(Jedis jedis) {
        jedis.set("str", "bar");
        jedis.lpush("list", "x");
        assertEquals(NOT_HLL, error(jedis, "PFADD", "str", "1"));
        assertEquals(NOT_HLL, error(jedis, "PFCOUNT", "str"));
        assertEquals(NOT_HLL, error(jedis, "PFMERGE", "dst", "str"));
        assertEquals(NOT_HLL, error(jedis, "PFMERGE", "str", "nokey"));
        assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value", error(jedis, "PFADD", "list", "1"));
        assertEquals("ERR The specified key does not exist", error(jedis, "PFDEBUG", "ENCODING", "nokey"));
        jedis.pfadd("h", "a");
        assertEquals("ERR Unknown PFDEBUG subcommand 'foo'", error(jedis, "PFDEBUG", "foo", "h"));
        cmd(jedis, "PFDEBUG", "TODENSE", "h");
        assertEquals("ERR HLL encoding is not sparse", error(jedis, "PFDEBUG", "DECODE", "h"));
        assertEquals("ERR wrong number of arguments for 'pfdebug' command", error(jedis, "PFDEBUG", "GETREG"));
        // Corruption: a tail after the registers, a broken magic, a dense string of the wrong length.
        jedis.del("h");
        jedis.pfadd("h", "a", "b", "c");
        jedis.append("h", "hello");
        assertEquals(CORRUPT, error(jedis, "PFCOUNT", "h"));
        assertEquals(CORRUPT, error(jedis, "PFCOUNT", "h", "h"));
        assertEquals(CORRUPT, error(jedis, "PFMERGE", "m", "h"));
        jedis.setrange("h", 0, "0123");
        assertEquals(NOT_HLL, error(jedis, "PFCOUNT", "h"));
        jedis.del("h");
        jedis.pfadd("h", "a", "b", "c");
        jedis.setrange("h", 4, "\u0000");
        assertEquals(NOT_HLL, error(jedis, "PFCOUNT", "h"));
    }

    @Test
    void splitOfAnXzeroCutShortByTheEnd(Jedis jedis) {
        // The last opcode an XZERO whose second byte is missing (0x7f: the terminator is read as
        // its low byte). Splitting it for d writes its last byte over the terminator, and g's split
        // reads that byte back; bytes read from redis-server 7.0.15.
        byte[] key = "h".getBytes(StandardCharsets.UTF_8);
        jedis.set(key, HexFormat.of().parseHex("48594c4c01" + "0000000000000000000000" + "7f"));
        assertEquals(1L, jedis.pfadd("h", "d", "g"));
        assertArrayEquals(HexFormat.of().parseHex("48594c4c01" + "00000000000000000000" + "80" + "5c7b80443c845e"), jedis.get(key));
    }

    @Test
    void selfTest(CinnabarServer server) {
        // Seconds of CPU on a loaded machine: more than Jedis's default 2 s read timeout allows.
        try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", server.port()),
                DefaultJedisClientConfig.builder().socketTimeoutMillis(60_000).build())) {
            assertEquals("OK", cmd(jedis, "PFSELFTEST"));
        }
    }

    @Test
    void resp3(CinnabarServer server) {
        try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", server.port()),
                DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP3).build())) {
            assertEquals(1L, jedis.pfadd("h", "a", "b"));
            assertEquals(2L, jedis.pfcount("h"));
            assertEquals("sparse", cmd(jedis, "PFDEBUG", "ENCODING", "h"));
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"RESP2", "RESP3"})
    void lettuce(ProtocolVersion protocol, CinnabarServer server) {
        RedisClient client = Lettuce.client(server.port(), protocol);
        try (StatefulRedisConnection<String, String> conn = client.connect();
             StatefulRedisConnection<byte[], byte[]> bytes = client.connect(ByteArrayCodec.INSTANCE)) {
            RedisCommands<String, String> r = conn.sync();
            r.flushall();
            assertEquals(1L, r.pfadd("h", "a", "b", "c", "foo", "bar", "1", "2", "3"));
            assertArrayEquals(REDIS_SPARSE, bytes.sync().get("h".getBytes(StandardCharsets.UTF_8)));
            assertEquals(8L, r.pfcount("h"));
            r.pfadd("g", "x", "y");
            assertEquals("OK", r.pfmerge("m", "h", "g"));
            assertEquals(10L, r.pfcount("m"));
            assertEquals(10L, r.pfcount("h", "g"));
            r.set("s", "x");
            RedisCommandExecutionException e = assertThrows(RedisCommandExecutionException.class, () -> r.pfcount("s"));
            assertEquals(NOT_HLL, e.getMessage());
        } finally {
            client.shutdown();
        }
    }
}
