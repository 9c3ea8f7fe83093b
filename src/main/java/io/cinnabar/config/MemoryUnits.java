package io.cinnabar.config;

/** Redis's memtoull: "1k" is 1000, "1kb" 1024, and so on for m/mb and g/gb. */
public final class MemoryUnits {
    private MemoryUnits() {}

    /** A byte count as CONFIG REWRITE writes it (Redis's rewriteConfigFormatMemory): "1gb", "64mb", "3kb" or bytes. */
    public static String format(long bytes) {
        long kb = 1024, mb = kb * 1024, gb = mb * 1024;
        if (bytes != 0 && bytes % gb == 0) return bytes / gb + "gb";
        if (bytes != 0 && bytes % mb == 0) return bytes / mb + "mb";
        if (bytes != 0 && bytes % kb == 0) return bytes / kb + "kb";
        return Long.toString(bytes);
    }

    /**
     * The byte count, as memtoull's unsigned 64 bits: digits past 2^64 saturate, the unit's
     * product wraps. Digits may be missing ("" and "kb" are 0, as strtoull reads them).
     *
     * @throws NumberFormatException when the text is not a memory value: a sign, a space, a
     *         fraction or an unknown unit (before a NUL byte, where memtoull stops)
     */
    public static long parse(String text) {
        int nul = text.indexOf('\0');
        if (nul >= 0) text = text.substring(0, nul); // memtoull reads a C string: "1\0x" is 1
        int digits = 0;
        while (digits < text.length() && text.charAt(digits) >= '0' && text.charAt(digits) <= '9') digits++;
        long mul;
        switch (text.substring(digits).toLowerCase(java.util.Locale.ROOT)) {
            case "": case "b": mul = 1; break;
            case "k": mul = 1000; break;
            case "kb": mul = 1024; break;
            case "m": mul = 1000 * 1000; break;
            case "mb": mul = 1024 * 1024; break;
            case "g": mul = 1000L * 1000 * 1000; break;
            case "gb": mul = 1024L * 1024 * 1024; break;
            default: throw new NumberFormatException("not a memory value: " + text);
        }
        if (digits >= 128) throw new NumberFormatException("not a memory value: " + text); // memtoull's buffer
        long v = 0;
        for (int i = 0; i < digits; i++) {
            int d = text.charAt(i) - '0';
            if (Long.compareUnsigned(v, Long.divideUnsigned(-1L - d, 10)) > 0) {
                v = -1L; // strtoull's ERANGE: ULLONG_MAX, which memtoull does not check
                break;
            }
            v = v * 10 + d;
        }
        return v * mul;
    }
}
