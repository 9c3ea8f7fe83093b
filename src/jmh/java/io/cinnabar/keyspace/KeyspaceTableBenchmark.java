package io.cinnabar.keyspace;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * The keyspace's hash tables at a million keys: the database's own table and the hashtable
 * encodings of hashes and sets. Probes are fresh copies of the stored keys in a shuffled order,
 * as decoded requests are, so every hit compares bytes and most touch a cold cache line.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
public class KeyspaceTableBenchmark {
    private static final int KEYS = 1_000_000;
    private static final byte[] VALUE = new byte[32];

    /** Which table; each runs in a fork of its own, so the adapter below stays monomorphic. */
    @Param({"Database", "BytesMap", "BytesSet"})
    public String table;

    private Table under;
    private byte[][] hits;
    private byte[][] misses;
    private int next;

    /** The operations measured, on whichever table is under test. */
    private interface Table {
        boolean contains(byte[] key);

        void insert(byte[] key);

        void delete(byte[] key);
    }

    private static Table create(String name) {
        switch (name) {
            case "Database": {
                Database db = new Keyspace(1).db(0);
                return new Table() {
                    public boolean contains(byte[] key) { return db.lookup(key) != null; }
                    public void insert(byte[] key) { db.set(key, VALUE); }
                    public void delete(byte[] key) { db.delete(key); }
                };
            }
            case "BytesMap": {
                BytesMap<byte[]> map = new BytesMap<>();
                return new Table() {
                    public boolean contains(byte[] key) { return map.get(key) != null; }
                    public void insert(byte[] key) { map.put(key, VALUE); }
                    public void delete(byte[] key) { map.remove(key); }
                };
            }
            case "BytesSet": {
                BytesSet set = new BytesSet();
                return new Table() {
                    public boolean contains(byte[] key) { return set.contains(key); }
                    public void insert(byte[] key) { set.add(key); }
                    public void delete(byte[] key) { set.remove(key); }
                };
            }
            default:
                throw new IllegalArgumentException(name);
        }
    }

    @Setup
    public void setUp() {
        under = create(table);
        hits = new byte[KEYS][];
        misses = new byte[KEYS][];
        for (int i = 0; i < KEYS; i++) {
            byte[] key = key("key:", i);
            under.insert(key);
            hits[i] = key.clone();
            misses[i] = key("nokey:", i);
        }
        Random random = new Random(42);
        shuffle(hits, random);
        shuffle(misses, random);
    }

    private static byte[] key(String prefix, int i) {
        return String.format("%s%07d", prefix, i).getBytes(StandardCharsets.US_ASCII);
    }

    private static void shuffle(byte[][] a, Random random) {
        for (int i = a.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            byte[] t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }

    private int nextIndex() {
        int i = next;
        next = i + 1 == KEYS ? 0 : i + 1;
        return i;
    }

    @Benchmark
    public boolean lookupHit() {
        return under.contains(hits[nextIndex()]);
    }

    @Benchmark
    public boolean lookupMiss() {
        return under.contains(misses[nextIndex()]);
    }

    /** An absent key goes in and out again, so the table stays at a million keys. */
    @Benchmark
    public void insertDelete() {
        byte[] key = misses[nextIndex()];
        under.insert(key);
        under.delete(key);
    }

    /** Hits must hit and misses miss, or the scores above mean nothing. */
    @TearDown
    public void check() {
        if (!under.contains(hits[0]) || under.contains(misses[0])) throw new IllegalStateException(table);
    }
}
