package io.cinnabar.network;

import io.cinnabar.CinnabarServer;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.cinnabar.persistence.LocalServers.freePort;

/**
 * Certificates made once per test run by scripts/gen-test-certs.sh (so the script is tested too),
 * and the client-side TLS set-ups the tests connect with.
 */
final class TestCerts {
    private static Path dir;

    private TestCerts() {}

    static synchronized Path dir() {
        if (dir == null) {
            Path target = Path.of("target", "tls-test").toAbsolutePath();
            run(List.of("bash", "scripts/gen-test-certs.sh", target.toString()));
            dir = target;
        }
        return dir;
    }

    static String file(String name) {
        return dir().resolve(name).toString();
    }

    /** Runs a command (openssl, the script) in the project directory; fails the test if it fails. */
    static void run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(command + " failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException(command + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * A builder for a server with a plain port (a free one: port 0 beside a tls-port would mean
     * no plain port, as in Redis) and a TLS port using server.crt, clients checked against ca.crt.
     */
    static CinnabarServer.Builder tlsServer(int tlsPort) throws IOException {
        return CinnabarServer.builder().port(freePort())
                .option("tls-port", String.valueOf(tlsPort))
                .option("tls-cert-file", file("server.crt"))
                .option("tls-key-file", file("server.key"))
                .option("tls-ca-cert-file", file("ca.crt"));
    }

    /** An SSL socket factory trusting the test CA, presenting client.crt when withCertificate. */
    static SSLSocketFactory clientSockets(boolean withCertificate) {
        try {
            return clientContext(withCertificate).getSocketFactory();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static SSLContext clientContext(boolean withCertificate) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", PemFiles.certificates(file("ca.crt")).get(0));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        KeyManagerFactory kmf = null;
        if (withCertificate) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("client", PemFiles.privateKey(file("client.key"), null), new char[0],
                    PemFiles.certificates(file("client.crt")).toArray(new X509Certificate[0]));
            kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, new char[0]);
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return context;
    }

    static String read(Path p) throws IOException {
        return Files.readString(p);
    }
}
