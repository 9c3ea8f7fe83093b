package io.cinnabar.command.scripting;

/**
 * The sizes Lua 5.1's table ends with after t[1] = v1, ..., t[n] = vn into a new table, some of
 * the values nil: how Redis turns a RESP3 reply array with nulls into a table
 * (redisProtocolToLuaType_Array's lua_settable), whose "#" depends on them. A nil stored past the
 * array part still takes a node of the hash part (newkey, then the nil), and a node whose value is
 * nil is taken again by the next key that hashes there, so when the table rehashes, and to what,
 * depends on the keys' hash positions: ltable.c's newkey, getfreepos, rehash and resize for
 * integer keys, played through without the values.
 */
final class Lua51Stores {
    /** Array part size, hash part size (0: Lua's dummynode). */
    private int arraySize, nodeCount;
    /** Per node: its key (0: never used) and whether its value is not nil. */
    private int[] keys = new int[0];
    private boolean[] live = new boolean[0];
    /** getfreepos's cursor: every node at or above it has had a key. */
    private int lastFree;
    /** Per array slot: whether its value is not nil. */
    private boolean[] array = new boolean[0];

    private Lua51Stores() {}

    /** {array part size, hash part size} after storing present[0..n) as t[1..n]. */
    static int[] sizesAfter(boolean[] present, int n) {
        Lua51Stores t = new Lua51Stores();
        for (int k = 1; k <= n; k++) t.set(k, present[k - 1]);
        return new int[] {t.arraySize, t.nodeCount};
    }

    /** luaH_set then the value's store: the key is new to the table (each is stored once). */
    private void set(int key, boolean value) {
        int node = key <= arraySize ? -1 : newKey(key);
        if (node < 0) array[key - 1] = value; else live[node] = value;
    }

    /** ltable.c's newkey: the node the key now has, or -1 for the array slot a rehash gave it. */
    private int newKey(int key) {
        int mp = nodeCount == 0 ? -1 : mainPosition(key);
        if (mp < 0 || live[mp]) {
            int free = mp < 0 ? -1 : freePosition();
            if (free < 0) {
                rehash(key);
                return key <= arraySize ? -1 : newKey(key);
            }
            if (mainPosition(keys[mp]) != mp) {
                // The colliding key moves to the free node; the new one takes its main position.
                keys[free] = keys[mp];
                live[free] = true;
            } else {
                mp = free;
            }
        }
        keys[mp] = key;
        live[mp] = false;
        return mp;
    }

    private int freePosition() {
        while (lastFree-- > 0) {
            if (keys[lastFree] == 0) return lastFree;
        }
        lastFree = 0;
        return -1;
    }

    /** hashnum over the key as a double: the sum of its two 32-bit words, modulo (size - 1) | 1. */
    private int mainPosition(int key) {
        long bits = Double.doubleToRawLongBits(key);
        int sum = (int) bits + (int) (bits >>> 32);
        return Integer.remainderUnsigned(sum, (nodeCount - 1) | 1);
    }

    private void rehash(int extraKey) {
        int[] nums = new int[32];
        int total = 0;
        for (int k = 1; k <= arraySize; k++) {
            if (array[k - 1]) {
                nums[ceilLog2(k)]++;
                total++;
            }
        }
        for (int i = 0; i < nodeCount; i++) {
            if (live[i]) {
                nums[ceilLog2(keys[i])]++;
                total++;
            }
        }
        nums[ceilLog2(extraKey)]++;
        total++;
        // computesizes: the largest power of two more than half full.
        int a = 0, inArray = 0, size = 0;
        for (int i = 0, twoToI = 1; twoToI / 2 < total; i++, twoToI *= 2) {
            if (nums[i] > 0) {
                a += nums[i];
                if (a > twoToI / 2) {
                    size = twoToI;
                    inArray = a;
                }
            }
            if (a == total) break;
        }
        resize(size, total - inArray);
    }

    private void resize(int newArraySize, int hashEntries) {
        boolean[] oldArray = array;
        int oldArraySize = arraySize;
        int[] oldKeys = keys;
        boolean[] oldLive = live;
        int oldNodes = nodeCount;
        array = java.util.Arrays.copyOf(oldArray, Math.max(newArraySize, oldArraySize));
        // setnodevector: a power of two, or Lua's dummynode for none.
        nodeCount = hashEntries <= 1 ? hashEntries : Integer.highestOneBit(hashEntries - 1) << 1;
        keys = new int[nodeCount];
        live = new boolean[nodeCount];
        lastFree = nodeCount;
        arraySize = newArraySize;
        for (int k = newArraySize + 1; k <= oldArraySize; k++) {
            if (oldArray[k - 1]) set(k, true);
        }
        array = java.util.Arrays.copyOf(array, newArraySize);
        for (int i = oldNodes - 1; i >= 0; i--) {
            if (oldLive[i]) set(oldKeys[i], true);
        }
    }

    /** ceil(log2(k)) for k >= 1: the slice (2^(i-1), 2^i] k falls in. */
    private static int ceilLog2(int k) {
        return 32 - Integer.numberOfLeadingZeros(k - 1);
    }
}
