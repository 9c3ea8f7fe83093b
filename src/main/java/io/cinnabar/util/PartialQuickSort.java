package io.cinnabar.util;

import java.util.Comparator;

/**
 * Redis's pqsort.c (Bentley & McIlroy's quicksort that skips partitions outside the wanted
 * range), kept step for step: SORT BY with LIMIT and GEO searches with a COUNT short of what
 * they found use it, and it is not stable, so elements of equal weight (ALPHA BY ties, members
 * at one distance) come out in the order this exact algorithm leaves them.
 */
public final class PartialQuickSort {
    private PartialQuickSort() {
    }

    /** Sorts a enough that positions from..to (inclusive) hold what a full sort would put there. */
    public static <T> void sort(T[] a, Comparator<? super T> cmp, int from, int to) {
        sort(a, 0, a.length, cmp, from, to);
    }

    private static <T> void sort(T[] x, int a, int n, Comparator<? super T> cmp, int lrange, int rrange) {
        while (true) {
            if (n < 7) {
                for (int pm = a + 1; pm < a + n; pm++) {
                    for (int pl = pm; pl > a && cmp.compare(x[pl - 1], x[pl]) > 0; pl--) swap(x, pl, pl - 1);
                }
                return;
            }
            int pm = a + n / 2;
            if (n > 7) {
                int pl = a, pn = a + n - 1;
                if (n > 40) {
                    int d = n / 8;
                    pl = med3(x, pl, pl + d, pl + 2 * d, cmp);
                    pm = med3(x, pm - d, pm, pm + d, cmp);
                    pn = med3(x, pn - 2 * d, pn - d, pn, cmp);
                }
                pm = med3(x, pl, pm, pn, cmp);
            }
            swap(x, a, pm);
            int pa = a + 1, pb = a + 1, pc = a + n - 1, pd = a + n - 1;
            while (true) {
                int r;
                while (pb <= pc && (r = cmp.compare(x[pb], x[a])) <= 0) {
                    if (r == 0) swap(x, pa++, pb);
                    pb++;
                }
                while (pb <= pc && (r = cmp.compare(x[pc], x[a])) >= 0) {
                    if (r == 0) swap(x, pc, pd--);
                    pc--;
                }
                if (pb > pc) break;
                swap(x, pb++, pc--);
            }
            int pn = a + n;
            int r = Math.min(pa - a, pb - pa);
            vecswap(x, a, pb - r, r);
            r = Math.min(pd - pc, pn - pd - 1);
            vecswap(x, pb, pn - r, r);
            if ((r = pb - pa) > 1 && overlaps(a, a + r - 1, lrange, rrange)) sort(x, a, r, cmp, lrange, rrange);
            if ((r = pd - pc) > 1 && overlaps(pn - r, pn - 1, lrange, rrange)) {
                // Iterate rather than recurse, as the C code does.
                a = pn - r;
                n = r;
                continue;
            }
            return;
        }
    }

    /** Not wholly left or wholly right of the wanted range (pqsort's pointer test, in indexes). */
    private static boolean overlaps(int first, int last, int lrange, int rrange) {
        return !((lrange < first && rrange < first) || (lrange > last && rrange > last));
    }

    private static <T> int med3(T[] x, int a, int b, int c, Comparator<? super T> cmp) {
        return cmp.compare(x[a], x[b]) < 0
                ? (cmp.compare(x[b], x[c]) < 0 ? b : (cmp.compare(x[a], x[c]) < 0 ? c : a))
                : (cmp.compare(x[b], x[c]) > 0 ? b : (cmp.compare(x[a], x[c]) < 0 ? a : c));
    }

    private static void swap(Object[] x, int i, int j) {
        Object t = x[i];
        x[i] = x[j];
        x[j] = t;
    }

    private static void vecswap(Object[] x, int a, int b, int n) {
        for (int i = 0; i < n; i++) swap(x, a + i, b + i);
    }
}
