package io.cinnabar.command.scripting;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** The Lua debugger's breakpoints: lines, in the order they were set, at most 64 (LDB_BREAKPOINTS_MAX). */
final class Breakpoints {
    static final int MAX = 64;

    private final int[] lines = new int[MAX];
    private int count;

    boolean contains(int line) {
        for (int j = 0; j < count; j++) if (lines[j] == line) return true;
        return false;
    }

    int count() {
        return count;
    }

    int get(int j) {
        return lines[j];
    }

    void clear() {
        count = 0;
    }

    /** ldbAddBreakpoint: a line of the script (1..lastLine) not set yet, while there is room. */
    boolean add(long line, int lastLine) {
        if (line <= 0 || line > lastLine || contains((int) line) || count == MAX) return false;
        lines[count++] = (int) line;
        return true;
    }

    /**
     * ldbDelBreakpoint, whose memmove moves count-j bytes of the int array, not ints: deleting
     * any but the last breakpoint leaves the later ones partly moved, as in Redis.
     */
    boolean delete(long line) {
        for (int j = 0; j < count; j++) {
            if (lines[j] != line) continue;
            count--;
            ByteBuffer bytes = ByteBuffer.allocate(4 * MAX).order(ByteOrder.LITTLE_ENDIAN);
            bytes.asIntBuffer().put(lines);
            byte[] raw = bytes.array();
            System.arraycopy(raw, 4 * (j + 1), raw, 4 * j, count - j);
            bytes.asIntBuffer().get(lines);
            return true;
        }
        return false;
    }
}
