package io.cinnabar.util;

import java.math.BigDecimal;
import java.math.MathContext;

/**
 * sin, cos and asin rounded to the nearest double, as glibc's libm gives them (its results are
 * correctly rounded in all but very rare cases), where Java's Math and StrictMath (fdlibm) are
 * only within an ulp: on random inputs StrictMath.asin differs from glibc's in ~0.3% of cases,
 * and a GEO distance Redis stores as a score (GEOSEARCHSTORE STOREDIST) then ends in other
 * digits. Each value is computed in double-double arithmetic (~106 bits: a double and the error
 * it leaves) and rounded once at the end.
 *
 * <p>Arguments beyond {@value #REDUCED_LIMIT} in magnitude, outside what the reduction below
 * handles to full precision, fall back to StrictMath.
 */
public final class RoundedTrig {
    private RoundedTrig() {}

    private static final double REDUCED_LIMIT = 64;

    /** pi/2 as three doubles: the first with its last bits zero, so k * P1 is exact for small k. */
    private static final double P1, P2, P3;
    /** 1/n! as double-double pairs, n = 0..TERMS. */
    private static final int TERMS = 31;
    private static final double[] INV_FACT_HI = new double[TERMS + 1];
    private static final double[] INV_FACT_LO = new double[TERMS + 1];

    static {
        MathContext mc = new MathContext(80);
        // pi to 80 digits, well past the 160 bits the three parts hold.
        BigDecimal halfPi = new BigDecimal("3.1415926535897932384626433832795028841971693993751058209749445923078164062862089986")
                .divide(BigDecimal.valueOf(2), mc);
        P1 = Double.longBitsToDouble(Double.doubleToRawLongBits(halfPi.doubleValue()) & ~0xFFFFFFFL);
        BigDecimal rest = halfPi.subtract(new BigDecimal(P1), mc);
        P2 = rest.doubleValue();
        P3 = rest.subtract(new BigDecimal(P2), mc).doubleValue();
        BigDecimal fact = BigDecimal.ONE;
        for (int n = 0; n <= TERMS; n++) {
            if (n > 0) fact = fact.multiply(BigDecimal.valueOf(n));
            BigDecimal inv = BigDecimal.ONE.divide(fact, mc);
            INV_FACT_HI[n] = inv.doubleValue();
            INV_FACT_LO[n] = inv.subtract(new BigDecimal(INV_FACT_HI[n]), mc).doubleValue();
        }
    }

    public static double sin(double x) {
        if (!(Math.abs(x) <= REDUCED_LIMIT)) return StrictMath.sin(x);
        if (x == 0) return x; // keeps the sign of -0.0
        return sinOrCos(x, 0);
    }

    public static double cos(double x) {
        if (!(Math.abs(x) <= REDUCED_LIMIT)) return StrictMath.cos(x);
        return sinOrCos(x, 1);
    }

    /** asin(x): one Newton step from StrictMath's, with the sine of that guess in double-double. */
    public static double asin(double x) {
        if (!(Math.abs(x) < 1) || x == 0) return StrictMath.asin(x);
        double y = StrictMath.asin(x);
        double[] s = new double[2];
        sinOrCos(y, 0, s);
        // x - sin(y), exactly enough: the two are within an ulp or so of each other.
        double dHi = x - s[0];
        double dLo = -s[1];
        double delta = (dHi + dLo) / StrictMath.cos(y);
        return y + delta;
    }

    private static double sinOrCos(double x, int quarterShift) {
        double[] r = new double[2];
        sinOrCos(x, quarterShift, r);
        return r[0] + r[1];
    }

    /**
     * sin(x + quarterShift * pi/2) into out as a normalized double-double. x is reduced by the
     * nearest multiple k of pi/2 to r in [-pi/4, pi/4], and sin or cos of r is taken by its series.
     */
    private static void sinOrCos(double x, int quarterShift, double[] out) {
        long k = Math.round(x / P1);
        // r = x - k*pi/2 as a double-double: k*P1 is exact, x - k*P1 too (Sterbenz) or nearly.
        double rHi, rLo;
        {
            double t = x - k * P1;
            double p2 = k * P2;
            double p2e = Math.fma(k, P2, -p2);
            double s = t - p2;
            double bb = s - t;
            double e = (t - (s - bb)) - (p2 + bb); // t - p2 = s + e exactly
            rHi = s;
            rLo = e - p2e - k * P3;
            double n = rHi + rLo;
            rLo = rLo - (n - rHi);
            rHi = n;
        }
        int quadrant = (int) ((k + quarterShift) & 3);
        boolean useCos = (quadrant & 1) == 1;
        boolean negate = quadrant >= 2;
        // r2 = r*r
        double r2Hi = rHi * rHi;
        double r2Lo = Math.fma(rHi, rHi, -r2Hi) + 2 * rHi * rLo;
        double n0 = r2Hi + r2Lo;
        r2Lo = r2Lo - (n0 - r2Hi);
        r2Hi = n0;
        // Horner over the even (cos) or odd (sin) terms, alternating in sign: sum of (-1)^j r2^j / (2j+first)!
        int first = useCos ? 0 : 1;
        int last = TERMS - ((TERMS - first) & 1);
        double accHi = INV_FACT_HI[last], accLo = INV_FACT_LO[last];
        if (((last - first) / 2 & 1) == 1) {
            accHi = -accHi;
            accLo = -accLo;
        }
        for (int n = last - 2; n >= first; n -= 2) {
            // acc = acc * r2 + (-1)^j / n!
            double pHi = accHi * r2Hi;
            double pLo = Math.fma(accHi, r2Hi, -pHi) + (accHi * r2Lo + accLo * r2Hi);
            boolean minus = ((n - first) / 2 & 1) == 1;
            double cHi = minus ? -INV_FACT_HI[n] : INV_FACT_HI[n];
            double cLo = minus ? -INV_FACT_LO[n] : INV_FACT_LO[n];
            double sHi = pHi + cHi;
            double bb = sHi - pHi;
            double sLo = (pHi - (sHi - bb)) + (cHi - bb) + pLo + cLo;
            accHi = sHi + sLo;
            accLo = sLo - (accHi - sHi);
        }
        if (!useCos) {
            // sin(r) = r * (series in r2)
            double pHi = accHi * rHi;
            double pLo = Math.fma(accHi, rHi, -pHi) + (accHi * rLo + accLo * rHi);
            accHi = pHi + pLo;
            accLo = pLo - (accHi - pHi);
        }
        out[0] = negate ? -accHi : accHi;
        out[1] = negate ? -accLo : accLo;
    }
}
