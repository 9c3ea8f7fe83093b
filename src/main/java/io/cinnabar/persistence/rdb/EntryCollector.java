package io.cinnabar.persistence.rdb;

import io.cinnabar.keyspace.BytesSet;
import io.cinnabar.util.Numbers;

import java.util.Arrays;

/**
 * Gathers the entries of a listpack, ziplist or zipmap as separate arrays (integers formatted as
 * Redis's lpGet does), with what the loader needs to choose an encoding: the longest entry and
 * the total bytes. When asked it refuses a repeated entry among every {@code stride}-th one (the
 * fields of a hash, the members of a sorted set), the duplicate check of Redis's sanitizer.
 */
final class EntryCollector implements Listpack.EntryVisitor, Zipmap.PairVisitor {
    private byte[][] items = new byte[16][];
    private int size;
    private long maxLength;
    private long totalLength;
    private final int stride;
    private final BytesSet seen;

    /** stride: 1 for plain lists, 2 for pairs; checkDuplicates among entries 0, stride, 2*stride... */
    EntryCollector(int stride, boolean checkDuplicates) {
        this.stride = stride;
        this.seen = checkDuplicates ? new BytesSet() : null;
    }

    int size() {
        return size;
    }

    byte[][] items() {
        return items;
    }

    long maxLength() {
        return maxLength;
    }

    long totalLength() {
        return totalLength;
    }

    void clear() {
        Arrays.fill(items, 0, size, null);
        size = 0;
    }

    @Override
    public boolean string(byte[] buf, int off, int len) {
        return add(Arrays.copyOfRange(buf, off, off + len));
    }

    @Override
    public boolean integer(long value) {
        return add(Numbers.toBytes(value));
    }

    @Override
    public boolean pair(byte[] b, int fieldOff, int fieldLen, int valueOff, int valueLen) {
        return string(b, fieldOff, fieldLen) && string(b, valueOff, valueLen);
    }

    private boolean add(byte[] item) {
        if (seen != null && size % stride == 0 && !seen.add(item)) return false;
        if (size == items.length) items = Arrays.copyOf(items, size * 2);
        items[size++] = item;
        maxLength = Math.max(maxLength, item.length);
        totalLength += item.length;
        return true;
    }
}
