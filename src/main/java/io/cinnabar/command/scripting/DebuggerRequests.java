package io.cinnabar.command.scripting;

import org.luaj.vm2.LuaError;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** What the Lua debugger's client sends while the script is stopped. */
final class DebuggerRequests {
    private DebuggerRequests() {}

    /**
     * ldbReplParseCommand's forgiving reader of "*N\r\n$len\r\narg\r\n...": null while more must
     * be read; a "protocol error" raised in the script for what it refuses (no '*', a count
     * outside 1..1024, an argument of 0 or over 1024 bytes). Its C string functions stop at a NUL.
     */
    static List<String> parse(byte[] b) {
        if (b.length == 0) return null;
        int p = find(b, 0, (byte) '*');
        if (p < 0) throw protocolError();
        int eol = findCrlf(b, p + 1);
        if (eol < 0) return null;
        long argc = CNumber.atoi(b, p + 1, eol);
        if (argc <= 0 || argc > 1024) throw protocolError();
        p = eol + 2;
        List<String> argv = new ArrayList<>();
        while (argv.size() < argc) {
            if (p >= b.length || b[p] == 0) return null;
            if (b[p] != '$') throw protocolError();
            eol = findCrlf(b, p + 1);
            if (eol < 0) return null;
            long len = CNumber.atoi(b, p + 1, eol);
            if (len <= 0 || len > 1024) throw protocolError();
            p = eol + 2;
            if (p + len + 2 > b.length) return null;
            argv.add(new String(b, p, (int) len, StandardCharsets.ISO_8859_1));
            p += (int) len;
            if (b[p] != '\r' || b[p + 1] != '\n') throw protocolError();
            p += 2;
        }
        return argv;
    }

    /** strchr: c at or after from, before the first NUL. */
    private static int find(byte[] b, int from, byte c) {
        for (int i = from; i < b.length && b[i] != 0; i++) if (b[i] == c) return i;
        return -1;
    }

    /** strstr(p, "\r\n"). */
    private static int findCrlf(byte[] b, int from) {
        for (int i = from; i + 1 < b.length && b[i] != 0; i++) if (b[i] == '\r' && b[i + 1] == '\n') return i;
        return -1;
    }

    private static LuaError protocolError() {
        return LuaDebugger.error("protocol error");
    }
}
