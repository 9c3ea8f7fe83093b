package io.cinnabar.command.scripting;

import io.cinnabar.command.NestedReply;
import io.cinnabar.util.BinaryText;
import io.cinnabar.util.DoubleFormat;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * The reply of a command run by redis.call, built as Lua values directly, by Redis's
 * conversion rules: status -> {ok=...}, error -> {err=...}, nil bulk/array -> false (RESP2) or
 * nil (RESP3), RESP3 map/set/double/big number/verbatim -> {map=...}, {set=...}, {double=...}...
 */
final class LuaReplyBuilder implements NestedReply {
    /** An aggregate being filled: its table and how many values it still expects. */
    private static final class Frame {
        final LuaTable target;
        final int kind; // 0 array, 1 map, 2 set, 3 ignored (attribute)
        final int size;
        int remaining;
        int index = 1;
        LuaValue pendingKey;
        /** An array that got a nil (a RESP3 null). */
        boolean holes;

        Frame(LuaTable target, int kind, int size) {
            this.target = target;
            this.kind = kind;
            this.size = size;
            this.remaining = size;
        }
    }

    private static final LuaString OK_TEXT = LuaString.valueOf("OK");

    private final int protocol;
    /** Open aggregates; created for the first one (most replies are scalars). */
    private ArrayDeque<Frame> stack;
    private LuaValue result = LuaValue.NIL;
    /** Values still to skip: an attribute's pairs, which scripts do not see. */
    private int skipping;

    LuaReplyBuilder(int protocol) {
        this.protocol = protocol;
    }

    /** The whole reply once complete. */
    LuaValue result() {
        return result;
    }

    @Override
    public void discard() {
        stack = null;
        result = LuaValue.NIL;
        skipping = 0;
    }

    private void value(LuaValue v) {
        if (skipping > 0) {
            skipping--;
            return;
        }
        while (true) {
            Frame f = stack == null ? null : stack.peek();
            if (f == null) {
                result = v;
                return;
            }
            switch (f.kind) {
                case 0 -> {
                    f.holes |= v.isnil();
                    f.target.rawset(f.index++, v);
                }
                case 1 -> {
                    if (f.pendingKey == null) {
                        f.pendingKey = v;
                        return; // a key alone does not complete an element
                    }
                    f.target.rawset(f.pendingKey, v);
                    f.pendingKey = null;
                }
                default -> f.target.rawset(v, LuaValue.TRUE);
            }
            if (--f.remaining > 0) return;
            stack.pop();
            if (f.holes) Lua51Tables.layOutAsStored(f.target, f.size);
            v = f.kind == 0 ? f.target : wrap(f.kind == 1 ? ReplyFields.MAP : ReplyFields.SET, f.target);
        }
    }

    private void aggregate(int kind, int n) {
        if (skipping > 0) {
            // Inside an attribute: the aggregate's own elements are skipped too.
            skipping += (kind == 1 ? 2 * n : n) - 1;
            return;
        }
        // An array's part made at once as large as Lua 5.1's stores of its elements one by one
        // leave it (the next power of two), without luaj's rehashes on the way; one with holes
        // is laid out again once complete.
        LuaTable t = kind == 0 && n > 0 ? new LuaTable(n, 0) : new LuaTable();
        if (n <= 0) {
            value(kind == 0 ? t : wrap(kind == 1 ? ReplyFields.MAP : ReplyFields.SET, t));
            return;
        }
        if (stack == null) stack = new ArrayDeque<>(4);
        stack.push(new Frame(t, kind, n));
    }

    private static LuaTable wrap(LuaString field, LuaValue v) {
        LuaTable t = new LuaTable(0, 1);
        t.rawset(field, v);
        return t;
    }

    private LuaValue nothing() {
        return protocol == 3 ? LuaValue.NIL : LuaValue.FALSE;
    }

    @Override public void simple(String s) { value(wrap(ReplyFields.OK, LuaValue.valueOf(s))); }
    @Override public void simple(byte[] s) { value(wrap(ReplyFields.OK, LuaValue.valueOf(s))); }
    /** The most common reply of a write, made without reading its encoding back. */
    @Override public void ok() { value(wrap(ReplyFields.OK, OK_TEXT)); }
    @Override public void error(String message) { value(LuaErrors.errorTable("-" + message, true)); }
    @Override public void integer(long v) { value(LuaValue.valueOf((double) v)); }
    @Override public void bulk(byte[] b) { value(LuaValue.valueOf(b)); }
    @Override public void bulk(byte[] b, int offset, int length) { value(LuaValue.valueOf(Arrays.copyOfRange(b, offset, offset + length))); }
    @Override public void bulk(String s) { value(LuaValue.valueOf(BinaryText.encode(s))); }
    @Override public void bulk(long v) { value(LuaValue.valueOf(Long.toString(v))); }
    @Override public void nullBulk() { value(nothing()); }
    @Override public void nullArray() { value(nothing()); }
    @Override public void array(int n) { aggregate(0, n); }
    @Override public void map(int n) { if (protocol == 3) aggregate(1, n); else aggregate(0, 2 * n); }
    @Override public void set(int n) { aggregate(protocol == 3 ? 2 : 0, n); }
    @Override public void push(int n) { aggregate(0, n); }

    @Override
    public void doubleValue(double d) {
        if (protocol == 3) value(wrap(ReplyFields.DOUBLE, LuaValue.valueOf(d)));
        else value(LuaValue.valueOf(DoubleFormat.reply(d)));
    }

    @Override
    public void bool(boolean b) {
        if (protocol == 3) value(LuaValue.valueOf(b));
        else value(LuaValue.valueOf(b ? 1 : 0));
    }

    @Override
    public void verbatim(String format, byte[] text) {
        if (protocol != 3) {
            bulk(text);
            return;
        }
        LuaTable v = new LuaTable();
        v.rawset(ReplyFields.FORMAT, LuaValue.valueOf(format));
        v.rawset(ReplyFields.STRING, LuaValue.valueOf(text));
        value(wrap(ReplyFields.VERBATIM_STRING, v));
    }

    @Override
    public void bigNumber(String digits) {
        if (protocol == 3) value(wrap(ReplyFields.BIG_NUMBER, LuaValue.valueOf(digits)));
        else bulk(digits);
    }

    @Override
    public void attribute(int n) {
        skipping += 2 * n;
    }

    @Override
    public int protocol() {
        return protocol;
    }

    @Override
    public void raw(byte[] encoded) {
        RawReplyReader.feed(encoded, this);
    }
}
