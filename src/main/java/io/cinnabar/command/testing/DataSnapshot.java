package io.cinnabar.command.testing;

import io.cinnabar.keyspace.DataCopy;

import java.util.List;

/**
 * The whole data set (every database's keys with their TTLs, and the function libraries) as it
 * was when {@link TestControls#snapshot()} took it, kept in memory apart from the live data:
 * restore it as often as wanted. Immutable; holds no reference into the live data.
 */
public final class DataSnapshot {
    final DataCopy keys;
    final List<byte[]> libraries;

    DataSnapshot(DataCopy keys, List<byte[]> libraries) {
        this.keys = keys;
        this.libraries = List.copyOf(libraries);
    }

    /** Keys held, in all databases. */
    public long keyCount() {
        return keys.keys();
    }
}
