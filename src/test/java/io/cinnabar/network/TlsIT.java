package io.cinnabar.network;

import io.cinnabar.CinnabarServer;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

import javax.net.ssl.SSLParameters;
import java.util.List;

import static io.cinnabar.network.TestCerts.file;
import static io.cinnabar.persistence.LocalServers.freePort;
import static io.cinnabar.network.TestCerts.tlsServer;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The TLS port through Jedis: client certificates, the plain port beside it, keys, CONFIG SET of the tls-* options. */
class TlsIT {
    static Jedis tlsJedis(int port, boolean withCertificate) {
        return tlsJedis(port, withCertificate, null);
    }

    static Jedis tlsJedis(int port, boolean withCertificate, SSLParameters parameters) {
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder().ssl(true)
                .sslSocketFactory(TestCerts.clientSockets(withCertificate)).timeoutMillis(5000);
        if (parameters != null) config.sslParameters(parameters);
        return new Jedis("127.0.0.1", port, config.build());
    }

    /** PING over TLS: true when it answers PONG, false when the connection is refused or dropped. */
    static boolean tlsPings(int port, boolean withCertificate, SSLParameters parameters) {
        try (Jedis jedis = tlsJedis(port, withCertificate, parameters)) {
            return "PONG".equals(jedis.ping());
        } catch (JedisConnectionException e) {
            return false;
        }
    }

    @Test
    void clientCertificatesRequiredAndPlainPortBeside() throws Exception {
        int tlsPort = freePort();
        try (CinnabarServer server = tlsServer(tlsPort).build().start()) {
            assertEquals(tlsPort, server.tlsPort());
            try (Jedis tls = tlsJedis(tlsPort, true); Jedis plain = new Jedis("127.0.0.1", server.port())) {
                assertEquals("OK", tls.set("greeting", "over tls"));
                assertEquals("over tls", plain.get("greeting"));
                assertEquals("OK", plain.set("greeting", "plain"));
                assertEquals("plain", tls.get("greeting"));
                assertEquals(String.valueOf(tlsPort), tls.configGet("tls-port").get("tls-port"));
            }
            assertTrue(!tlsPings(tlsPort, false, null), "a client without a certificate must be refused");
            // Plain text on the TLS port gets no answer.
            assertThrows(JedisConnectionException.class, () -> {
                try (Jedis plainOnTls = new Jedis("127.0.0.1", tlsPort, 2000)) {
                    plainOnTls.ping();
                }
            });
        }
    }

    @Test
    void aReplicaWithTlsReplicationSyncsOverItsMastersTlsPort() throws Exception {
        int masterTls = freePort(), replicaTls = freePort();
        try (CinnabarServer master = tlsServer(masterTls).option("repl-diskless-sync-delay", "0").build().start();
             Jedis m = new Jedis("127.0.0.1", master.port())) {
            m.set("before", "1");
            // The test's server.crt is for servers only: the replica presents client.crt, as tls-client-cert-file says.
            try (CinnabarServer replica = tlsServer(replicaTls).option("tls-replication", "yes")
                    .option("tls-client-cert-file", file("client.crt")).option("tls-client-key-file", file("client.key"))
                    .option("replicaof", "127.0.0.1 " + masterTls).build().start();
                 Jedis r = new Jedis("127.0.0.1", replica.port())) {
                for (int i = 0; i < 500 && !r.info("replication").contains("master_link_status:up"); i++) Thread.sleep(20);
                m.set("after", "2");
                assertEquals(1L, m.waitReplicas(1, 10_000));
                assertEquals("1", r.get("before"));
                assertEquals("2", r.get("after"));
                // The link is to the TLS port, which answers nothing in plain text and wants a client certificate.
                assertTrue(m.clientList().contains("laddr=127.0.0.1:" + masterTls + " fd=") && m.clientList().contains("flags=S"),
                        m.clientList());
            }
        }
    }

    @Test
    void tlsAuthClientsOptionalAndNo() throws Exception {
        int tlsPort = freePort();
        try (CinnabarServer server = tlsServer(tlsPort).option("tls-auth-clients", "optional").build().start();
             Jedis admin = new Jedis("127.0.0.1", server.port())) {
            assertTrue(tlsPings(tlsPort, false, null));
            assertTrue(tlsPings(tlsPort, true, null));
            assertEquals("OK", admin.configSet("tls-auth-clients", "yes"));
            assertTrue(!tlsPings(tlsPort, false, null));
            assertTrue(tlsPings(tlsPort, true, null));
            assertEquals("OK", admin.configSet("tls-auth-clients", "no"));
            assertTrue(tlsPings(tlsPort, false, null));
        }
    }

    @Test
    void onlyTheTlsPortWhenPortIsZero() throws Exception {
        int tlsPort = freePort();
        try (CinnabarServer server = tlsServer(tlsPort).port(0).build().start();
             Jedis tls = tlsJedis(tlsPort, true)) {
            assertEquals(0, server.port());
            assertEquals("0", tls.configGet("port").get("port"));
            assertEquals("PONG", tls.ping());
        }
    }

    @Test
    void traditionalAndEncryptedKeys() throws Exception {
        String dir = TestCerts.dir().toString();
        String pkcs1 = dir + "/server-pkcs1.key";
        String pkcs1Encrypted = dir + "/server-pkcs1-enc.key";
        String pkcs8Encrypted = dir + "/server-pkcs8-enc.key";
        TestCerts.run(List.of("openssl", "rsa", "-in", file("server.key"), "-traditional", "-out", pkcs1));
        TestCerts.run(List.of("openssl", "rsa", "-in", file("server.key"), "-traditional", "-aes256",
                "-passout", "pass:1234", "-out", pkcs1Encrypted));
        TestCerts.run(List.of("openssl", "rsa", "-in", file("server.key"), "-aes256", "-passout", "pass:1234",
                "-out", pkcs8Encrypted));
        assertTrue(TestCerts.read(java.nio.file.Path.of(pkcs1)).startsWith("-----BEGIN RSA PRIVATE KEY-----"));
        int tlsPort = freePort();
        try (CinnabarServer server = tlsServer(tlsPort).option("tls-key-file", pkcs1).build().start();
             Jedis admin = new Jedis("127.0.0.1", server.port())) {
            assertTrue(tlsPings(tlsPort, true, null));
            for (String encrypted : new String[] {pkcs1Encrypted, pkcs8Encrypted}) {
                assertEquals("OK", admin.configSet("tls-key-file", pkcs1, "tls-key-file-pass", ""));
                JedisDataException e = assertThrows(JedisDataException.class,
                        () -> admin.configSet("tls-key-file", encrypted));
                assertEquals("ERR CONFIG SET failed (possibly related to argument 'tls-key-file') - "
                        + "Unable to update TLS configuration. Check server logs.", e.getMessage());
                assertEquals(pkcs1, admin.configGet("tls-key-file").get("tls-key-file"));
                assertTrue(tlsPings(tlsPort, true, null), "the context in use stays after a failed CONFIG SET");
                assertEquals("OK", admin.configSet("tls-key-file-pass", "1234"));
                assertEquals("OK", admin.configSet("tls-key-file", encrypted));
                assertTrue(tlsPings(tlsPort, true, null));
            }
        }
    }

    @Test
    void ecKeyInSec1FormAndCaDirectory() throws Exception {
        String dir = TestCerts.dir().toString();
        TestCerts.run(List.of("bash", "-c", "cd '" + dir + "' && openssl ecparam -name prime256v1 -genkey -out ec.key"
                + " && openssl req -new -sha256 -subj '/CN=ec' -key ec.key | openssl x509 -req -sha256 -CA ca.crt"
                + " -CAkey ca.key -CAserial ca.txt -days 1 -out ec.crt && rm -rf cadir && mkdir cadir && cp ca.crt cadir/"));
        assertTrue(TestCerts.read(java.nio.file.Path.of(dir, "ec.key")).contains("-----BEGIN EC PRIVATE KEY-----"));
        int tlsPort = freePort();
        try (CinnabarServer server = tlsServer(tlsPort).option("tls-cert-file", dir + "/ec.crt")
                .option("tls-key-file", dir + "/ec.key").option("tls-ca-cert-file", "")
                .option("tls-ca-cert-dir", dir + "/cadir").build().start()) {
            assertTrue(tlsPings(tlsPort, true, null));
            assertTrue(!tlsPings(tlsPort, false, null));
        }
    }

    /** The session id of a TLS 1.2 handshake made with client (whose session cache offers the last one). */
    private static String sessionId(javax.net.ssl.SSLContext client, int port) throws Exception {
        try (javax.net.ssl.SSLSocket socket = (javax.net.ssl.SSLSocket) client.getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.setEnabledProtocols(new String[] {"TLSv1.2"});
            socket.startHandshake();
            socket.getOutputStream().write("PING\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            assertEquals('+', socket.getInputStream().read());
            return java.util.HexFormat.of().formatHex(socket.getSession().getId());
        }
    }

    @Test
    void sessionsResumeOnlyWithSessionCaching() throws Exception {
        int tlsPort = freePort();
        try (CinnabarServer server = tlsServer(tlsPort).build().start();
             Jedis admin = new Jedis("127.0.0.1", server.port())) {
            javax.net.ssl.SSLContext client = TestCerts.clientContext(true);
            String first = sessionId(client, tlsPort);
            assertEquals(first, sessionId(client, tlsPort), "resumed");
            assertEquals("OK", admin.configSet("tls-session-caching", "no"));
            client = TestCerts.clientContext(true);
            first = sessionId(client, tlsPort);
            assertTrue(!first.equals(sessionId(client, tlsPort)), "a new session each time");
        }
    }

    @Test
    void badFilesStopTheStartWithRedisReasons() throws Exception {
        String missing = TestCerts.dir() + "/missing.crt";
        TlsConfigurationException e = assertThrows(TlsConfigurationException.class,
                () -> tlsServer(1).option("tls-cert-file", missing).build().start());
        assertEquals("Failed to load certificate: " + missing + ": No such file or directory", e.getMessage());
        e = assertThrows(TlsConfigurationException.class,
                () -> tlsServer(1).option("tls-key-file", file("client.key")).build().start());
        assertTrue(e.getMessage().startsWith("Failed to load private key: " + file("client.key") + ": key values mismatch"),
                e.getMessage());
        e = assertThrows(TlsConfigurationException.class,
                () -> tlsServer(1).option("tls-ca-cert-file", "").build().start());
        assertEquals("Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
                + "tls-replication or tls-auth-clients are enabled!", e.getMessage());
        e = assertThrows(TlsConfigurationException.class,
                () -> tlsServer(1).option("tls-protocols", "SSLv3").build().start());
        assertEquals("Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.",
                e.getMessage());
        e = assertThrows(TlsConfigurationException.class,
                () -> CinnabarServer.builder().port(0).option("tls-port", "1").build().start());
        assertEquals("No tls-cert-file configured!", e.getMessage());
    }

    @Test
    void protocolsAndCiphersReloadOnConfigSet() throws Exception {
        int tlsPort = freePort();
        SSLParameters tls12 = new SSLParameters();
        tls12.setProtocols(new String[] {"TLSv1.2"});
        SSLParameters tls13 = new SSLParameters();
        tls13.setProtocols(new String[] {"TLSv1.3"});
        SSLParameters oneCipher = new SSLParameters();
        oneCipher.setProtocols(new String[] {"TLSv1.2"});
        oneCipher.setCipherSuites(new String[] {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"});
        try (CinnabarServer server = tlsServer(tlsPort).build().start();
             Jedis admin = new Jedis("127.0.0.1", server.port())) {
            assertTrue(tlsPings(tlsPort, true, tls12));
            assertTrue(tlsPings(tlsPort, true, tls13));
            assertEquals("OK", admin.configSet("tls-protocols", "TLSv1.2"));
            assertTrue(tlsPings(tlsPort, true, tls12));
            assertTrue(!tlsPings(tlsPort, true, tls13));

            assertTrue(tlsPings(tlsPort, true, oneCipher));
            assertEquals("OK", admin.configSet("tls-ciphers", "DEFAULT:-ECDHE-RSA-AES128-GCM-SHA256"));
            assertTrue(!tlsPings(tlsPort, true, oneCipher));
            assertTrue(tlsPings(tlsPort, true, tls12));
            JedisDataException e = assertThrows(JedisDataException.class, () -> admin.configSet("tls-ciphers", "NO-SUCH-CIPHER"));
            assertTrue(e.getMessage().endsWith("Unable to update TLS configuration. Check server logs."), e.getMessage());
            assertEquals("OK", admin.configSet("tls-ciphers", "ECDHE-RSA-AES128-GCM-SHA256", "tls-protocols", ""));
            assertTrue(tlsPings(tlsPort, true, oneCipher));
            assertTrue(tlsPings(tlsPort, true, tls13), "tls-ciphers leaves TLS 1.3 suites alone");
        }
    }

    @Test
    void tlsPortMovesAndClosesOnConfigSet() throws Exception {
        int tlsPort = freePort();
        try (CinnabarServer server = tlsServer(tlsPort).build().start();
             Jedis admin = new Jedis("127.0.0.1", server.port())) {
            int next = freePort();
            assertEquals("OK", admin.configSet("tls-port", String.valueOf(next)));
            assertEquals(next, server.tlsPort());
            assertTrue(tlsPings(next, true, null));
            assertTrue(!tlsPings(tlsPort, true, null));
            // bind moves both ports; port 0 closes the plain one while a TLS port is open (as Redis)
            assertEquals("OK", admin.configSet("bind", "127.0.0.1 -::1"));
            assertTrue(tlsPings(next, true, null));
            try (Jedis tls = tlsJedis(next, true)) {
                int plainPort = server.port();
                assertEquals("OK", tls.configSet("port", "0"));
                assertEquals(0, server.port());
                assertThrows(JedisConnectionException.class, () -> {
                    try (Jedis plain = new Jedis("127.0.0.1", plainPort, 2000)) {
                        plain.ping();
                    }
                });
                assertEquals("OK", tls.configSet("port", String.valueOf(plainPort)));
                try (Jedis plain = new Jedis("127.0.0.1", plainPort, 2000)) {
                    assertEquals("PONG", plain.ping());
                }
            }
            assertEquals("PONG", admin.ping());
            assertEquals("OK", admin.configSet("tls-port", "0"));
            assertTrue(!tlsPings(next, true, null));
            assertEquals("PONG", admin.ping());
        }
        // A server started without TLS configures it when tls-port is set.
        try (CinnabarServer server = CinnabarServer.builder().port(0).build().start();
             Jedis admin = new Jedis("127.0.0.1", server.port())) {
            int port = freePort();
            JedisDataException e = assertThrows(JedisDataException.class, () -> admin.configSet("tls-port", String.valueOf(port)));
            assertTrue(e.getMessage().endsWith("Unable to update TLS configuration. Check server logs."), e.getMessage());
            assertEquals("OK", admin.configSet("tls-cert-file", file("redis.crt"), "tls-key-file", file("redis.key"),
                    "tls-ca-cert-file", file("ca.crt")));
            assertEquals("OK", admin.configSet("tls-port", String.valueOf(port)));
            assertTrue(tlsPings(port, true, null));
        }
    }
}
