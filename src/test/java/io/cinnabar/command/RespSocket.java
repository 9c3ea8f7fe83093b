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
 * interleaved with replies, several replies to one command. Replies decode to String (simple,
 * bulk, verbatim, double), Long, Boolean, null, List (arrays, sets, maps as flat lists) and
 * {@link Push}; errors to {@link Error}.
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
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
        for (String a : args) {
            byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
            b.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            b.writeBytes(bytes);
            b.writeBytes(new byte[] {'\r', '\n'});
        }
        out.write(b.toByteArray());
        out.flush();
        return this;
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
        String line = line();
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

    private String line() throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) throw new IOException("connection closed");
            sb.append((char) c);
        }
        in.read();
        return sb.toString();
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
