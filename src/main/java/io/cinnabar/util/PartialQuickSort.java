package io.cinnabar.util;

import java.util.Comparator;

/**
 * Sorts only as much of an array as a range of positions needs, in the element order Redis's
 * pqsort gives: a Bentley-McIlroy three-way quicksort (median of three, of nine past 40
 * elements, insertion sort below 7) that skips the partitions lying wholly outside the range.
 * Redis uses it when a GEO search with COUNT returns fewer members than it found; elements that
 * compare equal (members at one distance) then come out in the order of this algorithm, which a
 * stable sort does not reproduce.
 */
public final class PartialQuickSort {
    private PartialQuickSort() {}

    /** Puts the elements that belong at positions from..to (inclusive) of the sorted array there, in order. */
    public static <T> void sort(T[] a, Comparator<? super T> cmp, int from, int to) {
        sort(a, 0, a.length, cmp, from, to);
    }

    private static <T> void sort(T[] a, int base, int n, Comparator<? super T> cmp, int from, int to) {
        while (true) {
            if (n < 7) {
                for (int m = base + 1; m < base + n; m++) {
                    for (int l = m; l > base && cmp.compare(a[l - 1], a[l]) > 0; l--) swap(a, l, l - 1);
                }
                return;
            }
            int m = base + n / 2;
            if (n > 7) {
                int l = base, h = base + n - 1;
                if (n > 40) {
                    int d = n / 8;
                    l = median(a, l, l + d, l + 2 * d, cmp);
                    m = median(a, m - d, m, m + d, cmp);
                    h = median(a, h - 2 * d, h - d, h, cmp);
                }
                m = median(a, l, m, h, cmp);
            }
            swap(a, base, m);
            // [base+1, pa): equal to the pivot; [pa, pb): less; (pc, pd]: greater; (pd, end): equal.
            int pa = base + 1, pb = pa, pc = base + n - 1, pd = pc;
            while (true) {
                int c;
                while (pb <= pc && (c = cmp.compare(a[pb], a[base])) <= 0) {
                    if (c == 0) swap(a, pa++, pb);
                    pb++;
                }
                while (pb <= pc && (c = cmp.compare(a[pc], a[base])) >= 0) {
                    if (c == 0) swap(a, pc, pd--);
                    pc--;
                }
                if (pb > pc) break;
                swap(a, pb++, pc--);
            }
            int end = base + n;
            int r = Math.min(pa - base, pb - pa);
            swapRuns(a, base, pb - r, r);
            r = Math.min(pd - pc, end - pd - 1);
            swapRuns(a, pb, end - r, r);
            int less = pb - pa;
            if (less > 1 && overlaps(base, less, from, to)) sort(a, base, less, cmp, from, to);
            int greater = pd - pc;
            if (greater <= 1 || !overlaps(end - greater, greater, from, to)) return;
            base = end - greater;
            n = greater;
        }
    }

    private static boolean overlaps(int start, int length, int from, int to) {
        return to >= start && from < start + length;
    }

    private static <T> int median(T[] a, int i, int j, int k, Comparator<? super T> cmp) {
        return cmp.compare(a[i], a[j]) < 0
                ? (cmp.compare(a[j], a[k]) < 0 ? j : cmp.compare(a[i], a[k]) < 0 ? k : i)
                : (cmp.compare(a[j], a[k]) > 0 ? j : cmp.compare(a[i], a[k]) < 0 ? i : k);
    }

    private static void swap(Object[] a, int i, int j) {
        Object t = a[i];
        a[i] = a[j];
        a[j] = t;
    }

    private static void swapRuns(Object[] a, int i, int j, int length) {
        for (int k = 0; k < length; k++) swap(a, i + k, j + k);
    }
}
