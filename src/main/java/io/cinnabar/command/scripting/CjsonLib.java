package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaUserdata;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import static io.cinnabar.command.scripting.RedisApi.fn;

/** The lua-cjson library ("cjson") Redis bundles: encode and decode with its rules and errors. */
final class CjsonLib {
    private CjsonLib() {}

    /** cjson.null: what JSON null decodes to and encodes from. */
    static final LuaValue NULL = new LuaUserdata(new Object());
    /** The library's settings, which scripts may change (cjson.encode_max_depth(n)...), as in lua-cjson. */
    private static final class Settings {
        int encodeMaxDepth = 1000, decodeMaxDepth = 1000;
        boolean encodeInvalidNumbers;
    }

    static LuaTable table() {
        Settings cfg = new Settings();
        LuaTable t = new LuaTable();
        t.rawset("encode", fn(a -> {
            if (a.narg() != 1) throw new LuaError("bad argument #1 to 'encode' (expected 1 argument)");
            StringBuilder out = new StringBuilder();
            encode(a.arg1(), out, 0, cfg);
            return LuaValue.valueOf(out.toString().getBytes(StandardCharsets.ISO_8859_1));
        }));
        t.rawset("decode", fn(a -> new Decoder(LuaToReply.bytes(a.checkstring(1)), cfg.decodeMaxDepth).document()));
        t.rawset("null", NULL);
        t.rawset("encode_keep_buffer", fn(a -> LuaValue.TRUE));
        t.rawset("encode_max_depth", fn(a -> {
            if (!a.isnoneornil(1)) cfg.encodeMaxDepth = a.checkint(1);
            return LuaValue.valueOf(cfg.encodeMaxDepth);
        }));
        t.rawset("decode_max_depth", fn(a -> {
            if (!a.isnoneornil(1)) cfg.decodeMaxDepth = a.checkint(1);
            return LuaValue.valueOf(cfg.decodeMaxDepth);
        }));
        t.rawset("encode_number_precision", fn(a -> LuaValue.valueOf(14)));
        t.rawset("encode_invalid_numbers", fn(a -> {
            if (!a.isnoneornil(1)) cfg.encodeInvalidNumbers = a.arg1().toboolean();
            return LuaValue.valueOf(cfg.encodeInvalidNumbers);
        }));
        t.rawset("decode_invalid_numbers", fn(a -> LuaValue.TRUE));
        t.rawset("encode_sparse_array", fn(a -> LuaValue.varargsOf(LuaValue.FALSE, LuaValue.valueOf(2), LuaValue.valueOf(10))));
        t.rawset("_NAME", "cjson");
        t.rawset("_VERSION", "2.1.0");
        return t;
    }

    private static void encode(LuaValue v, StringBuilder out, int depth, Settings cfg) {
        switch (v.type()) {
            case LuaValue.TSTRING -> string(v.checkstring(), out);
            case LuaValue.TNUMBER -> {
                double d = v.todouble();
                if ((Double.isNaN(d) || Double.isInfinite(d)) && !cfg.encodeInvalidNumbers) {
                    throw new LuaError("Cannot serialise number: must not be NaN or Inf");
                }
                out.append(CFormat.g(d, 14));
            }
            case LuaValue.TBOOLEAN -> out.append(v.toboolean() ? "true" : "false");
            case LuaValue.TNIL -> out.append("null");
            case LuaValue.TTABLE -> table(v, out, depth + 1, cfg);
            default -> {
                if (v == NULL) out.append("null");
                else throw new LuaError("Cannot serialise " + v.typename() + ": type not supported");
            }
        }
    }

    private static void table(LuaValue t, StringBuilder out, int depth, Settings cfg) {
        if (depth > cfg.encodeMaxDepth) throw new LuaError("Cannot serialise, excessive nesting (" + depth + ")");
        int length = arrayLength(t);
        if (length > 0) {
            out.append('[');
            for (int i = 1; i <= length; i++) {
                if (i > 1) out.append(',');
                encode(t.rawget(i), out, depth, cfg);
            }
            out.append(']');
            return;
        }
        out.append('{');
        boolean first = true;
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs n = t.next(k);
            if ((k = n.arg1()).isnil()) break;
            if (!first) out.append(',');
            first = false;
            if (k.type() == LuaValue.TSTRING) string(k.checkstring(), out);
            else if (k.type() == LuaValue.TNUMBER) string(LuaValue.valueOf(CFormat.g(k.todouble(), 14)).checkstring(), out);
            else throw new LuaError("Cannot serialise " + k.typename() + ": table key must be a number or string");
            out.append(':');
            encode(n.arg(2), out, depth, cfg);
        }
        out.append('}');
    }

    /** lua-cjson's lua_array_length: n if the keys are exactly 1..n (sparse up to its ratio), -1 for an object. */
    private static int arrayLength(LuaValue t) {
        int max = 0, items = 0;
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs n = t.next(k);
            if ((k = n.arg1()).isnil()) break;
            if (k.type() == LuaValue.TNUMBER) {
                double d = k.todouble();
                if (d == Math.floor(d) && d >= 1) {
                    if (d > max) max = (int) d;
                    items++;
                    continue;
                }
            }
            return -1;
        }
        if (max > 10 && max > items * 2) throw new LuaError("Cannot serialise table: excessively sparse array");
        return items == 0 ? -1 : max;
    }

    private static void string(LuaString s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            int c = s.luaByte(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '/' -> out.append("\\/");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x7f) out.append(String.format("\\u%04x", c));
                    else out.append((char) c); // bytes as ISO-8859-1 chars, re-encoded as bytes
                }
            }
        }
        out.append('"');
    }

    /** A JSON document to Lua values; errors in lua-cjson's words. */
    private static final class Decoder {
        private final byte[] b;
        private int i;
        private final int maxDepth;
        private int depth;

        Decoder(byte[] b, int maxDepth) {
            this.b = b;
            this.maxDepth = maxDepth;
        }

        LuaValue document() {
            LuaValue v = value();
            skipSpace();
            if (i < b.length) throw error("the end", token());
            return v;
        }

        private LuaError error(String expected, String found) {
            return new LuaError("Expected " + expected + " but found " + found + " at character " + (i + 1));
        }

        private String token() {
            if (i >= b.length) return "T_END";
            return "invalid token";
        }

        private void skipSpace() {
            while (i < b.length && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) i++;
        }

        private LuaValue value() {
            skipSpace();
            if (i >= b.length) throw error("value", "T_END");
            byte c = b[i];
            if (c == '{') return object();
            if (c == '[') return array();
            if (c == '"') return LuaValue.valueOf(str());
            if (c == '-' || (c >= '0' && c <= '9')) return number();
            if (word("true")) return LuaValue.TRUE;
            if (word("false")) return LuaValue.FALSE;
            if (word("null")) return NULL;
            throw error("value", "invalid token");
        }

        private boolean word(String w) {
            if (i + w.length() > b.length) return false;
            for (int k = 0; k < w.length(); k++) if (b[i + k] != w.charAt(k)) return false;
            i += w.length();
            return true;
        }

        private LuaValue number() {
            int start = i;
            while (i < b.length && "+-0123456789.eE".indexOf(b[i]) >= 0) i++;
            try {
                return LuaValue.valueOf(Double.parseDouble(new String(b, start, i - start, StandardCharsets.ISO_8859_1)));
            } catch (NumberFormatException e) {
                i = start;
                throw error("value", "invalid number");
            }
        }

        private byte[] str() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            i++;
            while (true) {
                if (i >= b.length) throw error("value", "unexpected end of string");
                byte c = b[i++];
                if (c == '"') return out.toByteArray();
                if (c != '\\') {
                    out.write(c);
                    continue;
                }
                if (i >= b.length) throw error("value", "invalid escape code");
                byte e = b[i++];
                switch (e) {
                    case 'b' -> out.write('\b');
                    case 'f' -> out.write('\f');
                    case 'n' -> out.write('\n');
                    case 'r' -> out.write('\r');
                    case 't' -> out.write('\t');
                    case 'u' -> {
                        if (i + 4 > b.length) throw error("value", "invalid unicode escape code");
                        int cp = Integer.parseInt(new String(b, i, 4, StandardCharsets.ISO_8859_1), 16);
                        i += 4;
                        if (cp >= 0xD800 && cp < 0xDC00 && i + 6 <= b.length && b[i] == '\\' && b[i + 1] == 'u') {
                            int low = Integer.parseInt(new String(b, i + 2, 4, StandardCharsets.ISO_8859_1), 16);
                            i += 6;
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                        }
                        out.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
                    }
                    default -> out.write(e);
                }
            }
        }

        private LuaValue array() {
            if (++depth > maxDepth) throw new LuaError("Found too many nested data structures (" + depth + ") at character " + (i + 1));
            i++;
            LuaTable t = new LuaTable();
            skipSpace();
            if (i < b.length && b[i] == ']') {
                i++;
                depth--;
                return t;
            }
            for (int n = 1; ; n++) {
                t.rawset(n, value());
                skipSpace();
                if (i < b.length && b[i] == ',') {
                    i++;
                    continue;
                }
                if (i < b.length && b[i] == ']') {
                    i++;
                    depth--;
                    return t;
                }
                throw error("comma or array end", token());
            }
        }

        private LuaValue object() {
            if (++depth > maxDepth) throw new LuaError("Found too many nested data structures (" + depth + ") at character " + (i + 1));
            i++;
            LuaTable t = new LuaTable();
            skipSpace();
            if (i < b.length && b[i] == '}') {
                i++;
                depth--;
                return t;
            }
            while (true) {
                skipSpace();
                if (i >= b.length || b[i] != '"') throw error("object key string", token());
                LuaValue key = LuaValue.valueOf(str());
                skipSpace();
                if (i >= b.length || b[i] != ':') throw error("colon", token());
                i++;
                t.rawset(key, value());
                skipSpace();
                if (i < b.length && b[i] == ',') {
                    i++;
                    continue;
                }
                if (i < b.length && b[i] == '}') {
                    i++;
                    depth--;
                    return t;
                }
                throw error("comma or object end", token());
            }
        }
    }
}
