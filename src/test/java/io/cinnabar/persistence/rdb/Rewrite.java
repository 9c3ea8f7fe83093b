package io.cinnabar.persistence.rdb;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.TreeMap;

/** Writes back what a {@link Loaded} holds, as a save of those databases would. */
final class Rewrite {
    private Rewrite() {
    }

    static byte[] write(Loaded loaded, boolean compression, boolean checksum) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        RdbWriter w = new RdbWriter(bytes, compression, checksum);
        w.begin(RdbWriter.standardAux(1700000000L, 1234567L, false));
        for (byte[] code : loaded.functions) w.function(code);
        Map<Integer, java.util.List<Loaded.Key>> byDb = new TreeMap<>();
        for (Loaded.Key k : loaded.keys.values()) byDb.computeIfAbsent(k.db(), d -> new java.util.ArrayList<>()).add(k);
        for (Map.Entry<Integer, java.util.List<Loaded.Key>> db : byDb.entrySet()) {
            long expires = db.getValue().stream().filter(k -> k.expireAtMs() != -1).count();
            w.selectDb(db.getKey(), db.getValue().size(), expires);
            for (Loaded.Key k : db.getValue()) w.key(k.key(), k.value(), k.expireAtMs(), k.idle(), k.freq());
        }
        w.end();
        return bytes.toByteArray();
    }
}
