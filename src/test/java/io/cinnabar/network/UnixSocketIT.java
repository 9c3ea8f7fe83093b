package io.cinnabar.network;

import io.cinnabar.CinnabarServer;
import io.netty.channel.epoll.Epoll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** unixsocket / unixsocketperm: a second way in, local for protected mode, removed at shutdown. */
class UnixSocketIT {
    @Test
    void clientsConnectThroughTheSocketFile(@TempDir Path dir) throws IOException {
        assumeTrue(Epoll.isAvailable());
        Path socket = dir.resolve("cinnabar.sock");
        Files.writeString(socket, "stale"); // a leftover file is replaced, as Redis unlinks it first
        try (CinnabarServer s = CinnabarServer.builder().port(0).option("unixsocket", socket.toString())
                .option("unixsocketperm", "700").option("bind", "").build().start()) {
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)));
            try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                ch.connect(UnixDomainSocketAddress.of(socket));
                assertEquals("+PONG\r\n", request(ch, "PING\r\n"));
                String info = request(ch, "CLIENT INFO\r\n");
                assertTrue(info.contains(" addr=" + socket + ":0 laddr=" + socket + ":0 "), info);
                assertTrue(info.contains(" flags=U "), info);
            }
        }
        assertFalse(Files.exists(socket));
    }

    /** Sends text and reads what has arrived once the reply ends with CRLF. */
    private static String request(SocketChannel ch, String text) throws IOException {
        ch.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII)));
        ByteBuffer in = ByteBuffer.allocate(64 * 1024);
        StringBuilder sb = new StringBuilder();
        do {
            in.clear();
            if (ch.read(in) < 0) break;
            sb.append(new String(in.array(), 0, in.position(), StandardCharsets.US_ASCII));
        } while (!complete(sb));
        return sb.toString();
    }

    /** A simple reply, or a bulk whose announced length has arrived. */
    private static boolean complete(StringBuilder sb) {
        if (sb.length() < 3 || !sb.toString().endsWith("\r\n")) return false;
        if (sb.charAt(0) != '$') return true;
        int eol = sb.indexOf("\r\n");
        return sb.length() >= eol + 2 + Integer.parseInt(sb.substring(1, eol)) + 2;
    }
}
