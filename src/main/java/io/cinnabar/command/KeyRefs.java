package io.cinnabar.command;

import java.util.Arrays;

/** The keys found in a call: argv positions with their {@link KeyFlag} bits (Redis's getKeysResult). */
public final class KeyRefs implements CommandSpec.KeySink {
    private int[] positions = new int[4];
    private int[] flags = new int[4];
    private int size;

    @Override
    public void key(int position, int flagBits) {
        if (size == positions.length) {
            positions = Arrays.copyOf(positions, size * 2);
            flags = Arrays.copyOf(flags, size * 2);
        }
        positions[size] = position;
        flags[size++] = flagBits;
    }

    void clear() {
        size = 0;
    }

    public int size() { return size; }
    public int position(int i) { return positions[i]; }
    public int flags(int i) { return flags[i]; }
}
