package io.cinnabar.persistence.rdb;

import io.cinnabar.keyspace.HashValue;
import io.cinnabar.keyspace.ListValue;
import io.cinnabar.keyspace.SetValue;
import io.cinnabar.keyspace.ZSetValue;

import java.nio.charset.StandardCharsets;
import java.util.Random;

/** Values of every type built through their public API, small (compact encoding) or large. */
final class Values {
    private Values() {
    }

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static byte[] random(Random rnd, int maxLen) {
        byte[] out = new byte[rnd.nextInt(maxLen + 1)];
        rnd.nextBytes(out);
        return out;
    }

    static ListValue list(int n, int elementSize) {
        ListValue l = new ListValue(-2);
        for (int i = 0; i < n; i++) l.push(i % 4 == 0 ? b(Integer.toString(i * 37 - 5000)) : b(("e" + i + "-").repeat(1 + elementSize / 4)), false);
        return l;
    }

    static SetValue intSet(long... members) {
        SetValue s = SetValue.empty();
        for (long m : members) s.add(m, 512);
        return s;
    }

    static SetValue stringSet(int n) {
        SetValue s = SetValue.forMember(b("x"));
        for (int i = 0; i < n; i++) s.add(b("member-" + i), 512);
        return s;
    }

    static ZSetValue zset(int n, int memberSize) {
        ZSetValue z = new ZSetValue();
        for (int i = 0; i < n; i++) {
            double score = i % 5 == 0 ? i : i % 5 == 1 ? i + 0.25 : i % 5 == 2 ? -i * 1e10 : i % 5 == 3 ? 1.0 / (i + 3) : i * 1e300;
            z.add(score, b(("m" + i).repeat(1 + memberSize / 4)), 0, null, 128, 64);
        }
        z.add(Double.POSITIVE_INFINITY, b("pinf"), 0, null, 128, 64);
        z.add(Double.NEGATIVE_INFINITY, b("ninf"), 0, null, 128, 64);
        return z;
    }

    static HashValue hash(int n, int valueSize) {
        HashValue h = new HashValue();
        for (int i = 0; i < n; i++) h.set(b("f" + i), i % 3 == 0 ? b(Long.toString(i * 1000003L)) : b(("v" + i).repeat(1 + valueSize / 3)), 512, 64);
        return h;
    }
}
