package io.cinnabar.command.scripting;

import org.luaj.vm2.Lua;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.lib.DebugLib;

import java.lang.reflect.Field;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lua 5.1 says what a failed call tried to call ("attempt to call field 'register_function' (a nil
 * value)"); luaj's message names only the type. The name is found after the fact, at no cost to
 * running code: the calls compiled for the error's line, named as luaj's debug library names
 * registers, and used only when they all agree.
 */
final class CalledNames {
    private static final Pattern CALL_ERROR = Pattern.compile("(\\w+):(\\d+): attempt to call a (\\w+) value");
    /** luaj's getobjname is public but its result type is not: its two fields are read reflectively. */
    private static final Field NAME, NAMEWHAT;

    static {
        Field name = null, namewhat = null;
        try {
            Class<?> c = Class.forName("org.luaj.vm2.lib.DebugLib$NameWhat");
            name = c.getDeclaredField("name");
            namewhat = c.getDeclaredField("namewhat");
            name.setAccessible(true);
            namewhat.setAccessible(true);
        } catch (ReflectiveOperationException | RuntimeException e) {
            name = namewhat = null; // messages keep luaj's wording
        }
        NAME = name;
        NAMEWHAT = namewhat;
    }

    private CalledNames() {}

    /** reply with its call error named, when chunk (whose source is chunkName) has one clear callee on that line. */
    static String inReply(String reply, Prototype chunk, String chunkName) {
        Matcher m = CALL_ERROR.matcher(reply);
        if (chunk == null || NAME == null || !m.find() || !m.group(1).equals(chunkName)) return reply;
        String callee = callee(chunk, Integer.parseInt(m.group(2)));
        if (callee == null) return reply;
        return reply.substring(0, m.start()) + m.group(1) + ":" + m.group(2) + ": attempt to call " + callee
                + " (a " + m.group(3) + " value)" + reply.substring(m.end());
    }

    /** "field 'x'", "global 'x'", "local 'x'"... of the calls on line, or null when none or several. */
    private static String callee(Prototype root, int line) {
        Set<String> found = new HashSet<>();
        collect(root, line, found);
        return found.size() == 1 && !found.contains(null) ? found.iterator().next() : null;
    }

    private static void collect(Prototype p, int line, Set<String> found) {
        for (int pc = 0; pc < p.code.length; pc++) {
            int op = Lua.GET_OPCODE(p.code[pc]);
            if ((op != Lua.OP_CALL && op != Lua.OP_TAILCALL) || p.lineinfo == null || p.lineinfo[pc] != line) continue;
            found.add(describe(p, pc, Lua.GETARG_A(p.code[pc])));
        }
        if (p.p != null) for (Prototype nested : p.p) collect(nested, line, found);
    }

    private static String describe(Prototype p, int pc, int register) {
        try {
            Object nw = DebugLib.getobjname(p, pc, register);
            return nw == null ? null : NAMEWHAT.get(nw) + " '" + NAME.get(nw) + "'";
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
