package io.cinnabar.command.geo;

import io.cinnabar.command.Call;
import io.cinnabar.command.CommandError;
import io.cinnabar.command.KeyspaceEvents;
import io.cinnabar.command.zsets.ZSetCommands;
import io.cinnabar.keyspace.ScoreRange;
import io.cinnabar.keyspace.ZSetValue;
import io.cinnabar.protocol.Reply;
import io.cinnabar.util.PartialQuickSort;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * GEORADIUS, GEORADIUSBYMEMBER, their _RO twins, GEOSEARCH and GEOSEARCHSTORE: one implementation
 * (Redis's georadiusGeneric) told apart by flags. Members are collected cell by cell as Redis
 * does, so unsorted replies and COUNT ANY pick the same members in the same order.
 */
final class GeoSearch {
    /** GEORADIUS: the center is "longitude latitude" after the key. */
    static final int AROUND_LONLAT = 1;
    /** GEORADIUSBYMEMBER: the center is a member's position. */
    static final int AROUND_MEMBER = 1 << 1;
    /** The _RO variants: no STORE/STOREDIST. */
    static final int NO_STORE = 1 << 2;
    /** GEOSEARCH syntax: FROMMEMBER/FROMLONLAT, BYRADIUS/BYBOX. */
    static final int SEARCH = 1 << 3;
    /** GEOSEARCHSTORE: the destination comes first, STOREDIST takes no argument. */
    static final int SEARCH_STORE = 1 << 4;

    private static final int UNSORTED = 0, ASC = 1, DESC = 2;
    private static final Comparator<Found> NEAREST_FIRST = (a, b) -> a.dist > b.dist ? 1 : a.dist == b.dist ? 0 : -1;

    private GeoSearch() {}

    /** A member inside the shape: its score, position and distance in meters from the center. */
    private record Found(byte[] member, double score, double[] xy, double dist) {}

    static void run(Call c, int flags) {
        boolean search = (flags & SEARCH) != 0, searchStore = (flags & SEARCH_STORE) != 0;
        ZSetValue z = ZSetCommands.read(c, c.arg(searchStore ? 2 : 1));
        GeoShape shape = new GeoShape();
        byte[] storeKey = null;
        boolean storeDist = false;
        int first;
        if ((flags & AROUND_LONLAT) != 0) {
            first = 6;
            center(shape, GeoCommands.lonLat(c, 2));
            radius(c, 4, shape);
        } else if ((flags & AROUND_MEMBER) != 0) {
            first = 5;
            // Without the key the options are still parsed: they decide between 0 and an empty array.
            if (z != null) {
                center(shape, memberPosition(z, c.arg(2)));
                radius(c, 3, shape);
            }
        } else {
            first = searchStore ? 3 : 2;
            if (searchStore) storeKey = c.arg(1);
        }

        boolean withDist = false, withHash = false, withCoord = false, any = false;
        boolean fromMember = false, fromLonLat = false, byRadius = false, byBox = false;
        boolean storeOption = (flags & (NO_STORE | SEARCH)) == 0;
        int sort = UNSORTED;
        long count = 0;
        for (int i = first; i < c.argCount(); i++) {
            int left = c.argCount() - 1 - i;
            if (c.argIs(i, "WITHDIST")) {
                withDist = true;
            } else if (c.argIs(i, "WITHHASH")) {
                withHash = true;
            } else if (c.argIs(i, "WITHCOORD")) {
                withCoord = true;
            } else if (c.argIs(i, "ANY")) {
                any = true;
            } else if (c.argIs(i, "ASC")) {
                sort = ASC;
            } else if (c.argIs(i, "DESC")) {
                sort = DESC;
            } else if (c.argIs(i, "COUNT") && left >= 1) {
                count = c.longArg(++i);
                if (count <= 0) throw new CommandError("ERR COUNT must be > 0");
            } else if ((c.argIs(i, "STORE") || c.argIs(i, "STOREDIST")) && left >= 1 && storeOption) {
                storeDist = c.argIs(i, "STOREDIST");
                storeKey = c.arg(++i);
            } else if (c.argIs(i, "STOREDIST") && searchStore) {
                storeDist = true;
            } else if (c.argIs(i, "FROMMEMBER") && left >= 1 && search && !fromLonLat) {
                if (z != null) center(shape, memberPosition(z, c.arg(i + 1)));
                fromMember = true;
                i++;
            } else if (c.argIs(i, "FROMLONLAT") && left >= 2 && search && !fromMember) {
                center(shape, GeoCommands.lonLat(c, i + 1));
                fromLonLat = true;
                i += 2;
            } else if (c.argIs(i, "BYRADIUS") && left >= 2 && search && !byBox) {
                radius(c, i + 1, shape);
                byRadius = true;
                i += 2;
            } else if (c.argIs(i, "BYBOX") && left >= 3 && search && !byRadius) {
                box(c, i + 1, shape);
                byBox = true;
                i += 3;
            } else {
                throw CommandError.syntax();
            }
        }
        if (storeKey != null && (withDist || withHash || withCoord)) {
            throw new CommandError("ERR " + (searchStore ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS")
                    + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
        }
        // Redis names the command as the client spelled it.
        if (search && !fromMember && !fromLonLat) {
            throw new CommandError("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + c.quoted(0));
        }
        if (search && !byRadius && !byBox) {
            throw new CommandError("ERR exactly one of BYRADIUS and BYBOX can be specified for " + c.quoted(0));
        }
        if (any && count == 0) throw new CommandError("ERR the ANY argument requires COUNT argument");

        if (z == null) {
            if (storeKey != null) store(c, storeKey, List.of(), 0, false, search, shape);
            else c.reply().emptyArray();
            return;
        }
        // The nearest N need sorting; ANY takes the first N found instead.
        if (count != 0 && sort == UNSORTED && !any) sort = ASC;

        List<Found> found = collect(z, shape, any ? count : 0);
        int returned = (int) (count == 0 || found.size() < count ? found.size() : count);
        if (sort != UNSORTED) found = sorted(found, sort == ASC ? NEAREST_FIRST : NEAREST_FIRST.reversed(), returned);
        if (storeKey != null) {
            store(c, storeKey, found, returned, storeDist, search, shape);
            return;
        }
        Reply r = c.reply();
        int options = (withDist ? 1 : 0) + (withHash ? 1 : 0) + (withCoord ? 1 : 0);
        r.array(returned);
        for (int i = 0; i < returned; i++) {
            Found f = found.get(i);
            if (options > 0) r.array(options + 1);
            r.bulk(f.member);
            if (withDist) GeoCommands.distance(r, f.dist / shape.conversion);
            if (withHash) r.integer((long) f.score);
            if (withCoord) GeoCommands.position(r, f.xy);
        }
    }

    /**
     * All of found in order (a stable sort, as glibc's qsort that Redis calls then is), or, when
     * only the first returned are replied, those as Redis's partial sort leaves them: members at
     * equal distances then come in that algorithm's order, not in the order they were found.
     */
    private static List<Found> sorted(List<Found> found, Comparator<Found> order, int returned) {
        if (returned == found.size()) {
            found.sort(order);
            return found;
        }
        Found[] all = found.toArray(new Found[0]);
        PartialQuickSort.sort(all, order, 0, returned - 1);
        return Arrays.asList(all);
    }

    /**
     * The members inside the shape, cell by cell in {@link GeoShape#cells()} order, stopping once
     * limit are found (0: no limit). A cell equal to the one scanned just before is skipped (huge
     * radiuses make neighbours repeat); Redis cannot tell "nothing scanned yet" from "the center
     * was", so neither does this.
     */
    private static List<Found> collect(ZSetValue z, GeoShape shape, long limit) {
        long[] cells = shape.cells();
        int step = (int) cells[9];
        List<Found> found = new ArrayList<>();
        int last = 0;
        for (int i = 0; i < 9; i++) {
            if (cells[i] == GeoShape.NO_CELL || (last != 0 && cells[i] == cells[last])) continue;
            if (limit > 0 && found.size() >= limit) break;
            // A cell's members are the scores sharing its bits as their prefix.
            int shift = 52 - step * 2;
            double min = cells[i] << shift, max = (cells[i] + 1) << shift;
            long rank = z.firstRank(new ScoreRange(min, false, max, true));
            for (ZSetValue.Cursor cur = rank < 0 ? null : z.at(rank); cur != null && cur.valid(); cur.next()) {
                double score = cur.score();
                if (!(score < max)) break;
                double[] xy = GeoHash.position(score);
                double dist = shape.distanceIfInside(xy[0], xy[1]);
                if (!Double.isNaN(dist)) found.add(new Found(cur.member(), score, xy, dist));
                if (limit > 0 && found.size() >= limit) break;
            }
            last = i;
        }
        return found;
    }

    /** STORE/STOREDIST and GEOSEARCHSTORE: the first n found, scored by geohash or by distance. */
    private static void store(Call c, byte[] key, List<Found> found, int n, boolean byDistance, boolean search,
                              GeoShape shape) {
        if (n > 0) {
            byte[][] members = new byte[n][];
            double[] scores = new double[n];
            for (int i = 0; i < n; i++) {
                Found f = found.get(i);
                members[i] = f.member;
                scores[i] = byDistance ? storedDistance(shape, f) : f.score;
            }
            c.db().set(key, ZSetValue.build(members, scores, n, ZSetCommands.maxEntries(c), ZSetCommands.maxValue(c)));
            c.notify(KeyspaceEvents.ZSET, search ? "geosearchstore" : "georadiusstore", key);
        } else if (c.db().delete(key)) {
            c.notify(KeyspaceEvents.GENERIC, "del", key);
        }
        c.reply().integer(n);
    }

    /** Shown with all its digits, so computed again with libm's rounding (the search's is within an ulp). */
    private static double storedDistance(GeoShape shape, Found f) {
        return GeoShape.roundedDistance(shape.lon, shape.lat, f.xy[0], f.xy[1]) / shape.conversion;
    }

    private static void center(GeoShape shape, double[] xy) {
        shape.lon = xy[0];
        shape.lat = xy[1];
    }

    private static double[] memberPosition(ZSetValue z, byte[] member) {
        double score = z.score(member);
        if (Double.isNaN(score)) throw new CommandError("ERR could not decode requested zset member");
        return GeoHash.position(score);
    }

    /** "radius unit" at argument i. */
    private static void radius(Call c, int i, GeoShape shape) {
        double radius = GeoCommands.number(c, i, "need numeric radius");
        if (radius < 0) throw new CommandError("ERR radius cannot be negative");
        shape.conversion = GeoCommands.unit(c, i + 1);
        shape.radius = radius;
        shape.box = false;
    }

    /** "width height unit" at argument i. */
    private static void box(Call c, int i, GeoShape shape) {
        double width = GeoCommands.number(c, i, "need numeric width");
        double height = GeoCommands.number(c, i + 1, "need numeric height");
        if (height < 0 || width < 0) throw new CommandError("ERR height or width cannot be negative");
        shape.conversion = GeoCommands.unit(c, i + 2);
        shape.width = width;
        shape.height = height;
        shape.box = true;
    }
}
