package io.cinnabar.command.scripting;

import io.cinnabar.protocol.Reply;
import io.cinnabar.util.BinaryText;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

import java.util.ArrayList;
import java.util.List;

/**
 * A script's return value as a reply, by Redis's luaReplyToRedisReply rules: numbers truncated
 * to integers, {err=...} and {ok=...} tables, arrays up to the first nil, booleans as 1/nil in
 * RESP2 and, after redis.setresp(3), {map=...}, {set=...}, {double=...}, {big_number=...}.
 */
final class LuaToReply {
    private LuaToReply() {}

    /** Nesting past which a returned table is answered "reached lua stack limit", as Redis's Lua stack runs out. */
    private static final int MAX_DEPTH = 1000;

    static void write(LuaValue v, Reply out, int scriptResp, NestedErrors errors) {
        write(v, out, scriptResp, 0, errors);
    }

    private static void write(LuaValue v, Reply out, int scriptResp, int depth, NestedErrors errors) {
        if (depth > MAX_DEPTH) {
            out.error("ERR reached lua stack limit");
            errors.written("ERR reached lua stack limit", false);
            return;
        }
        switch (v.type()) {
            case LuaValue.TSTRING -> out.bulk(bytes(v.checkstring()));
            case LuaValue.TBOOLEAN -> {
                if (scriptResp == 2) {
                    if (v.toboolean()) out.integer(1); else out.nullBulk();
                } else {
                    out.bool(v.toboolean());
                }
            }
            case LuaValue.TNUMBER -> out.integer(CFormat.toLong(v.todouble()));
            case LuaValue.TTABLE -> table(v, out, scriptResp, depth + 1, errors);
            default -> out.nullBulk();
        }
    }

    private static void table(LuaValue t, Reply out, int resp, int depth, NestedErrors errors) {
        LuaValue err = t.rawget(ReplyFields.ERR);
        if (err.type() == LuaValue.TSTRING) {
            String text = oneLine(cText(err));
            out.error(text);
            errors.written(text, LuaErrors.alreadyCounted(t));
            return;
        }
        LuaValue ok = t.rawget(ReplyFields.OK);
        if (ok.type() == LuaValue.TSTRING) {
            out.simple(oneLine(cText(ok)));
            return;
        }
        LuaValue d = t.rawget(ReplyFields.DOUBLE);
        if (d.type() == LuaValue.TNUMBER) {
            out.doubleValue(d.todouble());
            return;
        }
        LuaValue big = t.rawget(ReplyFields.BIG_NUMBER);
        if (big.type() == LuaValue.TSTRING) {
            out.bigNumber(oneLine(text(big)));
            return;
        }
        LuaValue verbatim = t.rawget(ReplyFields.VERBATIM_STRING);
        if (verbatim.istable()) {
            LuaValue format = verbatim.rawget(ReplyFields.FORMAT), string = verbatim.rawget(ReplyFields.STRING);
            if (format.type() == LuaValue.TSTRING && string.type() == LuaValue.TSTRING) {
                out.verbatim(format.tojstring(), bytes(string.checkstring()));
                return;
            }
        }
        LuaValue map = t.rawget(ReplyFields.MAP);
        if (map.istable()) {
            List<LuaValue> pairs = entries(map);
            out.map(pairs.size() / 2);
            for (LuaValue x : pairs) write(x, out, resp, depth, errors);
            return;
        }
        LuaValue set = t.rawget(ReplyFields.SET);
        if (set.istable()) {
            List<LuaValue> pairs = entries(set);
            out.set(pairs.size() / 2);
            for (int i = 0; i < pairs.size(); i += 2) write(pairs.get(i), out, resp, depth, errors);
            return;
        }
        int n = 0;
        while (!t.rawget(n + 1).isnil()) n++;
        out.array(n);
        for (int i = 1; i <= n; i++) write(t.rawget(i), out, resp, depth, errors);
    }

    /** Key, value, key, value... in next() order. */
    private static List<LuaValue> entries(LuaValue t) {
        List<LuaValue> out = new ArrayList<>();
        LuaValue k = LuaValue.NIL;
        while (true) {
            Varargs n = t.next(k);
            if ((k = n.arg1()).isnil()) break;
            out.add(k);
            out.add(n.arg(2));
        }
        return out;
    }

    static byte[] bytes(LuaString s) {
        byte[] b = new byte[s.length()];
        s.copyInto(0, b, 0, b.length);
        return b;
    }

    /** A Lua string's bytes as a reply's text keeps them (luaj's tojstring decodes them as UTF-8, lossily). */
    static String text(LuaValue v) {
        if (v.type() != LuaValue.TSTRING) return v.tojstring();
        LuaString s = v.checkstring();
        return BinaryText.decode(s.m_bytes, s.m_offset, s.m_length);
    }

    /**
     * A string as Redis takes an error's or a status's text from Lua (sdsnew of lua_tostring,
     * or a "%s"): up to its first NUL byte.
     */
    static String cText(LuaValue v) {
        if (v.type() != LuaValue.TSTRING) return v.tojstring();
        LuaString s = v.checkstring();
        int n = s.indexOf((byte) 0, 0);
        return BinaryText.decode(s.m_bytes, s.m_offset, n < 0 ? s.m_length : n);
    }

    private static String oneLine(String s) {
        return s.replace('\r', ' ').replace('\n', ' ');
    }
}
