package io.cinnabar.persistence.rdb;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Streams an RDB file (version 10, as Redis 7.0.15 writes it): {@link #begin}, then optionally
 * {@link #function}s, then per non-empty database {@link #selectDb} and its {@link #key}s, then
 * {@link #end}. The writer holds no reference to any database and no thread affinity: one thread
 * may prepare it and another feed it, one call at a time. Keys can also be encoded to bytes on
 * the thread that owns the data ({@link KeyEncoder}) and appended here later ({@link #encodedKey}).
 */
public final class RdbWriter {
    /** What the aux field "redis-ver" says; clients and tools compare it with the format version. */
    public static final String REDIS_VERSION = "7.0.15";

    private final RdbOutput out;
    private final boolean compression;
    private Runnable afterEachKey;
    private long keys;

    /**
     * compression is rdbcompression (LZF for strings over 20 bytes), checksum is rdbchecksum (when
     * off the trailer is eight zero bytes and loaders skip the check).
     */
    public RdbWriter(OutputStream out, boolean compression, boolean checksum) {
        this.out = new RdbOutput(out, compression, checksum);
        this.compression = compression;
    }

    /** A callback run after each key is written: rdb-key-save-delay sleeps in it. */
    public RdbWriter afterEachKey(Runnable hook) {
        this.afterEachKey = hook;
        return this;
    }

    /** The aux fields Redis 7.0 writes, in its order. */
    public static Map<String, String> standardAux(long ctimeSeconds, long usedMemory, boolean aofBase) {
        return standardAux(ctimeSeconds, usedMemory, aofBase, null, null, 0);
    }

    /** The same with the replication fields (written when a replication id is known). */
    public static Map<String, String> standardAux(long ctimeSeconds, long usedMemory, boolean aofBase,
                                                  Integer replStreamDb, String replId, long replOffset) {
        Map<String, String> aux = new LinkedHashMap<>();
        aux.put("redis-ver", REDIS_VERSION);
        aux.put("redis-bits", "64");
        aux.put("ctime", Long.toString(ctimeSeconds));
        aux.put("used-mem", Long.toString(usedMemory));
        if (replId != null) {
            aux.put("repl-stream-db", Integer.toString(replStreamDb == null ? 0 : replStreamDb));
            aux.put("repl-id", replId);
            aux.put("repl-offset", Long.toString(replOffset));
        }
        aux.put("aof-base", aofBase ? "1" : "0");
        return aux;
    }

    /** Writes the "REDIS0010" header and the aux fields in the map's order. */
    public void begin(Map<String, String> aux) throws IOException {
        out.write(("REDIS" + String.format("%04d", RdbType.RDB_VERSION)).getBytes(StandardCharsets.US_ASCII), 0, 9);
        for (Map.Entry<String, String> e : aux.entrySet()) {
            aux(e.getKey().getBytes(StandardCharsets.UTF_8), e.getValue().getBytes(StandardCharsets.UTF_8));
        }
    }

    public void aux(byte[] key, byte[] value) throws IOException {
        out.writeByte(RdbType.OPCODE_AUX);
        out.writeString(key);
        out.writeString(value);
    }

    /** A function library (its code, "#!lua name=..." and the body), before the databases. */
    public void function(byte[] code) throws IOException {
        out.writeByte(RdbType.OPCODE_FUNCTION2);
        out.writeString(code);
    }

    /** Starts database db with its key and TTL counts (RESIZEDB); Redis skips empty databases. */
    public void selectDb(int db, long keys, long expires) throws IOException {
        out.writeByte(RdbType.OPCODE_SELECTDB);
        out.writeLength(db);
        out.writeByte(RdbType.OPCODE_RESIZEDB);
        out.writeLength(keys);
        out.writeLength(expires);
    }

    /** One key; expireAtMs is -1 for none. */
    public void key(byte[] key, Object value, long expireAtMs) throws IOException {
        key(key, value, expireAtMs, -1, -1);
    }

    /**
     * One key with optional eviction data: idleSeconds (written under an LRU maxmemory-policy) and
     * freq 0..255 (under LFU); -1 omits either.
     */
    public void key(byte[] key, Object value, long expireAtMs, long idleSeconds, int freq) throws IOException {
        writeKey(out, key, value, expireAtMs, idleSeconds, freq);
        keyDone();
    }

    /**
     * Makes the bytes {@link #key} would write, wherever the value is safe to read (the thread that
     * owns the data, say), for {@link #encodedKey} to append later. Reuses its buffer and
     * compressor across keys; one thread at a time.
     */
    public static final class KeyEncoder {
        private final RdbOutput record;

        public KeyEncoder(boolean compression) {
            record = new RdbOutput(compression);
        }

        public byte[] encode(byte[] key, Object value, long expireAtMs, long idleSeconds, int freq) throws IOException {
            record.reset();
            writeKey(record, key, value, expireAtMs, idleSeconds, freq);
            return record.toByteArray();
        }
    }

    /** Appends a record made by a {@link KeyEncoder} (made with this writer's compression setting). */
    public void encodedKey(byte[] record) throws IOException {
        out.write(record, 0, record.length);
        keyDone();
    }

    private static void writeKey(RdbOutput o, byte[] key, Object value, long expireAtMs, long idleSeconds, int freq)
            throws IOException {
        if (expireAtMs != -1) {
            o.writeByte(RdbType.OPCODE_EXPIRETIME_MS);
            o.writeLittleEndian(expireAtMs, 8);
        }
        if (idleSeconds >= 0) {
            o.writeByte(RdbType.OPCODE_IDLE);
            o.writeLength(idleSeconds);
        }
        if (freq >= 0) {
            o.writeByte(RdbType.OPCODE_FREQ);
            o.writeByte(Math.min(freq, 255));
        }
        o.writeByte(RdbValues.typeOf(value));
        o.writeString(key);
        RdbValues.write(o, value);
    }

    private void keyDone() {
        keys++;
        if (afterEachKey != null) afterEachKey.run();
    }

    /** Writes EOF and the CRC64 trailer and flushes; the stream stays open. */
    public void end() throws IOException {
        out.writeByte(RdbType.OPCODE_EOF);
        out.writeLittleEndian(out.crc(), 8);
        out.flush();
    }

    public long bytesWritten() {
        return out.bytesWritten();
    }

    public long keysWritten() {
        return keys;
    }

    /** Whether LZF is on: a {@link KeyEncoder} feeding this writer should use the same setting. */
    public boolean compression() {
        return compression;
    }
}
