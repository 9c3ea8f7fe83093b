package io.cinnabar.command;

import io.cinnabar.CinnabarServer;
import io.cinnabar.junit.CinnabarTest;
import io.lettuce.core.GeoArgs;
import io.lettuce.core.GeoCoordinates;
import io.lettuce.core.GeoSearch;
import io.lettuce.core.GeoWithin;
import io.lettuce.core.RedisClient;
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

import java.util.List;

import static io.cinnabar.command.Raw.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The GEO commands; every expected value was read from a real Redis 7.0.15 given the same data. */
@CinnabarTest
class GeoCommandsIT {
    private static final List<String> PALERMO = List.of("13.36138933897018433", "38.11555639549629859");
    private static final List<String> CATANIA = List.of("15.08726745843887329", "37.50266842333162032");

    private static String error(Jedis jedis, String name, String... args) {
        return Raw.error(() -> cmd(jedis, name, args));
    }

    @BeforeEach
    void sicily(Jedis jedis) {
        jedis.flushAll();
        assertEquals(4L, cmd(jedis, "GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669",
                "Catania", "12.758489", "38.788135", "edge1", "17.241510", "38.788135", "edge2"));
    }

    @Test
    void countPicksMembersAtEqualDistancesAsRedisPartialSortDoes(Jedis jedis) {
        String[] args = new String[1 + 3 * 53];
        args[0] = "ties";
        for (int i = 0; i < 50; i++) {
            args[1 + 3 * i] = "13.361389";
            args[2 + 3 * i] = "38.115556";
            args[3 + 3 * i] = "m" + i;
        }
        System.arraycopy(new String[] {"13.5", "38.2", "near1", "13.6", "38.3", "near2", "14", "38", "far"}, 0,
                args, 1 + 3 * 50, 9);
        assertEquals(53L, cmd(jedis, "GEOADD", args));
        assertEquals(List.of("m45"), cmd(jedis, "GEORADIUS", "ties", "13.361389", "38.115556", "100", "km", "COUNT", "1"));
        assertEquals(List.of("m45", "m1", "m10", "m11", "m12", "m13", "m14", "m15", "m16", "m17"),
                cmd(jedis, "GEORADIUS", "ties", "13.361389", "38.115556", "100", "km", "COUNT", "10", "ASC"));
        assertEquals(List.of("far", "near2", "near1", "m11", "m12"),
                cmd(jedis, "GEOSEARCH", "ties", "FROMLONLAT", "13.361389", "38.115556", "BYRADIUS", "100", "km",
                        "COUNT", "5", "DESC"));
        // All of them returned: a stable sort, the members at one distance in the order found.
        List<?> all = (List<?>) cmd(jedis, "GEORADIUS", "ties", "13.361389", "38.115556", "100", "km", "ASC");
        assertEquals(List.of("m0", "m1", "m10"), all.subList(0, 3));
    }

    @Test
    void geoaddStoresRedisScores(Jedis jedis) {
        assertEquals(List.of("Palermo", "3479099956230698", "edge1", "3479273021651468", "Catania", "3479447370796909",
                "edge2", "3481342659049484"), cmd(jedis, "ZRANGE", "Sicily", "0", "-1", "WITHSCORES"));
        assertEquals(0L, cmd(jedis, "GEOADD", "Sicily", "13.361389", "38.115556", "Palermo"));
        assertEquals(1L, cmd(jedis, "GEOADD", "Sicily", "CH", "XX", "13.4", "38.1", "Palermo", "1", "1", "absent"));
        assertNull(cmd(jedis, "ZSCORE", "Sicily", "absent"));
        assertEquals(0L, cmd(jedis, "GEOADD", "Sicily", "NX", "13.361389", "38.115556", "Palermo"));
        assertEquals("ERR syntax error", error(jedis, "GEOADD", "Sicily", "XX", "NX", "1", "2", "m"));
        assertEquals("ERR syntax error", error(jedis, "GEOADD", "Sicily", "CH", "foo", "1", "2", "m"));
        assertEquals("ERR value is not a valid float", error(jedis, "GEOADD", "Sicily", "GT", "1", "2"));
        assertEquals("ERR invalid longitude,latitude pair 200.000000,100.000000",
                error(jedis, "GEOADD", "Sicily", "200", "100", "m"));
        assertEquals("ERR invalid longitude,latitude pair -0.000000,100.000000",
                error(jedis, "GEOADD", "Sicily", "-0.0", "100", "m"));
        assertEquals("ERR invalid longitude,latitude pair inf,0.000000", error(jedis, "GEOADD", "Sicily", "inf", "0", "m"));
        jedis.set("str", "x");
        assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value",
                error(jedis, "GEOADD", "str", "1", "2", "m"));
    }

    @Test
    void geoposGeohashGeodist(Jedis jedis) {
        assertEquals(java.util.Arrays.asList(PALERMO, null, CATANIA), cmd(jedis, "GEOPOS", "Sicily", "Palermo", "x", "Catania"));
        assertEquals(java.util.Arrays.asList("sqc8b49rny0", null, "sqdtr74hyu0"),
                cmd(jedis, "GEOHASH", "Sicily", "Palermo", "x", "Catania"));
        assertEquals("166274.1516", cmd(jedis, "GEODIST", "Sicily", "Palermo", "Catania"));
        assertEquals("545518.8700", cmd(jedis, "GEODIST", "Sicily", "Palermo", "Catania", "ft"));
        assertEquals("103.3182", cmd(jedis, "GEODIST", "Sicily", "Palermo", "Catania", "MI"));
        assertEquals("0.0000", cmd(jedis, "GEODIST", "Sicily", "Palermo", "Palermo", "km"));
        assertNull(cmd(jedis, "GEODIST", "Sicily", "Palermo", "x"));
        assertNull(cmd(jedis, "GEODIST", "nokey", "a", "b"));
        assertEquals("ERR unsupported unit provided. please use M, KM, FT, MI",
                error(jedis, "GEODIST", "Sicily", "a", "b", "yd"));
        assertEquals("ERR syntax error", error(jedis, "GEODIST", "Sicily", "a", "b", "m", "x"));
    }

    /** Scores GEOADD never writes decode as C's (uint64_t) cast reads them on x86-64: out of range is bit 63 alone. */
    @Test
    void scoresBeyondTheGeohashRange(Jedis jedis) {
        cmd(jedis, "ZADD", "odd", "1e20", "big", "inf", "top", "-inf", "bottom", "-1", "neg");
        List<String> cellZero = List.of("-179.99999731779098511", "-85.05112751263942528");
        assertEquals(List.of(cellZero, cellZero, List.of("180", "-85.05112751263942528"), List.of("180", "85.0511287799999991")),
                cmd(jedis, "GEOPOS", "odd", "big", "top", "bottom", "neg"));
        assertEquals(List.of("00bh0hbj200", "00bh0hbj200", "bp05b5048p0"), cmd(jedis, "GEOHASH", "odd", "big", "top", "neg"));
    }

    @Test
    void georadiusOptions(Jedis jedis) {
        assertEquals(List.of(List.of("Catania", "56.4413", 3479447370796909L, CATANIA),
                        List.of("Palermo", "190.4424", 3479099956230698L, PALERMO)),
                cmd(jedis, "GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "WITHHASH", "WITHCOORD", "ASC"));
        // Unsorted results come cell by cell, in score order within a cell.
        assertEquals(List.of("Palermo", "edge1", "Catania", "edge2"), cmd(jedis, "GEORADIUS", "Sicily", "15", "37", "300", "km"));
        assertEquals(List.of("Palermo", "edge1"), cmd(jedis, "GEORADIUS", "Sicily", "15", "37", "300", "km", "COUNT", "2", "ANY"));
        assertEquals(List.of("Catania", "Palermo"), cmd(jedis, "GEORADIUS_RO", "Sicily", "15", "37", "300", "km", "COUNT", "2"));
        assertEquals(List.of(List.of("Palermo", "0.0000"), List.of("edge1", "56.7939")),
                cmd(jedis, "GEORADIUSBYMEMBER", "Sicily", "Palermo", "100", "mi", "WITHDIST"));
        assertEquals(List.of(), cmd(jedis, "GEORADIUS", "nokey", "15", "37", "300", "km"));
    }

    @Test
    void georadiusErrors(Jedis jedis) {
        assertEquals("ERR radius cannot be negative", error(jedis, "GEORADIUS", "Sicily", "15", "37", "-1", "km"));
        assertEquals("ERR need numeric radius", error(jedis, "GEORADIUS", "Sicily", "15", "37", "x", "km"));
        assertEquals("ERR unsupported unit provided. please use M, KM, FT, MI",
                error(jedis, "GEORADIUS", "Sicily", "15", "37", "1", "kmx"));
        assertEquals("ERR COUNT must be > 0", error(jedis, "GEORADIUS", "Sicily", "15", "37", "1", "km", "COUNT", "0"));
        assertEquals("ERR value is not an integer or out of range",
                error(jedis, "GEORADIUS", "Sicily", "15", "37", "1", "km", "COUNT", "x"));
        assertEquals("ERR syntax error", error(jedis, "GEORADIUS", "Sicily", "15", "37", "1", "km", "COUNT"));
        assertEquals("ERR the ANY argument requires COUNT argument",
                error(jedis, "GEORADIUS", "Sicily", "15", "37", "1", "km", "ANY"));
        assertEquals("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
                error(jedis, "GEORADIUS", "Sicily", "15", "37", "1", "km", "STORE", "x", "WITHDIST"));
        assertEquals("ERR syntax error", error(jedis, "GEORADIUS_RO", "Sicily", "15", "37", "1", "km", "STORE", "x"));
        assertEquals("ERR could not decode requested zset member",
                error(jedis, "GEORADIUSBYMEMBER", "Sicily", "nope", "1", "km"));
        // Without the key the member is not looked up and the radius is not parsed.
        assertEquals(List.of(), cmd(jedis, "GEORADIUSBYMEMBER", "nokey", "nope", "-1", "km"));
    }

    @Test
    void geosearch(Jedis jedis) {
        assertEquals(List.of(List.of("Catania", "166.2742"), List.of("edge1", "91.4007"), List.of("Palermo", "0.0000")),
                cmd(jedis, "GEOSEARCH", "Sicily", "FROMMEMBER", "Palermo", "BYBOX", "400", "400", "km", "DESC", "WITHDIST"));
        assertEquals(List.of("Catania", "Palermo", "edge2", "edge1"),
                cmd(jedis, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "400", "400", "km", "ASC"));
        assertEquals("ERR syntax error",
                error(jedis, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "FROMMEMBER", "Palermo", "BYRADIUS", "1", "km"));
        assertEquals("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GeoSearch",
                error(jedis, "GeoSearch", "Sicily", "BYBOX", "1", "1", "km", "ASC"));
        assertEquals("ERR exactly one of BYRADIUS and BYBOX can be specified for GEOSEARCH",
                error(jedis, "GEOSEARCH", "Sicily", "FROMLONLAT", "1", "1", "ASC", "WITHDIST"));
        assertEquals("ERR height or width cannot be negative",
                error(jedis, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "-1", "1", "km"));
        assertEquals("ERR need numeric height",
                error(jedis, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYBOX", "1", "x", "km"));
        assertEquals("ERR syntax error",
                error(jedis, "GEOSEARCH", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km", "STOREDIST"));
    }

    /** Pairs whose haversine, with Java's sin/cos/asin, ended in other digits than glibc's gave Redis. */
    @Test
    void storedDistancesHaveRedisDigits(Jedis jedis) {
        String[][] cases = {
                {"-11.135143", "-43.082618", "15.753909", "12.570002", "6767.8334497186825"},
                {"-147.175249", "-27.074109", "39.897914", "71.074822", "15106.56804975769"},
                {"-159.945397", "70.731789", "-168.220361", "-1.094086", "8011.9524337760022"},
                {"121.834541", "-62.802789", "83.399192", "76.465756", "15721.615840154091"},
                {"179.747981", "59.882954", "171.362725", "-7.898202", "7575.5795232462269"}};
        for (String[] c : cases) {
            cmd(jedis, "DEL", "g");
            cmd(jedis, "GEOADD", "g", c[0], c[1], "p");
            assertEquals(1L, cmd(jedis, "GEOSEARCHSTORE", "d", "g", "FROMLONLAT", c[2], c[3], "BYRADIUS", "20000", "km",
                    "STOREDIST"));
            assertEquals(c[4], cmd(jedis, "ZSCORE", "d", "p"));
        }
    }

    @Test
    void storeAndStoredist(Jedis jedis) {
        assertEquals(2L, cmd(jedis, "GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "dst"));
        assertEquals(List.of("Palermo", "3479099956230698", "Catania", "3479447370796909"),
                cmd(jedis, "ZRANGE", "dst", "0", "-1", "WITHSCORES"));
        assertEquals(2L, cmd(jedis, "GEOSEARCHSTORE", "dst", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "200", "km",
                "STOREDIST"));
        assertEquals(List.of("Catania", "56.441257870158204", "Palermo", "190.44242984775784"),
                cmd(jedis, "ZRANGE", "dst", "0", "-1", "WITHSCORES"));
        assertEquals("listpack", cmd(jedis, "OBJECT", "ENCODING", "dst"));
        assertEquals(1L, cmd(jedis, "GEORADIUSBYMEMBER", "Sicily", "Palermo", "200", "km", "STOREDIST", "dst", "COUNT", "1"));
        assertEquals(List.of("Palermo", "0"), cmd(jedis, "ZRANGE", "dst", "0", "-1", "WITHSCORES"));
        // Nothing found, or no source: the destination goes.
        assertEquals(0L, cmd(jedis, "GEORADIUS", "Sicily", "100", "2", "5", "km", "STORE", "dst"));
        assertEquals(0L, cmd(jedis, "EXISTS", "dst"));
        jedis.set("dst", "x");
        assertEquals(0L, cmd(jedis, "GEOSEARCHSTORE", "dst", "nokey", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km"));
        assertEquals(0L, cmd(jedis, "EXISTS", "dst"));
        assertEquals("ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
                error(jedis, "GEOSEARCHSTORE", "dst", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "1", "km", "WITHDIST"));
    }

    @Test
    void keysOfStoreVariants(Jedis jedis) {
        assertEquals(List.of("k", "d", "e"),
                cmd(jedis, "COMMAND", "GETKEYS", "GEORADIUS", "k", "1", "2", "3", "km", "STOREDIST", "e", "STORE", "d"));
        // STORE before the unit is not where the key spec looks.
        assertEquals(List.of("k"), cmd(jedis, "COMMAND", "GETKEYS", "GEORADIUS", "k", "1", "2", "3", "STORE", "d"));
        assertEquals(List.of(List.of("d", List.of("OW", "update")), List.of("s", List.of("RO", "access"))),
                cmd(jedis, "COMMAND", "GETKEYSANDFLAGS", "GEOSEARCHSTORE", "d", "s", "FROMLONLAT", "1", "2", "BYRADIUS", "3", "km"));
        List<?> info = (List<?>) ((List<?>) cmd(jedis, "COMMAND", "INFO", "GEORADIUS")).get(0);
        assertEquals(List.of("write", "denyoom", "movablekeys"), info.get(2));
        assertEquals(List.of("@write", "@geo", "@slow"), info.get(6));
        assertEquals(3, ((List<?>) info.get(8)).size());
    }

    @Test
    void resp3Coordinates(CinnabarServer server) throws Exception {
        try (RespSocket s = new RespSocket(server.port())) {
            s.call("HELLO", "3");
            s.send("GEOPOS", "Sicily", "Palermo", "x");
            assertEquals(List.of("*2", "*2", ",13.36138933897018433", ",38.11555639549629859", "_"),
                    List.of(s.line(), s.line(), s.line(), s.line(), s.line()));
            // Distances stay bulk strings.
            s.send("GEODIST", "Sicily", "Palermo", "Catania");
            assertEquals(List.of("$11", "166274.1516"), List.of(s.line(), s.line()));
        }
    }

    @ParameterizedTest
    @EnumSource(names = {"RESP2", "RESP3"})
    void lettuce(ProtocolVersion protocol, CinnabarServer server) {
        RedisClient client = Lettuce.client(server.port(), protocol);
        try (StatefulRedisConnection<String, String> conn = client.connect()) {
            RedisCommands<String, String> r = conn.sync();
            assertEquals(166.2742, r.geodist("Sicily", "Palermo", "Catania", GeoArgs.Unit.km));
            GeoCoordinates palermo = r.geopos("Sicily", "Palermo").get(0);
            assertEquals(Double.parseDouble(PALERMO.get(0)), palermo.getX().doubleValue());
            assertEquals(Double.parseDouble(PALERMO.get(1)), palermo.getY().doubleValue());
            List<GeoWithin<String>> near = r.geosearch("Sicily", GeoSearch.fromCoordinates(15, 37),
                    GeoSearch.byRadius(200, GeoArgs.Unit.km), new GeoArgs().withDistance().asc());
            assertEquals(List.of("Catania", "Palermo"), near.stream().map(GeoWithin::getMember).toList());
            assertEquals(56.4413, near.get(0).getDistance());
            assertEquals(190.4424, near.get(1).getDistance());
            assertEquals(List.of("sqc8b49rny0"), r.geohash("Sicily", "Palermo").stream().map(v -> v.getValue()).toList());
        } finally {
            client.shutdown();
        }
    }

    @Test
    void resp3(CinnabarServer server) {
        try (Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", server.port()),
                DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP3).build())) {
            assertEquals(166.2742, jedis.geodist("Sicily", "Palermo", "Catania", redis.clients.jedis.args.GeoUnit.KM));
            assertEquals(2, jedis.geopos("Sicily", "Palermo", "Catania").size());
        }
    }
}
