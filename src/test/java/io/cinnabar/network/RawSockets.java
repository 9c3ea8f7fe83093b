package io.cinnabar.network;

import io.cinnabar.CinnabarServer;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** Plain sockets for tests that watch what a client library hides: refusals, closes, partial requests. */
final class RawSockets {
    private RawSockets() {}

    /** A connection from 127.0.0.1, reads timing out after 10 s. */
    static Socket connect(CinnabarServer server) throws IOException {
        return connect(server, "127.0.0.1");
    }

    /** A connection whose client side is bound to from (e.g. 127.0.0.2, which Redis does not count as local). */
    static Socket connect(CinnabarServer server, String from) throws IOException {
        Socket s = new Socket(InetAddress.getByName("127.0.0.1"), server.port(), InetAddress.getByName(from), 0);
        s.setSoTimeout(10_000);
        return s;
    }

    static void send(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
    }

    /** One line without its CRLF; IOException at EOF. */
    static String line(Socket s) throws IOException {
        StringBuilder b = new StringBuilder();
        InputStream in = s.getInputStream();
        for (int c = in.read(); c != '\r'; c = in.read()) {
            if (c < 0) throw new IOException("EOF after " + b);
            b.append((char) c);
        }
        if (in.read() != '\n') throw new IOException("CR without LF after " + b);
        return b.toString();
    }

    /** Everything until the server closes the connection (a reset counts as the close). */
    static String readToEof(Socket s) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            s.getInputStream().transferTo(out);
        } catch (java.net.SocketException reset) {
            // closed with unread input on its side
        }
        return out.toString(StandardCharsets.US_ASCII);
    }
}
