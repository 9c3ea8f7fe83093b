package io.cinnabar.util;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * The x87 80-bit "long double" Redis 7.0 uses for INCRBYFLOAT on x86-64: a 64-bit mantissa with
 * an explicit integer bit and a 15-bit exponent. Emulated exactly (sign, mantissa, binary
 * exponent held in a BigInteger) so that parsing (glibc strtold, correctly rounded), addition
 * (one rounding) and "%.17Lf" output give the very digits Redis stores. Immutable.
 */
public final class LongDouble {
    /** Smallest binary exponent of the mantissa's last bit: subnormals bottom out at 2^-16445. */
    private static final int MIN_EXP = -16445;
    /** Largest exponent of the mantissa's last bit for a finite value (max is ~1.19e4932). */
    private static final int MAX_EXP = 16383 - 63;
    private static final int MANTISSA_BITS = 64;
    /** Redis's MAX_LONG_DOUBLE_CHARS: string2ld refuses strings this long or longer. */
    private static final int MAX_CHARS = 5 * 1024;
    /** Decimal exponents beyond this overflow or underflow whatever the digits are. */
    private static final long EXP10_LIMIT = 20_000;

    public static final LongDouble ZERO = new LongDouble(false, BigInteger.ZERO, 0, false);

    private final boolean negative;
    private final BigInteger mantissa;
    private final int exponent;
    private final boolean infinite;

    private LongDouble(boolean negative, BigInteger mantissa, int exponent, boolean infinite) {
        this.negative = negative;
        this.mantissa = mantissa;
        this.exponent = exponent;
        this.infinite = infinite;
    }

    private static LongDouble infinity(boolean negative) {
        return new LongDouble(negative, BigInteger.ZERO, 0, true);
    }

    public boolean isInfinite() {
        return infinite;
    }

    public static LongDouble of(long v) {
        return fromRatio(v < 0, BigInteger.valueOf(v).abs(), BigInteger.ONE, 0);
    }

    /**
     * Redis's string2ld: the whole input must be one number for strtold (decimal, hex with a
     * binary exponent, inf/infinity), no leading space, not NaN, no overflow to infinity and no
     * underflow of a non-zero input to zero. Returns null when Redis would reply
     * "value is not a valid float".
     */
    public static LongDouble parse(byte[] s) {
        int n = s.length;
        if (n == 0 || n >= MAX_CHARS) return null;
        int i = 0;
        boolean neg = false;
        if (s[i] == '+' || s[i] == '-') {
            neg = s[i] == '-';
            i++;
        }
        if (i == n) return null;
        int rest = n - i;
        if (matchesIgnoreCase(s, i, "inf") && (rest == 3 || (rest == 8 && matchesIgnoreCase(s, i, "infinity")))) {
            return infinity(neg);
        }
        boolean hex = rest > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X');
        if (hex) i += 2;
        int radix = hex ? 16 : 10;
        StringBuilder digits = new StringBuilder(Math.min(rest, 64));
        int fractionDigits = 0;
        boolean sawDigit = false, sawPoint = false;
        for (; i < n; i++) {
            int d = Character.digit(s[i], radix);
            if (d >= 0) {
                sawDigit = true;
                if (digits.length() > 0 || d != 0) digits.append((char) s[i]);
                if (sawPoint) fractionDigits++;
            } else if (s[i] == '.' && !sawPoint) {
                sawPoint = true;
            } else {
                break;
            }
        }
        if (!sawDigit) return null;
        long exp = 0;
        if (i < n) {
            byte marker = s[i];
            if (hex ? (marker != 'p' && marker != 'P') : (marker != 'e' && marker != 'E')) return null;
            i++;
            boolean expNeg = false;
            if (i < n && (s[i] == '+' || s[i] == '-')) {
                expNeg = s[i] == '-';
                i++;
            }
            if (i == n) return null;
            for (; i < n; i++) {
                if (s[i] < '0' || s[i] > '9') return null;
                if (exp < 1_000_000_000L) exp = exp * 10 + (s[i] - '0');
            }
            if (expNeg) exp = -exp;
        }
        if (digits.length() == 0) return neg ? new LongDouble(true, BigInteger.ZERO, 0, false) : ZERO;
        BigInteger m = new BigInteger(digits.toString(), radix);
        if (hex) {
            long e2 = exp - 4L * fractionDigits;
            if (e2 > 4 * EXP10_LIMIT) return null;
            if (e2 < -4 * EXP10_LIMIT) return null;
            return checked(fromRatio(neg, m, BigInteger.ONE, (int) e2));
        }
        long e10 = exp - fractionDigits;
        // Significant digits beyond the limit cannot rescue an exponent this far out.
        if (e10 + digits.length() > EXP10_LIMIT) return null;
        if (e10 + digits.length() < -EXP10_LIMIT) return null;
        LongDouble v = e10 >= 0
                ? fromRatio(neg, m.multiply(BigInteger.TEN.pow((int) e10)), BigInteger.ONE, 0)
                : fromRatio(neg, m, BigInteger.TEN.pow((int) -e10), 0);
        return checked(v);
    }

    public static LongDouble parse(String s) {
        return parse(s.getBytes(StandardCharsets.ISO_8859_1));
    }

    /** strtold's ERANGE cases that string2ld rejects: overflow, and a non-zero input that became zero. */
    private static LongDouble checked(LongDouble v) {
        if (v.infinite || v.mantissa.signum() == 0) return null;
        return v;
    }

    private static boolean matchesIgnoreCase(byte[] s, int at, String word) {
        if (s.length - at < word.length()) return false;
        for (int k = 0; k < word.length(); k++) {
            if (Character.toLowerCase((char) s[at + k]) != word.charAt(k)) return false;
        }
        return true;
    }

    /** this + other rounded once to the nearest long double (ties to even); null for NaN. */
    public LongDouble add(LongDouble other) {
        if (infinite || other.infinite) {
            if (infinite && other.infinite && negative != other.negative) return null;
            return infinite ? this : other;
        }
        int e = Math.min(exponent, other.exponent);
        BigInteger a = signed().shiftLeft(exponent - e);
        BigInteger b = other.signed().shiftLeft(other.exponent - e);
        BigInteger sum = a.add(b);
        return fromRatio(sum.signum() < 0, sum.abs(), BigInteger.ONE, e);
    }

    /** this * other rounded once to the nearest long double (ties to even); null for NaN (0 * inf). */
    public LongDouble multiply(LongDouble other) {
        boolean neg = negative != other.negative;
        if (infinite || other.infinite) {
            if (isZero() || other.isZero()) return null;
            return infinity(neg);
        }
        return fromRatio(neg, mantissa.multiply(other.mantissa), BigInteger.ONE, exponent + other.exponent);
    }

    private boolean isZero() {
        return !infinite && mantissa.signum() == 0;
    }

    /**
     * C's (long long) ceill(x) as gcc compiles it for x86-64: a value outside long long's range,
     * infinities included, converts to the x87's "integer indefinite", LLONG_MIN.
     */
    public long ceilToLong() {
        if (infinite) return Long.MIN_VALUE;
        BigInteger whole;
        if (exponent >= 0) {
            whole = mantissa.shiftLeft(exponent);
        } else {
            whole = mantissa.shiftRight(-exponent);
            boolean fraction = mantissa.getLowestSetBit() < -exponent && mantissa.signum() != 0;
            if (fraction && !negative) whole = whole.add(BigInteger.ONE);
        }
        if (negative) whole = whole.negate();
        return whole.bitLength() < 64 ? whole.longValue() : Long.MIN_VALUE;
    }

    private BigInteger signed() {
        return negative ? mantissa.negate() : mantissa;
    }

    /** The long double nearest to num/den * 2^exp2 (num >= 0, den > 0), ties to even. */
    private static LongDouble fromRatio(boolean neg, BigInteger num, BigInteger den, int exp2) {
        if (num.signum() == 0) return new LongDouble(neg, BigInteger.ZERO, 0, false);
        // num/den lies in [2^(lb-1), 2^(lb+1)), so this e leaves a 64 or 65 bit quotient.
        long lb = num.bitLength() - den.bitLength();
        long e = exp2 + lb - MANTISSA_BITS;
        if (e > MAX_EXP + 2) return infinity(neg);
        if (e < MIN_EXP) e = MIN_EXP;
        BigInteger[] qr = divide(num, den, exp2 - e);
        if (qr[0].bitLength() > MANTISSA_BITS) {
            e++;
            qr = divide(num, den, exp2 - e);
        }
        BigInteger q = qr[0];
        BigInteger divisor = qr[2];
        int cmp = qr[1].shiftLeft(1).compareTo(divisor);
        if (cmp > 0 || (cmp == 0 && q.testBit(0))) q = q.add(BigInteger.ONE);
        if (q.bitLength() > MANTISSA_BITS) {
            q = q.shiftRight(1);
            e++;
        }
        if (e > MAX_EXP) return infinity(neg);
        return new LongDouble(neg, q, (int) e, false);
    }

    /** {quotient, remainder, divisor} of num * 2^shift / den. */
    private static BigInteger[] divide(BigInteger num, BigInteger den, long shift) {
        BigInteger n = shift >= 0 ? num.shiftLeft((int) shift) : num;
        BigInteger d = shift >= 0 ? den : den.shiftLeft((int) -shift);
        BigInteger[] qr = n.divideAndRemainder(d);
        return new BigInteger[] {qr[0], qr[1], d};
    }

    /** The exact value (finite only). */
    public BigDecimal toBigDecimal() {
        BigDecimal abs = exponent >= 0
                ? new BigDecimal(mantissa.shiftLeft(exponent))
                : new BigDecimal(mantissa.multiply(BigInteger.valueOf(5).pow(-exponent)), -exponent);
        return negative ? abs.negate() : abs;
    }

    /**
     * Redis's ld2string in LD_STR_HUMAN mode: "%.17Lf" (glibc rounds the exact value, ties to
     * even), trailing zeros after the point removed, then the point if nothing follows it, and
     * "-0" turned into "0". Infinities print as "inf" / "-inf".
     */
    public String toHumanString() {
        if (infinite) return negative ? "-inf" : "inf";
        return DoubleFormat.human(toBigDecimal(), negative);
    }

    @Override
    public String toString() {
        return toHumanString();
    }
}
