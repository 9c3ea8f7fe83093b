package io.cinnabar.keyspace;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Redis's DEBUG DIGEST-VALUE (debug.c xorObjectDigest): a SHA1-based, order-independent digest of
 * a value, equal for equal contents whatever the encoding. Types not covered yet return null.
 */
public final class ValueDigest {
    private ValueDigest() {}

    /** The 20-byte digest of value (mixing in whether it has a TTL), or null for an unsupported type. */
    public static byte[] of(Object value, boolean hasExpire) {
        return of(new byte[20], sha1(), value, hasExpire);
    }

    /**
     * DEBUG DIGEST: every database's id mixed in, then each key/value pair's digest (the key mixed
     * in before the value) XORed in, so the result does not depend on iteration order. 40 zeros
     * for an empty data set, as in Redis.
     */
    public static byte[] dataset(Keyspace keyspace) {
        byte[] result = new byte[20];
        MessageDigest sha = sha1();
        for (int i = 0; i < keyspace.databaseCount(); i++) {
            Database db = keyspace.db(i);
            if (db.size() == 0) continue;
            mix(sha, result, new byte[] {(byte) (i >>> 24), (byte) (i >>> 16), (byte) (i >>> 8), (byte) i});
            db.forEach(e -> {
                byte[] pair = new byte[20];
                mix(sha, pair, e.key());
                byte[] d = of(pair, sha, e.value(), e.expireAt() >= 0);
                if (d != null) xor(sha, result, d);
            });
        }
        return result;
    }

    private static byte[] of(byte[] digest, MessageDigest sha, Object value, boolean hasExpire) {
        int typeCode;
        if (value instanceof byte[]) typeCode = 0;
        else if (value instanceof ListValue) typeCode = 1;
        else if (value instanceof SetValue) typeCode = 2;
        else if (value instanceof ZSetValue) typeCode = 3;
        else if (value instanceof HashValue) typeCode = 4;
        else if (value instanceof StreamValue) typeCode = 6;
        else return null;
        mix(sha, digest, new byte[] {0, 0, 0, (byte) typeCode}); // htonl(o->type)
        if (value instanceof byte[]) {
            mix(sha, digest, (byte[]) value);
        } else if (value instanceof ListValue) {
            // Lists are ordered: each element is mixed into the running digest, head to tail.
            ListValue.Cursor c = ((ListValue) value).cursorAtEnd(true);
            if (c != null) {
                do {
                    mix(sha, digest, c.toArray());
                } while (c.next());
            }
        } else if (value instanceof SetValue) {
            ((SetValue) value).forEach(m -> xor(sha, digest, m));
        } else if (value instanceof ZSetValue) {
            // Like hash pairs: member and %.17g score mixed into a per-member digest, XORed in.
            ((ZSetValue) value).forEach((m, score) -> {
                byte[] member = new byte[20];
                mix(sha, member, m);
                mix(sha, member, io.cinnabar.util.DoubleFormat.g17(score).getBytes(StandardCharsets.US_ASCII));
                xor(sha, digest, member);
            });
        } else if (value instanceof StreamValue) {
            // Entries in order: "ms.seq", then each field and value (groups are not part of it).
            ((StreamValue) value).range(StreamId.MIN, StreamId.MAX, false, false, item -> {
                mix(sha, digest, (Long.toUnsignedString(item.id().ms) + "." + Long.toUnsignedString(item.id().seq))
                        .getBytes(StandardCharsets.US_ASCII));
                for (byte[] b : item.fieldsAndValues()) mix(sha, digest, b);
                return true;
            });
        } else {
            // Each field/value pair gets its own digest, XORed in so field order does not matter.
            ((HashValue) value).forEach((f, fo, fl, v, vo, vl) -> {
                byte[] pair = new byte[20];
                mix(sha, pair, java.util.Arrays.copyOfRange(f, fo, fo + fl));
                mix(sha, pair, java.util.Arrays.copyOfRange(v, vo, vo + vl));
                xor(sha, digest, pair);
            });
        }
        if (hasExpire) xor(sha, digest, "!!expire!!".getBytes(StandardCharsets.US_ASCII));
        return digest;
    }

    private static void xor(MessageDigest sha, byte[] digest, byte[] data) {
        byte[] h = sha.digest(data);
        for (int i = 0; i < 20; i++) digest[i] ^= h[i];
    }

    private static void mix(MessageDigest sha, byte[] digest, byte[] data) {
        xor(sha, digest, data);
        System.arraycopy(sha.digest(digest), 0, digest, 0, 20);
    }

    private static MessageDigest sha1() {
        try {
            return MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
