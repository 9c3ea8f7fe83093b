package io.cinnabar.command;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A bare RESP2/RESP3 connection for tests that read what a client library would hide: pushes
 * interleaved with replies, several replies to one command, replies that arrive late (paused
 * clients), streams that are not replies (MONITOR lines, read with {@link #line()}). Replies
 * decode to String (simple, bulk, verbatim, double), Long, Boolean, null, List (arrays, sets,
 * maps as flat lists) and {@link Push}; errors to {@link Error}.
 */
final class RespSocket implements AutoCloseable {
    record Push(List<Object> items) { }

    record Error(String message) { }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RespSocket(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(10_000);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** Sends one command without reading anything. */
    RespSocket send(String... args) throws IOException {
        out.write(encode(args));
        out.flush();
        return this;
    }

    /** args as a RESP array of bulk strings, as clients send commands. */
    static byte[] encode(String... args) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String a : args) {
            byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
            b.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            b.writeBytes(bytes);
            b.writeBytes(new byte[] {'\r', '\n'});
        }
        return b.toByteArray();
    }

    /** The next raw line without its CRLF (MONITOR lines, replies read as text). */
    String line() throws IOException {
        return line(in.read());
    }

    /** The next raw line, or null if none arrives within ms. */
    String lineWithin(int ms) throws IOException {
        int before = socket.getSoTimeout();
        socket.setSoTimeout(ms);
        try {
            return line();
        } catch (java.net.SocketTimeoutException none) {
            return null;
        } finally {
            socket.setSoTimeout(before);
        }
    }

    Socket socket() {
        return socket;
    }

    /** Every byte until the server closes the connection. */
    byte[] readToEof() throws IOException {
        return in.readAllBytes();
    }

    /** The next n bytes. */
    byte[] readBytes(int n) throws IOException {
        byte[] b = in.readNBytes(n);
        if (b.length < n) throw new IOException("connection closed after " + b.length + " of " + n + " bytes");
        return b;
    }

    /** Bytes up to and including end (a diskless payload's mark). */
    byte[] readThrough(byte[] end) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (true) {
            int c = in.read();
            if (c < 0) throw new IOException("connection closed after " + b.size() + " bytes");
            b.write(c);
            byte[] sofar = b.toByteArray();
            if (sofar.length >= end.length
                    && java.util.Arrays.equals(sofar, sofar.length - end.length, sofar.length, end, 0, end.length)) {
                return sofar;
            }
        }
    }

    /** As a replica: PSYNC ? -1 (capa eof, psync2) and the payload read through its end mark; the +FULLRESYNC line. */
    String fullSync() throws IOException {
        Object capa = call("REPLCONF", "capa", "eof", "capa", "psync2");
        if (!"OK".equals(capa)) throw new IOException("REPLCONF capa answered " + capa);
        send("PSYNC", "?", "-1");
        String fullResync = line();
        if (!fullResync.startsWith("+FULLRESYNC ")) throw new IOException("not a full resync: " + fullResync);
        String eof = line();
        readThrough(eof.substring(5).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        return fullResync;
    }

    /** Sends one command and reads one reply. */
    Object call(String... args) throws IOException {
        return send(args).read();
    }

    void timeoutMillis(int ms) throws IOException {
        socket.setSoTimeout(ms);
    }

    Object read() throws IOException {
        int type = in.read();
        if (type < 0) throw new IOException("connection closed");
        String line = line(-1);
        switch (type) {
            case '+': return line;
            case '-': return new Error(line);
            case ':': return Long.parseLong(line);
            case ',': return line;
            case '#': return line.equals("t");
            case '_': return null;
            case '$': case '=': {
                int n = Integer.parseInt(line);
                if (n < 0) return null;
                byte[] data = in.readNBytes(n + 2);
                return new String(data, 0, n, StandardCharsets.UTF_8);
            }
            case '*': case '~': case '>': case '%': {
                int n = Integer.parseInt(line);
                if (n < 0) return null;
                if (type == '%') n *= 2;
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) items.add(read());
                return type == '>' ? new Push(items) : items;
            }
            default: throw new IOException("unexpected reply type " + (char) type + line);
        }
    }

    /** Reads up to CRLF, starting with first when it is not -1. */
    private String line(int first) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c = first >= 0 ? first : in.read();
        while (c != '\r') {
            if (c < 0) throw new IOException("connection closed");
            b.write(c);
            c = in.read();
        }
        in.read();
        return b.toString(StandardCharsets.UTF_8);
    }

    boolean isClosedByServer() {
        try {
            socket.setSoTimeout(5_000);
            while (in.read() >= 0) { }
            return true;
        } catch (IOException e) {
            return e.getMessage() != null && e.getMessage().contains("reset");
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
