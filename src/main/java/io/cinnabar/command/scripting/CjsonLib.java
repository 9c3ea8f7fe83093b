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
    static final LuaValue NULL = new LuaUserdata(new Object() {
        /** lua-cjson's null is a light userdata holding C's NULL, which "%p" writes "(nil)". */
        @Override
        public String toString() {
            return "userdata: (nil)";
        }
    });
    /**
     * The library's settings, which scripts may change (cjson.encode_max_depth(n)...) and which
     * last, as in Redis, until SCRIPT FLUSH makes a new Lua state.
     */
    private static final class Settings {
        int encodeMaxDepth = 1000, decodeMaxDepth = 1000, encodeNumberPrecision = 14;
        /** encode_sparse_array's convert (0/1), ratio and safe. */
        int sparseConvert, sparseRatio = 2, sparseSafe = 10;
        /** 0: refused, 1: written ("nan", "inf"), 2: written as null. */
        int encodeInvalidNumbers;
        int decodeInvalidNumbers = 1, encodeKeepBuffer = 1;
    }

    private static final String[] BOOLEAN_OPTIONS = {"off", "on"};
    private static final String[] INVALID_NUMBER_OPTIONS = {"off", "on", "null"};

    static LuaTable table() {
        Settings cfg = new Settings();
        LuaTable t = new LuaTable();
        t.rawset("encode", fn(a -> {
            if (a.narg() != 1) throw new LuaError("bad argument #1 to 'encode' (expected 1 argument)");
            StringBuilder out = new StringBuilder();
            encode(a.arg1(), out, 0, cfg);
            return LuaValue.valueOf(out.toString().getBytes(StandardCharsets.ISO_8859_1));
        }));
        t.rawset("decode", fn(a -> {
            if (a.narg() != 1) throw new LuaError("bad argument #1 to 'decode' (expected 1 argument)");
            byte[] json = LuaToReply.bytes(ArgumentErrors.string(a, 1, "decode"));
            // lua-cjson's test for text that is not UTF-8: a NUL among the first two bytes.
            if (json.length >= 2 && (json[0] == 0 || json[1] == 0)) throw new LuaError("JSON parser does not support UTF-16 or UTF-32");
            return new Decoder(json, cfg).document();
        }));
        t.rawset("null", NULL);
        t.rawset("encode_keep_buffer", fn(a -> {
            arguments(a, 1, "encode_keep_buffer");
            return enumOption(a, 1, "encode_keep_buffer", BOOLEAN_OPTIONS, v -> cfg.encodeKeepBuffer = v, cfg.encodeKeepBuffer);
        }));
        t.rawset("encode_max_depth", fn(a -> {
            arguments(a, 1, "encode_max_depth");
            return integerOption(a, 1, "encode_max_depth", 1, Integer.MAX_VALUE, v -> cfg.encodeMaxDepth = v, cfg.encodeMaxDepth);
        }));
        t.rawset("decode_max_depth", fn(a -> {
            arguments(a, 1, "decode_max_depth");
            return integerOption(a, 1, "decode_max_depth", 1, Integer.MAX_VALUE, v -> cfg.decodeMaxDepth = v, cfg.decodeMaxDepth);
        }));
        t.rawset("encode_number_precision", fn(a -> {
            arguments(a, 1, "encode_number_precision");
            return integerOption(a, 1, "encode_number_precision", 1, 14, v -> cfg.encodeNumberPrecision = v, cfg.encodeNumberPrecision);
        }));
        t.rawset("encode_invalid_numbers", fn(a -> {
            arguments(a, 1, "encode_invalid_numbers");
            return enumOption(a, 1, "encode_invalid_numbers", INVALID_NUMBER_OPTIONS, v -> cfg.encodeInvalidNumbers = v, cfg.encodeInvalidNumbers);
        }));
        t.rawset("decode_invalid_numbers", fn(a -> {
            arguments(a, 1, "decode_invalid_numbers");
            return enumOption(a, 1, "decode_invalid_numbers", BOOLEAN_OPTIONS, v -> cfg.decodeInvalidNumbers = v, cfg.decodeInvalidNumbers);
        }));
        t.rawset("encode_sparse_array", fn(a -> {
            arguments(a, 3, "encode_sparse_array");
            return LuaValue.varargsOf(new LuaValue[] {
                enumOption(a, 1, "encode_sparse_array", BOOLEAN_OPTIONS, v -> cfg.sparseConvert = v, cfg.sparseConvert),
                integerOption(a, 2, "encode_sparse_array", 0, Integer.MAX_VALUE, v -> cfg.sparseRatio = v, cfg.sparseRatio),
                integerOption(a, 3, "encode_sparse_array", 0, Integer.MAX_VALUE, v -> cfg.sparseSafe = v, cfg.sparseSafe)});
        }));
        t.rawset("_NAME", "cjson");
        t.rawset("_VERSION", "2.1.0");
        return t;
    }

    /** lua-cjson's json_arg_init: at most max arguments. */
    private static void arguments(Varargs a, int max, String function) {
        if (a.narg() > max) throw new LuaError("bad argument #" + (max + 1) + " to '" + function + "' (found too many arguments)");
    }

    /** lua-cjson's json_integer_option: a new value in [min, max] unless nil; the value in force. */
    private static LuaValue integerOption(Varargs a, int i, String function, int min, int max, java.util.function.IntConsumer set, int current) {
        if (a.isnil(i)) return LuaValue.valueOf(current);
        int value = (int) (long) ArgumentErrors.number(a, i, function);
        // lua-cjson names argument 1 whichever is out of range.
        if (value < min || value > max) {
            throw new LuaError("bad argument #1 to '" + function + "' (expected integer between " + min + " and " + max + ")");
        }
        set.accept(value);
        return LuaValue.valueOf(value);
    }

    /**
     * lua-cjson's json_enum_option: true/false or one of options by name unless nil; the value
     * in force, as a boolean when it is off or on, else as its name.
     */
    private static LuaValue enumOption(Varargs a, int i, String function, String[] options, java.util.function.IntConsumer set, int current) {
        LuaValue v = a.arg(i);
        int value = current;
        if (v.isboolean()) {
            value = v.toboolean() ? 1 : 0;
        } else if (!v.isnil()) {
            String name = ArgumentErrors.string(a, i, function).tojstring();
            value = java.util.Arrays.asList(options).indexOf(name);
            if (value < 0) throw new LuaError("bad argument #" + i + " to '" + function + "' (invalid option '" + name + "')");
        }
        set.accept(value);
        return value <= 1 ? LuaValue.valueOf(value == 1) : LuaValue.valueOf(options[value]);
    }

    private static void encode(LuaValue v, StringBuilder out, int depth, Settings cfg) {
        switch (v.type()) {
            case LuaValue.TSTRING -> string(v.checkstring(), out);
            case LuaValue.TNUMBER -> number(v.todouble(), out, cfg);
            case LuaValue.TBOOLEAN -> out.append(v.toboolean() ? "true" : "false");
            case LuaValue.TNIL -> out.append("null");
            case LuaValue.TTABLE -> table(v, out, depth + 1, cfg);
            default -> {
                if (v == NULL) out.append("null");
                else throw new LuaError("Cannot serialise " + v.typename() + ": type not supported");
            }
        }
    }

    /** lua-cjson's json_append_number. */
    private static void number(double d, StringBuilder out, Settings cfg) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            switch (cfg.encodeInvalidNumbers) {
                case 0 -> throw new LuaError("Cannot serialise number: must not be NaN or Inf");
                case 2 -> {
                    out.append("null");
                    return;
                }
                default -> {
                    // Written as "nan" whatever its sign ("-nan" on some platforms otherwise).
                    if (Double.isNaN(d)) {
                        out.append("nan");
                        return;
                    }
                }
            }
        }
        out.append(CFormat.g(d, cfg.encodeNumberPrecision));
    }

    private static void table(LuaValue t, StringBuilder out, int depth, Settings cfg) {
        if (depth > cfg.encodeMaxDepth) throw new LuaError("Cannot serialise, excessive nesting (" + depth + ")");
        int length = arrayLength(t, cfg);
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
            else if (k.type() == LuaValue.TNUMBER) {
                out.append('"');
                number(k.todouble(), out, cfg);
                out.append('"');
            }
            else throw new LuaError("Cannot serialise " + k.typename() + ": table key must be a number or string");
            out.append(':');
            encode(n.arg(2), out, depth, cfg);
        }
        out.append('}');
    }

    /** lua-cjson's lua_array_length: n if the keys are exactly 1..n (sparse up to its ratio), -1 for an object. */
    private static int arrayLength(LuaValue t, Settings cfg) {
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
        if (cfg.sparseRatio > 0 && max > (long) items * cfg.sparseRatio && max > cfg.sparseSafe) {
            if (cfg.sparseConvert == 0) throw new LuaError("Cannot serialise table: excessively sparse array");
            return -1;
        }
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
        private final boolean invalidNumbers;
        private int depth;

        Decoder(byte[] b, Settings cfg) {
            this.b = b;
            this.maxDepth = cfg.decodeMaxDepth;
            this.invalidNumbers = cfg.decodeInvalidNumbers == 1;
        }

        LuaValue document() {
            LuaValue v = value();
            skipSpace();
            // lua-cjson reads a C string: a NUL ends the document.
            if (i < b.length && b[i] != 0) throw error("the end", token());
            return v;
        }

        private LuaError error(String expected, String found) {
            return new LuaError("Expected " + expected + " but found " + found + " at character " + (i + 1));
        }

        /**
         * lua-cjson's name for the token at i, which the caller did not expect: T_COMMA, T_NUMBER...
         * or the error reading it ("invalid token"), i then where that error is.
         */
        private String token() {
            if (i >= b.length || b[i] == 0) return "T_END";
            switch (b[i]) {
                case '{': return "T_OBJ_BEGIN";
                case '}': return "T_OBJ_END";
                case '[': return "T_ARR_BEGIN";
                case ']': return "T_ARR_END";
                case ',': return "T_COMMA";
                case ':': return "T_COLON";
                default: break;
            }
            int start = i;
            try {
                LuaValue v = scalar();
                i = start;
                if (v == NULL) return "T_NULL";
                return switch (v.type()) {
                    case LuaValue.TSTRING -> "T_STRING";
                    case LuaValue.TNUMBER -> "T_NUMBER";
                    default -> "T_BOOLEAN";
                };
            } catch (TokenError e) {
                return e.getMessage();
            }
        }

        /** A token lua-cjson could not read; its text names it in "but found ...". */
        private static final class TokenError extends RuntimeException {
            TokenError(String found) {
                super(found, null, false, false);
            }
        }

        private void skipSpace() {
            while (i < b.length && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) i++;
        }

        private LuaValue value() {
            skipSpace();
            if (i >= b.length || b[i] == 0) throw error("value", "T_END");
            byte c = b[i];
            if (c == '{') return object();
            if (c == '[') return array();
            if (c == '}' || c == ']' || c == ',' || c == ':') throw error("value", token());
            try {
                return scalar();
            } catch (TokenError e) {
                throw error("value", e.getMessage());
            }
        }

        /** A string, number, true, false or null at i, read; a TokenError at anything else. */
        private LuaValue scalar() {
            byte c = b[i];
            if (c == '"') return LuaValue.valueOf(str());
            if (c == '-' || (c >= '0' && c <= '9')) {
                if (!invalidNumbers && invalidNumber()) throw new TokenError("invalid number");
                return number();
            }
            if (word("true")) return LuaValue.TRUE;
            if (word("false")) return LuaValue.FALSE;
            if (word("null")) return NULL;
            // Infinity, NaN and "+1" as strtod reads them, when decode_invalid_numbers is on.
            if ((c == '+' || c == 'i' || c == 'I' || c == 'n' || c == 'N') && invalidNumbers && invalidNumber()) return number();
            throw new TokenError("invalid token");
        }

        private boolean word(String w) {
            if (i + w.length() > b.length) return false;
            for (int k = 0; k < w.length(); k++) if (b[i + k] != w.charAt(k)) return false;
            i += w.length();
            return true;
        }

        /** lua-cjson's json_is_invalid_number: a leading "+", hex, leading zeros, inf or nan. */
        private boolean invalidNumber() {
            int p = i;
            if (b[p] == '+') return true;
            if (b[p] == '-') p++;
            if (p < b.length && b[p] == '0') {
                int next = p + 1 < b.length ? b[p + 1] : 0;
                return (next | 0x20) == 'x' || (next >= '0' && next <= '9');
            }
            if (p >= b.length || b[p] <= '9') return false;
            return startsWithIgnoringCase(p, "inf") || startsWithIgnoringCase(p, "nan");
        }

        private boolean startsWithIgnoringCase(int p, String word) {
            if (p + word.length() > b.length) return false;
            for (int k = 0; k < word.length(); k++) {
                if (Character.toLowerCase((char) (b[p + k] & 0xff)) != word.charAt(k)) return false;
            }
            return true;
        }

        /** The number strtod reads here (fpconv_strtod), from the run of characters a number can hold. */
        private LuaValue number() {
            int end = i;
            while (end < b.length && isNumberChar(b[end])) end++;
            int[] read = new int[1];
            double d = CNumber.strtod(new String(b, i, end - i, StandardCharsets.ISO_8859_1), read);
            if (read[0] == 0) throw new TokenError("invalid number");
            i += read[0];
            return LuaValue.valueOf(d);
        }

        private static boolean isNumberChar(byte c) {
            return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '+' || c == '-' || c == '.' || c == '(' || c == ')' || c == '_';
        }

        private byte[] str() {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            i++;
            while (true) {
                if (i >= b.length) throw new TokenError("unexpected end of string");
                byte c = b[i++];
                if (c == '"') return out.toByteArray();
                if (c != '\\') {
                    out.write(c);
                    continue;
                }
                if (i >= b.length) throw new TokenError("invalid escape code");
                byte e = b[i++];
                switch (e) {
                    case 'b' -> out.write('\b');
                    case 'f' -> out.write('\f');
                    case 'n' -> out.write('\n');
                    case 'r' -> out.write('\r');
                    case 't' -> out.write('\t');
                    case 'u' -> {
                        if (i + 4 > b.length) throw new TokenError("invalid unicode escape code");
                        int cp = Integer.parseInt(new String(b, i, 4, StandardCharsets.ISO_8859_1), 16);
                        i += 4;
                        if (cp >= 0xD800 && cp < 0xDC00 && i + 6 <= b.length && b[i] == '\\' && b[i + 1] == 'u') {
                            int low = Integer.parseInt(new String(b, i + 2, 4, StandardCharsets.ISO_8859_1), 16);
                            i += 6;
                            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                        }
                        out.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
                    }
                    case '"', '\\', '/' -> out.write(e);
                    default -> {
                        // lua-cjson's escape2char knows no other escape; the error is at the backslash.
                        i -= 2;
                        throw new TokenError("invalid escape code");
                    }
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
                LuaValue key;
                try {
                    key = LuaValue.valueOf(str());
                } catch (TokenError e) {
                    throw error("object key string", e.getMessage());
                }
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
