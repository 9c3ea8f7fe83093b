package io.cinnabar.network;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CLIENT LIST addr/laddr as Redis writes them (anetFormatAddr over inet_ntop), and Redis's idea of local. */
class AddressFormatTest {
    @Test
    void ipv6AddressesAreCompressedAndBracketed() throws Exception {
        assertEquals("[::1]:6379", ClientConnection.format(new InetSocketAddress(InetAddress.getByName("::1"), 6379)));
        assertEquals("[fd00::2]:1", ClientConnection.format(new InetSocketAddress(InetAddress.getByName("fd00:0:0:0:0:0:0:2"), 1)));
        assertEquals("[1:0:2::3:0:0]:1", ClientConnection.format(new InetSocketAddress(InetAddress.getByName("1:0:2:0:0:3:0:0"), 1)));
        assertEquals("[::]:1", ClientConnection.format(new InetSocketAddress(InetAddress.getByName("::"), 1)));
        assertEquals("127.0.0.1:2", ClientConnection.format(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 2)));
    }

    @Test
    void onlyTheTwoLoopbackAddressesAreLocal() throws Exception {
        assertTrue(ClientConnection.isLoopback(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 1)));
        assertTrue(ClientConnection.isLoopback(new InetSocketAddress(InetAddress.getByName("::1"), 1)));
        assertFalse(ClientConnection.isLoopback(new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 1)));
        assertFalse(ClientConnection.isLoopback(new InetSocketAddress(InetAddress.getByName("192.0.2.2"), 1)));
    }
}
