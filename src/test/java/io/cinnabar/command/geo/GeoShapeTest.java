package io.cinnabar.command.geo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** distanceIfInside's shortcuts decide as Redis's full computation does (geoWithinShape). */
class GeoShapeTest {
    private static final int SHAPES = 2_000, POINTS = 200;

    @Test
    void circleDecidesAsTheFullDistanceDoes() {
        SplittableRandom random = new SplittableRandom(1);
        int inside = 0, outside = 0;
        for (int s = 0; s < SHAPES; s++) {
            GeoShape shape = center(random);
            shape.radius = radiusMeters(random);
            shape.conversion = 1;
            for (int p = 0; p < POINTS; p++) {
                // A quarter due north or south, where the latitude test alone decides.
                double bearing = random.nextInt(4) == 0 ? (random.nextBoolean() ? 0 : Math.PI) : random.nextDouble(0, 2 * Math.PI);
                double[] xy = nearEdge(random, shape, shape.radius, bearing);
                double full = GeoShape.distance(shape.lon, shape.lat, xy[0], xy[1]);
                double expected = full > shape.radius ? Double.NaN : full;
                double actual = shape.distanceIfInside(xy[0], xy[1]);
                assertEquals(expected, actual, () -> String.format("center %s %s radius %s point %s %s",
                        shape.lon, shape.lat, shape.radius, xy[0], xy[1]));
                if (Double.isNaN(actual)) outside++; else inside++;
            }
        }
        assertTrue(inside > SHAPES * POINTS / 10 && outside > SHAPES * POINTS / 10, inside + " inside, " + outside + " outside");
    }

    @Test
    void boxDecidesAsTheFullDistancesDo() {
        SplittableRandom random = new SplittableRandom(2);
        int inside = 0, outside = 0;
        for (int s = 0; s < SHAPES; s++) {
            GeoShape shape = center(random);
            shape.box = true;
            shape.width = 2 * radiusMeters(random);
            shape.height = 2 * radiusMeters(random);
            shape.conversion = 1;
            for (int p = 0; p < POINTS; p++) {
                double[] xy = random.nextBoolean() ? nearSide(random, shape)
                        : nearEdge(random, shape, shape.height / 2, (random.nextBoolean() ? Math.PI : 0) + random.nextDouble(-0.3, 0.3));
                if (random.nextInt(16) == 0) xy[0] = shape.lon; // on the center's meridian: no longitude apart
                double expected;
                if (GeoShape.EARTH_RADIUS * Math.abs(xy[1] * (Math.PI / 180) - shape.lat * (Math.PI / 180)) > shape.height / 2
                        || GeoShape.distance(xy[0], xy[1], shape.lon, xy[1]) > shape.width / 2) {
                    expected = Double.NaN;
                } else {
                    expected = GeoShape.distance(shape.lon, shape.lat, xy[0], xy[1]);
                }
                assertEquals(expected, shape.distanceIfInside(xy[0], xy[1]), () -> String.format(
                        "center %s %s box %s x %s point %s %s", shape.lon, shape.lat, shape.width, shape.height, xy[0], xy[1]));
                if (Double.isNaN(expected)) outside++; else inside++;
            }
        }
        assertTrue(inside > SHAPES * POINTS / 10 && outside > SHAPES * POINTS / 10, inside + " inside, " + outside + " outside");
    }

    @Test
    void pointsOnTheCircleItselfAreDecidedByTheFullDistance() {
        GeoShape shape = new GeoShape();
        shape.lon = 13.361389;
        shape.lat = 38.115556;
        shape.conversion = 1;
        double[] probe = {15.087269, 37.502669};
        shape.radius = GeoShape.distance(shape.lon, shape.lat, probe[0], probe[1]);
        assertEquals(shape.radius, shape.distanceIfInside(probe[0], probe[1]));
        GeoShape smaller = new GeoShape();
        smaller.lon = shape.lon;
        smaller.lat = shape.lat;
        smaller.conversion = 1;
        smaller.radius = Math.nextDown(shape.radius);
        assertTrue(Double.isNaN(smaller.distanceIfInside(probe[0], probe[1])));
    }

    private static GeoShape center(SplittableRandom random) {
        GeoShape shape = new GeoShape();
        shape.lon = random.nextDouble(-180, 180);
        shape.lat = random.nextDouble(-85.05112878, 85.05112878);
        return shape;
    }

    /** From centimeters to past half the globe, most of them the sizes searches use. */
    private static double radiusMeters(SplittableRandom random) {
        return Math.pow(10, random.nextDouble(-2, 7.5));
    }

    /** A point inside the box's latitudes, about half the box's width from the center's meridian along its parallel. */
    private static double[] nearSide(SplittableRandom random, GeoShape shape) {
        // A quarter at the edge farthest from the equator, where the parallels are shortest.
        double reach = random.nextInt(4) == 0 ? Math.copySign(1 - 1e-9, shape.lat) : random.nextDouble(-1, 1);
        double y = shape.lat + Math.toDegrees(reach * shape.height / 2 / GeoShape.EARTH_RADIUS);
        y = Math.max(-85.05112878, Math.min(85.05112878, y));
        double ratio = Math.sin(shape.width / 4 / GeoShape.EARTH_RADIUS) / Math.cos(Math.toRadians(y));
        if (ratio >= 1) return new double[] {random.nextDouble(-180, 180), y};
        double spread = random.nextInt(4) == 0 ? 0.5 : random.nextBoolean() ? 1e-6 : 1e-14;
        double dLon = Math.toDegrees(2 * Math.asin(ratio)) * (1 + random.nextDouble(-spread, spread));
        return new double[] {Math.IEEEremainder(shape.lon + (random.nextBoolean() ? dLon : -dLon), 360), y};
    }

    /** A point that far in that direction: most within a part in 10^6 of it, some at ulps. */
    private static double[] nearEdge(SplittableRandom random, GeoShape shape, double radius, double bearing) {
        double spread = random.nextInt(4) == 0 ? 0.5 : random.nextBoolean() ? 1e-6 : 1e-14;
        double angle = radius * (1 + random.nextDouble(-spread, spread)) / GeoShape.EARTH_RADIUS;
        double lat1 = Math.toRadians(shape.lat), lon1 = Math.toRadians(shape.lon);
        double lat2 = Math.asin(Math.sin(lat1) * Math.cos(angle) + Math.cos(lat1) * Math.sin(angle) * Math.cos(bearing));
        double lon2 = lon1 + Math.atan2(Math.sin(bearing) * Math.sin(angle) * Math.cos(lat1),
                Math.cos(angle) - Math.sin(lat1) * Math.sin(lat2));
        return new double[] {Math.IEEEremainder(Math.toDegrees(lon2), 360), Math.toDegrees(lat2)};
    }
}
