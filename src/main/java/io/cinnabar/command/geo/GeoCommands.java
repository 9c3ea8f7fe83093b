package io.cinnabar.command.geo;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.CommandFamily;
import io.cinnabar.command.CommandTable;
import io.cinnabar.command.KeyProcs;
import io.cinnabar.command.zsets.ZSetCommands;
import io.cinnabar.keyspace.ZSetValue;
import io.cinnabar.protocol.Reply;
import io.cinnabar.util.DoubleFormat;
import io.cinnabar.util.Numbers;

import java.nio.charset.StandardCharsets;

import static io.cinnabar.command.CommandFlag.DENYOOM;
import static io.cinnabar.command.CommandFlag.READONLY;
import static io.cinnabar.command.CommandFlag.WRITE;
import static io.cinnabar.command.CommandSpec.spec;
import static io.cinnabar.command.KeyFlag.ACCESS;
import static io.cinnabar.command.KeyFlag.OW;
import static io.cinnabar.command.KeyFlag.RO;
import static io.cinnabar.command.KeyFlag.RW;
import static io.cinnabar.command.KeyFlag.UPDATE;
import static io.cinnabar.command.KeySpec.after;
import static io.cinnabar.command.KeySpec.at;

/**
 * The GEO commands (geo.c): positions kept in a sorted set, each member scored with the 52-bit
 * geohash of its position ({@link GeoHash}), so that a key written by Redis reads the same here.
 * The searches (GEORADIUS*, GEOSEARCH*) live in {@link GeoSearch}.
 */
public final class GeoCommands implements CommandFamily {
    private static final String UNIT_ERROR = "ERR unsupported unit provided. please use M, KM, FT, MI";

    @Override
    public String group() {
        return "geo";
    }

    @Override
    public void register(CommandTable t) {
        t.add(spec("GEOADD", -5, WRITE, DENYOOM).keys(at(1, RW, UPDATE))
                .doc("3.2.0", "Add one or more geospatial items in the geospatial index represented using a sorted set",
                        "O(log(N)) for each item added, where N is the number of elements in the sorted set.")
                .history("6.2.0", "Added the `CH`, `NX` and `XX` options."),
                this::geoadd);
        t.add(spec("GEOPOS", -2, READONLY).keys(at(1, RO, ACCESS))
                .doc("3.2.0", "Returns longitude and latitude of members of a geospatial index",
                        "O(N) where N is the number of members requested."), this::geopos);
        t.add(spec("GEODIST", -4, READONLY).keys(at(1, RO, ACCESS))
                .doc("3.2.0", "Returns the distance between two members of a geospatial index", "O(log(N))"), this::geodist);
        t.add(spec("GEOHASH", -2, READONLY).keys(at(1, RO, ACCESS))
                .doc("3.2.0", "Returns members of a geospatial index as standard geohash strings",
                        "O(log(N)) for each member requested, where N is the number of elements in the sorted set."), this::geohash);
        t.add(spec("GEORADIUS", -6, WRITE, DENYOOM).keys(at(1, RO, ACCESS), after("STORE", 6, OW, UPDATE), after("STOREDIST", 6, OW, UPDATE))
                .keyFinder(KeyProcs::georadius)
                .doc("3.2.0", "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a point",
                        "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.")
                .deprecated("6.2.0", "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` argument")
                .history("6.2.0", "Added the `ANY` option for `COUNT`.", "7.0.0", "Added support for uppercase unit names."),
                c -> GeoSearch.run(c, GeoSearch.AROUND_LONLAT));
        t.add(spec("GEORADIUSBYMEMBER", -5, WRITE, DENYOOM).keys(at(1, RO, ACCESS), after("STORE", 5, OW, UPDATE), after("STOREDIST", 5, OW, UPDATE))
                .keyFinder(KeyProcs::georadius)
                .doc("3.2.0", "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a member",
                        "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.")
                .deprecated("6.2.0", "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` and `FROMMEMBER` arguments")
                .history("7.0.0", "Added support for uppercase unit names."),
                c -> GeoSearch.run(c, GeoSearch.AROUND_MEMBER));
        t.add(spec("GEORADIUS_RO", -6, READONLY).keys(at(1, RO, ACCESS))
                .doc("3.2.10", "A read-only variant for GEORADIUS",
                        "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.")
                .deprecated("6.2.0", "`GEOSEARCH` with the `BYRADIUS` argument")
                .history("6.2.0", "Added the `ANY` option for `COUNT`."),
                c -> GeoSearch.run(c, GeoSearch.AROUND_LONLAT | GeoSearch.NO_STORE));
        t.add(spec("GEORADIUSBYMEMBER_RO", -5, READONLY).keys(at(1, RO, ACCESS))
                .doc("3.2.10", "A read-only variant for GEORADIUSBYMEMBER",
                        "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.")
                .deprecated("6.2.0", "`GEOSEARCH` with the `BYRADIUS` and `FROMMEMBER` arguments"),
                c -> GeoSearch.run(c, GeoSearch.AROUND_MEMBER | GeoSearch.NO_STORE));
        t.add(spec("GEOSEARCH", -7, READONLY).keys(at(1, RO, ACCESS))
                .doc("6.2.0", "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle.",
                        "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape")
                .history("7.0.0", "Added support for uppercase unit names."),
                c -> GeoSearch.run(c, GeoSearch.SEARCH));
        t.add(spec("GEOSEARCHSTORE", -8, WRITE, DENYOOM).keys(at(1, OW, UPDATE), at(2, RO, ACCESS))
                .doc("6.2.0", "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle, and store the result in another key.",
                        "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape")
                .history("7.0.0", "Added support for uppercase unit names."),
                c -> GeoSearch.run(c, GeoSearch.SEARCH | GeoSearch.SEARCH_STORE));
    }

    // ---- argument helpers shared with GeoSearch ----

    /** {lon, lat} from arguments i and i+1, within the geohash limits. */
    static double[] lonLat(Call c, int i) {
        double lon = c.doubleArg(i), lat = c.doubleArg(i + 1);
        if (lon < GeoHash.LON_MIN || lon > GeoHash.LON_MAX || lat < GeoHash.LAT_MIN || lat > GeoHash.LAT_MAX) {
            throw new CommandError("ERR invalid longitude,latitude pair " + DoubleFormat.fixed(lon, 6) + ","
                    + DoubleFormat.fixed(lat, 6));
        }
        return new double[] {lon, lat};
    }

    /** Meters per unit for argument i (m, km, ft, mi, any case). */
    static double unit(Call c, int i) {
        if (c.argIs(i, "m")) return 1;
        if (c.argIs(i, "km")) return 1000;
        if (c.argIs(i, "ft")) return 0.3048;
        if (c.argIs(i, "mi")) return 1609.34;
        throw new CommandError(UNIT_ERROR);
    }

    /** A double argument, or "ERR " + what when it is not one. */
    static double number(Call c, int i, String what) {
        double d = Numbers.parseDouble(c.arg(i));
        if (Double.isNaN(d)) throw new CommandError("ERR " + what);
        return d;
    }

    /**
     * Redis's addReplyDoubleDistance: rounded (ties to even, as llrint) to 4 decimals and written
     * in fixed point, as a bulk string whatever the protocol.
     */
    static void distance(Reply r, double d) {
        long scaled = (long) Math.rint(d * 10000.0);
        String digits = Long.toString(Math.abs(scaled));
        if (digits.length() < 5) digits = "0".repeat(5 - digits.length()) + digits;
        int point = digits.length() - 4;
        String s = (scaled < 0 ? "-" : "") + digits.substring(0, point) + "." + digits.substring(point);
        r.bulk(s.getBytes(StandardCharsets.US_ASCII));
    }

    /** A position as GEOPOS and WITHCOORD reply it. */
    static void position(Reply r, double[] xy) {
        r.array(2);
        r.humanDouble(xy[0]);
        r.humanDouble(xy[1]);
    }

    // ---- handlers ----

    /**
     * GEOADD key [NX|XX] [CH] longitude latitude member [...]: runs as ZADD with the geohash scores,
     * and propagates as that ZADD.
     */
    private void geoadd(Call c) {
        boolean nx = false, xx = false;
        int first = 2;
        for (; first < c.argCount(); first++) {
            if (c.argIs(first, "NX")) nx = true;
            else if (c.argIs(first, "XX")) xx = true;
            else if (!c.argIs(first, "CH")) break; // CH is ZADD's business
        }
        if ((c.argCount() - first) % 3 != 0 || (nx && xx)) throw CommandError.syntax();
        int elements = (c.argCount() - first) / 3;
        byte[][] zadd = new byte[first + elements * 2][];
        zadd[0] = ZADD;
        System.arraycopy(c.args(), 1, zadd, 1, first - 1);
        for (int i = 0; i < elements; i++) {
            double[] xy = lonLat(c, first + i * 3);
            zadd[first + i * 2] = Numbers.toBytes(GeoHash.score(xy[0], xy[1]));
            zadd[first + i * 2 + 1] = c.arg(first + i * 3 + 2);
        }
        c.replaceArgs(zadd);
        ZSetCommands.zadd(c, 0);
    }

    private static final byte[] ZADD = "zadd".getBytes(StandardCharsets.US_ASCII);

    /** GEOPOS key [member ...] */
    private void geopos(Call c) {
        eachMember(c, c.reply()::nullArray, score -> position(c.reply(), GeoHash.position(score)));
    }

    /** GEODIST key member1 member2 [M|KM|FT|MI] */
    private void geodist(Call c) {
        double toMeters = 1;
        if (c.argCount() == 5) toMeters = unit(c, 4);
        else if (c.argCount() > 5) throw CommandError.syntax();
        ZSetValue z = ZSetCommands.read(c, c.arg(1));
        double s1 = z == null ? Double.NaN : z.score(c.arg(2));
        double s2 = z == null ? Double.NaN : z.score(c.arg(3));
        if (Double.isNaN(s1) || Double.isNaN(s2)) {
            c.reply().nullBulk();
            return;
        }
        double[] a = GeoHash.position(s1), b = GeoHash.position(s2);
        distance(c.reply(), GeoShape.distance(a[0], a[1], b[0], b[1]) / toMeters);
    }

    /** GEOHASH key [member ...] */
    private void geohash(Call c) {
        eachMember(c, c.reply()::nullBulk, score -> c.reply().bulk(GeoHash.standard(score)));
    }

    /** An array with one reply per member argument: from its score, or missing's when it has none. */
    private static void eachMember(Call c, Runnable missing, java.util.function.DoubleConsumer present) {
        ZSetValue z = ZSetCommands.read(c, c.arg(1));
        c.reply().array(c.argCount() - 2);
        for (int j = 2; j < c.argCount(); j++) {
            double score = z == null ? Double.NaN : z.score(c.arg(j));
            if (Double.isNaN(score)) missing.run(); else present.accept(score);
        }
    }
}
