package io.cinnabar.persistence.rdb;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Everything an RDB file holds, gathered by a visitor for assertions. */
final class Loaded implements RdbVisitor {
    record Key(int db, byte[] key, Object value, long expireAtMs, long idle, int freq) {
        String id() {
            return db + ":" + HexFormat.of().formatHex(key);
        }
    }

    final Map<String, byte[]> aux = new LinkedHashMap<>();
    final Map<String, Key> keys = new LinkedHashMap<>();
    final List<String> emptyKeys = new ArrayList<>();
    final List<byte[]> functions = new ArrayList<>();
    final List<long[]> resizes = new ArrayList<>();
    int version;

    static Loaded read(byte[] file, RdbLoadOptions options) throws IOException {
        return read(new ByteArrayInputStream(file), options);
    }

    static Loaded read(InputStream in, RdbLoadOptions options) throws IOException {
        Loaded l = new Loaded();
        l.version = new RdbReader(in, options).read(l);
        return l;
    }

    @Override
    public void aux(byte[] key, byte[] value) {
        aux.put(new String(key, java.nio.charset.StandardCharsets.ISO_8859_1), value);
    }

    @Override
    public void resizeDb(long keys, long expires) {
        resizes.add(new long[] {keys, expires});
    }

    @Override
    public void entry(int db, byte[] key, Object value, long expireAtMs, long idleSeconds, int freq) {
        Key k = new Key(db, key, value, expireAtMs, idleSeconds, freq);
        keys.put(k.id(), k);
    }

    @Override
    public void emptyKeySkipped(int db, byte[] key) {
        emptyKeys.add(new String(key, java.nio.charset.StandardCharsets.ISO_8859_1));
    }

    @Override
    public void function(byte[] code) {
        functions.add(code);
    }

    Key get(int db, String key) {
        return keys.get(db + ":" + HexFormat.of().formatHex(key.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1)));
    }
}
