package io.cinnabar.command;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A RESP connection read line by line, for what Jedis cannot show: replies that arrive late
 * (paused clients), streams that are not replies (MONITOR), whether anything arrived at all.
 */
final class RawConnection implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RawConnection(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(5000);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** Sends one command as a RESP array of bulk strings, without reading anything. */
    RawConnection send(String... args) throws IOException {
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
            b.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        return b.toByteArray();
    }

    /** The next line without its CRLF; fails after 5 s. */
    String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int prev = -1;
        while (true) {
            int c = in.read();
            if (c < 0) throw new IOException("connection closed");
            if (prev == '\r' && c == '\n') break;
            if (prev >= 0) b.write(prev);
            prev = c;
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    /** The next line, or null if none arrives within ms. */
    String lineWithin(int ms) throws IOException {
        socket.setSoTimeout(ms);
        try {
            return line();
        } catch (SocketTimeoutException none) {
            return null;
        } finally {
            socket.setSoTimeout(5000);
        }
    }

    Socket socket() {
        return socket;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
