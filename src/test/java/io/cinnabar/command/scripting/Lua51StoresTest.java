package io.cinnabar.command.scripting;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** The sizes of a Lua 5.1 table after t[1..n] = values, some nil; redis-server 7.0.15's "#" checks them in LuaSemanticsIT. */
class Lua51StoresTest {
    private static int[] sizes(String pattern) {
        boolean[] present = new boolean[pattern.length()];
        for (int i = 0; i < present.length; i++) present[i] = pattern.charAt(i) == 'x';
        return Lua51Stores.sizesAfter(present, present.length);
    }

    /** Without holes every element ends in the array part, sized to the next power of two, as luaj presizes it. */
    @Test
    void withoutHolesTheArrayPartIsTheNextPowerOfTwo() {
        for (int n = 1; n <= 2000; n++) {
            boolean[] present = new boolean[n];
            Arrays.fill(present, true);
            int expected = n == 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
            assertArrayEquals(new int[] {expected, 0}, Lua51Stores.sizesAfter(present, n), "n=" + n);
        }
    }

    /** Worked through ltable.c by hand: a nil past the array part takes a node, and the next key's rehash shrinks the array. */
    @Test
    void nilsTakeNodesAndRehashesFollowThem() {
        // t[1] = nil: a rehash for key 1 makes the array part 1; t[2]: another, where only key 2
        // counts (nil values do not), to no array part and one node; t[3] collides on that node.
        assertArrayEquals(new int[] {0, 2}, sizes(".xx"));
        assertArrayEquals(new int[] {0, 1}, sizes(".x"));
        // The key of the nil being stored counts in the rehash it starts: 2 slots for one value.
        assertArrayEquals(new int[] {2, 0}, sizes("x."));
        assertArrayEquals(new int[] {4, 0}, sizes("xx.x"));
    }
}
