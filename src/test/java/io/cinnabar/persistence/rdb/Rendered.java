package io.cinnabar.persistence.rdb;

import io.cinnabar.keyspace.HashValue;
import io.cinnabar.keyspace.ListValue;
import io.cinnabar.keyspace.SetValue;
import io.cinnabar.keyspace.TypedValue;
import io.cinnabar.keyspace.ValueType;
import io.cinnabar.keyspace.ZSetValue;
import io.cinnabar.util.DoubleFormat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * A value as the fixture files describe it: type, encoding and items as Redis's commands return
 * them (GET, LRANGE, SMEMBERS sorted, ZRANGE WITHSCORES, HGETALL sorted by field). Items are hex,
 * a long item "~len:sha256-prefix", a long list of items "#count:sha256-prefix" over each item's
 * 4-byte big-endian length and bytes. Compared as text, so a mismatch shows where it is.
 */
final class Rendered {
    private Rendered() {
    }

    static String type(Object value) {
        return ValueType.of(value).typeName();
    }

    /** OBJECT ENCODING of a string as Redis reports it after loading. */
    static String encoding(Object value) {
        if (value instanceof TypedValue t) return t.encoding();
        byte[] s = (byte[]) value;
        if (s.length <= 20 && io.cinnabar.util.Numbers.isLong(s)) return "int";
        return s.length <= 44 ? "embstr" : "raw";
    }

    static List<byte[]> items(Object value) {
        List<byte[]> out = new ArrayList<>();
        if (value instanceof byte[] s) {
            out.add(s);
        } else if (value instanceof ListValue l) {
            for (ListValue.Cursor c = l.cursorAtEnd(true); c != null; ) {
                out.add(c.toArray());
                if (!c.next()) break;
            }
        } else if (value instanceof SetValue s) {
            s.forEach(out::add);
            out.sort(Arrays::compareUnsigned);
        } else if (value instanceof ZSetValue z) {
            z.forEach((m, score) -> {
                out.add(m);
                out.add(DoubleFormat.reply(score).getBytes(StandardCharsets.US_ASCII));
            });
        } else if (value instanceof HashValue h) {
            List<byte[][]> pairs = new ArrayList<>();
            byte[][] flat = h.toPairs();
            for (int i = 0; i < flat.length; i += 2) pairs.add(new byte[][] {flat[i], flat[i + 1]});
            pairs.sort((a, b) -> {
                int c = Arrays.compareUnsigned(a[0], b[0]);
                return c != 0 ? c : Arrays.compareUnsigned(a[1], b[1]);
            });
            for (byte[][] p : pairs) {
                out.add(p[0]);
                out.add(p[1]);
            }
        }
        return out;
    }

    static String itemsText(Object value) {
        List<byte[]> items = items(value);
        StringBuilder sb = new StringBuilder();
        for (byte[] item : items) {
            if (sb.length() > 0) sb.append(',');
            sb.append(item.length <= 64 ? HexFormat.of().formatHex(item)
                    : "~" + item.length + ":" + sha256Prefix(List.of(item), false));
        }
        if (sb.length() > 2048) return "#" + items.size() + ":" + sha256Prefix(items, true);
        return sb.toString();
    }

    private static String sha256Prefix(List<byte[]> items, boolean framed) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (byte[] item : items) {
                if (framed) {
                    md.update(new byte[] {(byte) (item.length >>> 24), (byte) (item.length >>> 16),
                        (byte) (item.length >>> 8), (byte) item.length});
                }
                md.update(item);
            }
            return HexFormat.of().formatHex(md.digest()).substring(0, 32);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** "type encoding items" for comparisons. */
    static String describe(Object value) {
        return type(value) + " " + encoding(value) + " " + itemsText(value);
    }
}
