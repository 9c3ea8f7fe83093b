package io.cinnabar.command.geo;

import io.cinnabar.util.RoundedTrig;

/**
 * What GEOSEARCH looks in: a circle or an axis-aligned box around a center, sized in a unit, and
 * the geohash cells that cover it (geohash_helper.c). Which cells Redis scans decides which
 * members COUNT ANY returns and in which order unsorted results come, so the cells and the order
 * they are scanned in follow Redis exactly.
 */
final class GeoShape {
    /** Redis's EARTH_RADIUS_IN_METERS, the quadratic mean radius of WGS-84. */
    static final double EARTH_RADIUS = 6372797.560856;
    private static final double MERCATOR_MAX = 20037726.37;
    private static final double D_R = Math.PI / 180.0;
    /** A cell left out of the search. */
    static final long NO_CELL = -1;

    double lon, lat;
    boolean box;
    /** In the unit: the radius of a circle, or the sides of a box. */
    double radius, width, height;
    /** Meters per unit. */
    double conversion;

    /** Great-circle distance in meters (haversine), as Redis's geohashGetDistance, within an ulp or so of its. */
    static double distance(double lon1, double lat1, double lon2, double lat2) {
        return haversine(lon1, lat1, lon2, lat2, Double.NaN, false);
    }

    /**
     * The same with sin, cos and asin rounded as glibc's are (RoundedTrig), ~6 times the cost: for
     * what shows all 17 digits (GEOSEARCHSTORE's STOREDIST scores), where the faster one's last
     * digits differed from Redis's for ~4% of random pairs (~0.16% with these). The 4 decimals of
     * GEODIST and WITHDIST, and the radius test, are left to the faster one.
     */
    static double roundedDistance(double lon1, double lat1, double lon2, double lat2) {
        return haversine(lon1, lat1, lon2, lat2, Double.NaN, true);
    }

    /** cosLat1: the cosine of lat1 when already known (the search's center), else NaN. */
    private static double haversine(double lon1, double lat1, double lon2, double lat2, double cosLat1, boolean rounded) {
        return haversine(lon1, lat1, lon2, lat2, cosLat1, rounded, Double.POSITIVE_INFINITY);
    }

    /**
     * The same, or NaN when the distance is surely over a limit whose {@link #surelyOver} bound is
     * given: the arcsine, the costliest step, is left out for points that far.
     */
    private static double haversine(double lon1, double lat1, double lon2, double lat2, double cosLat1, boolean rounded,
            double rootOver) {
        double lon1r = lon1 * D_R, lon2r = lon2 * D_R;
        double v = rounded ? RoundedTrig.sin((lon2r - lon1r) / 2) : Math.sin((lon2r - lon1r) / 2);
        // Same meridian: asin(sin(x)) is x, so Redis skips the expensive part.
        if (v == 0.0) return latDistance(lat1, lat2);
        double lat1r = lat1 * D_R, lat2r = lat2 * D_R;
        double cos1 = !Double.isNaN(cosLat1) ? cosLat1 : rounded ? RoundedTrig.cos(lat1r) : Math.cos(lat1r);
        double cos2 = lat2 == lat1 ? cos1 : rounded ? RoundedTrig.cos(lat2r) : Math.cos(lat2r);
        double u = rounded ? RoundedTrig.sin((lat2r - lat1r) / 2) : Math.sin((lat2r - lat1r) / 2);
        double root = Math.sqrt(u * u + cos1 * cos2 * v * v);
        if (root > rootOver) return Double.NaN;
        return 2.0 * EARTH_RADIUS * (rounded ? RoundedTrig.asin(root) : Math.asin(root));
    }

    /**
     * A bound on the haversine's root beyond which the distance computed from it is surely over
     * limitMeters: sin(limit / 2R), widened far past the few ulps by which asin, sin and the
     * products may err, so that the decision is the one the full computation would make. Infinite
     * (no shortcut) where the limit is half the globe or more and sine no longer grows with it.
     */
    private static double surelyOver(double limitMeters) {
        double angle = limitMeters / (2.0 * EARTH_RADIUS);
        return angle < 1.5 ? Math.sin(angle) * (1 + 1e-12) : Double.POSITIVE_INFINITY;
    }

    /** The other side of {@link #surelyOver}: a root below this gives a distance surely within limitMeters. */
    private static double surelyUnder(double limitMeters) {
        double angle = limitMeters / (2.0 * EARTH_RADIUS);
        return angle < 1.5 ? Math.sin(angle) * (1 - 1e-12) : 0;
    }

    /** Taken once per search (a shape is complete by its first member): the center's cosine, the bounds below. */
    private boolean prepared;
    private double centerCos;
    /** surelyOver of the radius, or of the box's half width; surelyUnder of the box's half width. */
    private double rootOver, rootUnder;
    /** Degrees of longitude from the center's meridian past which nothing is inside. */
    private double lonBand;

    private void prepare() {
        prepared = true;
        centerCos = Math.cos(lat * D_R);
        double limit = box ? width * conversion / 2 : radius * conversion;
        rootOver = surelyOver(limit);
        rootUnder = surelyUnder(limit);
        lonBand = lonBand(limit, box ? height * conversion / 2 : limit);
    }

    /**
     * The haversine's a = sin²(Δlat/2) + cos(lat1)·cos(lat2)·sin²(Δlon/2) is over sin²(limit/2R) as
     * soon as its second term is, and cos(lat2) is at least its value at the farthest latitude that
     * passes the latitude test (latReach meters from the center's): that bounds Δlon. A box's width
     * is measured along the member's own parallel, where both cosines are cos(lat2). The margins
     * are far wider than the computations' rounding, so nothing the full test keeps is dropped.
     */
    private double lonBand(double limit, double latReach) {
        double angle = limit / (2.0 * EARTH_RADIUS);
        double farthest = Math.abs(lat * D_R) + latReach * (1 + 1e-9) / EARTH_RADIUS + 1e-9;
        if (angle >= 1.5 || farthest >= Math.PI / 2) return Double.POSITIVE_INFINITY;
        double cosFarthest = Math.cos(farthest) * (1 - 1e-9);
        double ratio = Math.sin(angle) * (1 + 1e-9) / (box ? cosFarthest : Math.sqrt(centerCos * cosFarthest));
        if (ratio >= 1) return Double.POSITIVE_INFINITY;
        return 2 * Math.asin(ratio) / D_R * (1 + 1e-9) + 1e-12;
    }

    private static double latDistance(double lat1, double lat2) {
        return EARTH_RADIUS * Math.abs(lat2 * D_R - lat1 * D_R);
    }

    /**
     * The distance in meters from the center to (x, y) if that point is inside, else NaN: Redis's
     * tests (geoWithinShape) and the same distances, without the trigonometry where cheaper bounds
     * already decide (most of what a search scans lies in its cells' corners, outside the shape).
     */
    double distanceIfInside(double x, double y) {
        if (!prepared) prepare();
        double lonApart = Math.abs(x - lon);
        if (lonApart > 180) lonApart = 360 - lonApart;
        if (lonApart > lonBand) return Double.NaN;
        if (!box) {
            double limit = radius * conversion;
            // No great circle between two latitudes is shorter than the meridian's arc; the margin
            // keeps this a decision the full computation makes too, down to underflows.
            if (latDistance(y, lat) > limit * (1 + 1e-9) + 1e-6) return Double.NaN;
            double d = haversine(lon, lat, x, y, centerCos, false, rootOver);
            return d > limit ? Double.NaN : d;
        }
        // The latitude test is the cheaper one, so it goes first.
        if (latDistance(y, lat) > height * conversion / 2) return Double.NaN;
        // Redis's two haversines, the distance along the member's parallel (x, y to lon, y) and
        // the one from the center, share sin(Δlon/2) (up to its sign) and cos(y): taken once
        // here, and the first one's arcsine only where the bounds do not decide, these are the
        // same values with half the trigonometry (it was ~45% of a GEOSEARCH BYBOX's CPU).
        double v = Math.sin((lon * D_R - x * D_R) / 2);
        double yr = y * D_R;
        double cosY = Math.cos(yr);
        if (v == 0.0) return latDistance(lat, y); // on the center's meridian, as haversine
        double root = Math.sqrt(cosY * cosY * v * v); // along the parallel sin(Δlat/2) is 0
        if (root > rootOver) return Double.NaN;
        if (root >= rootUnder && !(2.0 * EARTH_RADIUS * Math.asin(root) <= width * conversion / 2)) return Double.NaN;
        double u = Math.sin((yr - lat * D_R) / 2);
        return 2.0 * EARTH_RADIUS * Math.asin(Math.sqrt(u * u + centerCos * cosY * v * v));
    }

    /**
     * {minLon, minLat, maxLon, maxLat} around the shape. A box's sides are meridians, so it is
     * widest at the edge nearer the equator.
     */
    private double[] bounds() {
        double h = conversion * (box ? height / 2 : radius);
        double w = conversion * (box ? width / 2 : radius);
        double latDelta = h / EARTH_RADIUS / D_R;
        double lonDeltaTop = w / EARTH_RADIUS / Math.cos((lat + latDelta) * D_R) / D_R;
        double lonDeltaBottom = w / EARTH_RADIUS / Math.cos((lat - latDelta) * D_R) / D_R;
        double lonDelta = lat < 0 ? lonDeltaBottom : lonDeltaTop;
        return new double[] {lon - lonDelta, lat - latDelta, lon + lonDelta, lat + latDelta};
    }

    /** The coarsest step whose cells are still about as wide as the search radius. */
    private static int estimateStep(double rangeMeters, double lat) {
        if (rangeMeters == 0) return GeoHash.STEP_MAX;
        int step = 1;
        while (rangeMeters < MERCATOR_MAX) {
            rangeMeters *= 2;
            step++;
        }
        step -= 2;
        // Meridians converge towards the poles: go a step or two coarser there.
        if (lat > 66 || lat < -66) {
            step--;
            if (lat > 80 || lat < -80) step--;
        }
        return Math.max(1, Math.min(GeoHash.STEP_MAX, step));
    }

    /**
     * The cells to scan, in Redis's order: the center's cell, then north, south, east, west,
     * north-east, north-west, south-east, south-west; {@link #NO_CELL} for those that cannot
     * touch the shape. The last element is the step of the cells.
     */
    long[] cells() {
        double[] b = bounds();
        double minLon = b[0], minLat = b[1], maxLon = b[2], maxLat = b[3];
        double rangeMeters = box ? Math.sqrt((width / 2) * (width / 2) + (height / 2) * (height / 2)) : radius;
        rangeMeters *= conversion;
        int step = estimateStep(rangeMeters, lat);
        long[] cells = around(GeoHash.encode(lon, lat, step), step);
        // A shape close to its cell's edge may reach past the neighbours: one step coarser then.
        if (step > 1 && (GeoHash.area(cells[1], step)[3] < maxLat || GeoHash.area(cells[2], step)[2] > minLat
                || GeoHash.area(cells[3], step)[1] < maxLon || GeoHash.area(cells[4], step)[0] > minLon)) {
            step--;
            cells = around(GeoHash.encode(lon, lat, step), step);
        }
        if (step >= 2) {
            double[] a = GeoHash.area(cells[0], step);
            if (a[2] < minLat) drop(cells, 2, 7, 8);
            if (a[3] > maxLat) drop(cells, 1, 5, 6);
            if (a[0] < minLon) drop(cells, 4, 8, 6);
            if (a[1] > maxLon) drop(cells, 3, 7, 5);
        }
        cells[9] = step;
        return cells;
    }

    private static long[] around(long c, int step) {
        return new long[] {c,
            GeoHash.neighbour(c, step, 0, 1), GeoHash.neighbour(c, step, 0, -1),
            GeoHash.neighbour(c, step, 1, 0), GeoHash.neighbour(c, step, -1, 0),
            GeoHash.neighbour(c, step, 1, 1), GeoHash.neighbour(c, step, -1, 1),
            GeoHash.neighbour(c, step, 1, -1), GeoHash.neighbour(c, step, -1, -1),
            0};
    }

    private static void drop(long[] cells, int... which) {
        for (int i : which) cells[i] = NO_CELL;
    }
}
