package io.cinnabar.persistence.rdb;

import java.io.IOException;

/**
 * What {@link RdbReader} finds in a file, in file order. Methods may throw to stop the load (for
 * example a database index beyond the configured count, which Redis treats as fatal).
 */
public interface RdbVisitor {
    /** An AUX field; unknown ones are to be ignored, as Redis's contract says. */
    default void aux(byte[] key, byte[] value) throws IOException {
    }

    /** Later entries belong to database db (0 until the first SELECTDB). */
    default void selectDb(int db) throws IOException {
    }

    /** A sizing hint for the current database. */
    default void resizeDb(long keys, long expires) throws IOException {
    }

    /**
     * One key. value is a byte[] for strings, else a keyspace value object (ListValue, SetValue,
     * ZSetValue, HashValue). expireAtMs is -1 without a TTL and may lie in the past: dropping
     * expired keys is the caller's call (Redis keeps them in AOF preambles and on replicas).
     * idleSeconds (LRU) and freq (LFU) are -1 when the file has none for this key.
     */
    void entry(int db, byte[] key, Object value, long expireAtMs, long idleSeconds, int freq) throws IOException;

    /** A key whose collection was empty: Redis skips it ("rdbLoadObject skipping empty key"). */
    default void emptyKeySkipped(int db, byte[] key) throws IOException {
    }

    /** A function library's code (FUNCTION2, or the 7.0 release candidates' FUNCTION converted). */
    default void function(byte[] code) throws IOException {
    }
}
