package io.cinnabar.network;

import io.cinnabar.config.Config;
import io.cinnabar.config.ConfigOption;
import io.cinnabar.config.ConfigOptions;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Security;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * One configuration of TLS for accepted connections, made from the tls-* options as Redis's
 * tlsConfigure makes its SSL_CTX: all of it or nothing, so a failed CONFIG SET leaves the one in
 * use. The JDK's TLS provider does the work (see the report of issue 10 for why not tcnative).
 */
final class TlsContext {
    static final String DEFAULT_PROTOCOLS = "TLSv1.2 TLSv1.3";

    private final SslContext ssl;
    /** For the connections this server makes (a replica's to its master), as Redis's client SSL_CTX. */
    private final SslContext client;
    private final boolean preferServerCiphers;
    private final boolean sessionCaching;

    private TlsContext(SslContext ssl, SslContext client, boolean preferServerCiphers, boolean sessionCaching) {
        this.ssl = ssl;
        this.client = client;
        this.preferServerCiphers = preferServerCiphers;
        this.sessionCaching = sessionCaching;
    }

    /** The handler of a connection to host:port this server makes: it checks the peer's certificate against the CAs. */
    SslHandler newClientHandler(ByteBufAllocator alloc, String host, int port) {
        return client.newHandler(alloc, host, port);
    }

    boolean sessionCaching() {
        return sessionCaching;
    }

    /**
     * The handler of one accepted connection. tls-auth-clients is read here, per connection, as
     * Redis reads it when it accepts (changing it does not rebuild the context).
     */
    SslHandler newHandler(ByteBufAllocator alloc, String authClients) {
        SslHandler handler = ssl.newHandler(alloc);
        SSLEngine engine = handler.engine();
        switch (authClients) {
            case "no" -> engine.setNeedClientAuth(false);
            case "optional" -> engine.setWantClientAuth(true);
            default -> engine.setNeedClientAuth(true);
        }
        SSLParameters parameters = engine.getSSLParameters();
        parameters.setUseCipherSuitesOrder(preferServerCiphers);
        engine.setSSLParameters(parameters);
        return handler;
    }

    /** Builds the context from config, or logs Redis's lines for what is wrong and throws with the last. */
    static TlsContext configure(Config config) {
        String certFile = file(config, ConfigOptions.TLS_CERT_FILE);
        String keyFile = file(config, ConfigOptions.TLS_KEY_FILE);
        String caFile = file(config, ConfigOptions.TLS_CA_CERT_FILE);
        String caDir = file(config, ConfigOptions.TLS_CA_CERT_DIR);
        if (certFile.isEmpty()) throw fail("No tls-cert-file configured!");
        if (keyFile.isEmpty()) throw fail("No tls-key-file configured!");
        if ((!config.getString(ConfigOptions.TLS_AUTH_CLIENTS).equals("no") || config.getBool(ConfigOptions.TLS_CLUSTER)
                || config.getBool(ConfigOptions.TLS_REPLICATION)) && caFile.isEmpty() && caDir.isEmpty()) {
            throw fail("Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
                    + "tls-replication or tls-auth-clients are enabled!");
        }
        List<String> protocols = protocols(config.getString(ConfigOptions.TLS_PROTOCOLS));

        List<X509Certificate> chain = certificates(certFile);
        PrivateKey key = privateKey(keyFile, config.getString(ConfigOptions.TLS_KEY_FILE_PASS), chain.get(0));
        List<X509Certificate> trusted = new ArrayList<>();
        try {
            if (!caFile.isEmpty()) trusted.addAll(PemFiles.certificates(caFile));
            if (!caDir.isEmpty()) trusted.addAll(PemFiles.certificatesInDirectory(caDir));
        } catch (PemFiles.PemException e) {
            throw fail("Failed to configure CA certificate(s) file/directory: " + e.getMessage());
        }
        OpenSslCipherList cipherList = jdkCipherList();
        String ciphersSpec = config.getString(ConfigOptions.TLS_CIPHERS);
        List<String> ciphers = cipherList.ciphers(ciphersSpec);
        if (ciphers == null) throw fail("Failed to configure ciphers: " + ciphersSpec);
        String suitesSpec = config.getString(ConfigOptions.TLS_CIPHERSUITES);
        List<String> suites = cipherList.ciphersuites(suitesSpec);
        if (suites == null) throw fail("Failed to configure ciphersuites: " + suitesSpec);
        List<String> enabled = new ArrayList<>(suites);
        enabled.addAll(ciphers);
        checkDhParams(file(config, ConfigOptions.TLS_DH_PARAMS_FILE));
        // The client side (a replica's link; the cluster bus is not TLS) uses its own files when set.
        String clientCert = file(config, ConfigOptions.TLS_CLIENT_CERT_FILE);
        String clientKey = file(config, ConfigOptions.TLS_CLIENT_KEY_FILE);
        List<X509Certificate> clientChain = chain;
        PrivateKey clientPrivate = key;
        if (!clientCert.isEmpty() && !clientKey.isEmpty()) {
            clientChain = certificates(clientCert);
            clientPrivate = privateKey(clientKey, config.getString(ConfigOptions.TLS_CLIENT_KEY_FILE_PASS), clientChain.get(0));
        }
        SslContextBuilder clientBuilder = SslContextBuilder.forClient()
                .sslProvider(SslProvider.JDK)
                .protocols(protocols)
                .ciphers(enabled)
                .keyManager(clientPrivate, clientChain.toArray(new X509Certificate[0]))
                // Redis checks the master's chain against its CAs, not the name it was reached by.
                .endpointIdentificationAlgorithm(null);
        if (!trusted.isEmpty()) clientBuilder.trustManager(trusted.toArray(new X509Certificate[0]));

        boolean caching = config.getBool(ConfigOptions.TLS_SESSION_CACHING);
        SslContextBuilder builder = SslContextBuilder.forServer(key, chain.toArray(new X509Certificate[0]))
                .sslProvider(SslProvider.JDK)
                .protocols(protocols)
                .ciphers(enabled)
                .clientAuth(ClientAuth.REQUIRE);
        if (!trusted.isEmpty()) builder.trustManager(trusted.toArray(new X509Certificate[0]));
        if (caching) {
            builder.sessionCacheSize(config.getLong(ConfigOptions.TLS_SESSION_CACHE_SIZE))
                    .sessionTimeout(config.getLong(ConfigOptions.TLS_SESSION_CACHE_TIMEOUT));
        }
        try {
            return new TlsContext(build(builder, caching), clientBuilder.build(), config.getBool(ConfigOptions.TLS_PREFER_SERVER_CIPHERS),
                    caching);
        } catch (SSLException | IllegalArgumentException e) {
            throw fail("Failed to configure TLS: " + e.getMessage());
        }
    }

    private static final String SESSION_TICKETS = "jdk.tls.server.enableSessionTicketExtension";

    /**
     * Builds the context. Without session caching it must not issue session tickets either (as
     * OpenSSL with SSL_SESS_CACHE_OFF under Redis resumes nothing): the JDK has no per-context
     * switch for tickets, only this property, read once when a context's session store is made,
     * so it is set around that moment (the sessions themselves are invalidated after each
     * handshake, see TlsErrors).
     */
    private static SslContext build(SslContextBuilder builder, boolean caching) throws SSLException {
        if (caching) return builder.build();
        synchronized (TlsContext.class) {
            String before = System.getProperty(SESSION_TICKETS);
            System.setProperty(SESSION_TICKETS, "false");
            try {
                return builder.build();
            } finally {
                if (before == null) System.clearProperty(SESSION_TICKETS);
                else System.setProperty(SESSION_TICKETS, before);
            }
        }
    }

    private static TlsConfigurationException fail(String reason) {
        NettyServer.log.warn(reason);
        return new TlsConfigurationException(reason);
    }

    /** tls-protocols: words among TLSv1, TLSv1.1, TLSv1.2, TLSv1.3 (any case); empty: TLSv1.2 and TLSv1.3. */
    private static List<String> protocols(String spec) {
        if (spec.isEmpty()) spec = DEFAULT_PROTOCOLS;
        List<String> out = new ArrayList<>();
        for (String word : spec.split(" ")) {
            switch (word.toLowerCase(Locale.ROOT)) {
                case "tlsv1" -> out.add("TLSv1");
                case "tlsv1.1" -> out.add("TLSv1.1");
                case "tlsv1.2" -> out.add("TLSv1.2");
                case "tlsv1.3" -> out.add("TLSv1.3");
                case "" -> { }
                default -> throw fail("Invalid tls-protocols specified. "
                        + "Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.");
            }
        }
        if (out.isEmpty()) throw fail("Invalid tls-protocols configuration string");
        return out;
    }

    /** A file option's path, relative ones in dir as Redis reads them; empty when unset. */
    private static String file(Config config, ConfigOption option) {
        String name = config.getString(option);
        return name.isEmpty() ? name : config.fileInDir(name).toString();
    }

    private static List<X509Certificate> certificates(String file) {
        try {
            return PemFiles.certificates(file);
        } catch (PemFiles.PemException e) {
            throw fail("Failed to load certificate: " + file + ": " + e.getMessage());
        }
    }

    /** The key of file, checked to belong to the certificate as OpenSSL's SSL_CTX_use_PrivateKey_file checks. */
    private static PrivateKey privateKey(String file, String password, X509Certificate cert) {
        PrivateKey key;
        try {
            key = PemFiles.privateKey(file, password);
        } catch (PemFiles.PemException e) {
            throw fail("Failed to load private key: " + file + ": " + e.getMessage());
        }
        if (!matches(key, cert)) {
            throw fail("Failed to load private key: " + file + ": key values mismatch (X509 certificate routines::key values mismatch)");
        }
        return key;
    }

    private static boolean matches(PrivateKey key, X509Certificate cert) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "Ed448", "EdDSA" -> key.getAlgorithm();
            default -> null;
        };
        if (algorithm == null) return true;
        try {
            byte[] probe = "cinnabar".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(cert.getPublicKey());
            verifier.update(probe);
            return verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    /**
     * tls-dh-params-file must be a readable PEM "DH PARAMETERS" file, as Redis requires. The JDK
     * picks its own (RFC 7919) groups for DHE suites, so the parameters themselves are not used.
     */
    private static void checkDhParams(String file) {
        if (file.isEmpty()) return;
        String text;
        try {
            text = Files.readString(Path.of(file), java.nio.charset.StandardCharsets.ISO_8859_1);
        } catch (java.nio.file.NoSuchFileException e) {
            throw fail("Failed to load " + file + ": No such file or directory");
        } catch (java.io.IOException e) {
            throw fail("Failed to load " + file + ": " + e.getMessage());
        }
        if (!text.contains("-----BEGIN DH PARAMETERS-----") && !text.contains("-----BEGIN X9.42 DH PARAMETERS-----")) {
            throw fail(file + ": failed to read DH params.");
        }
    }

    private static volatile OpenSslCipherList jdkCiphers;

    private static OpenSslCipherList jdkCipherList() {
        OpenSslCipherList list = jdkCiphers;
        if (list == null) {
            allowRsaKeyExchange();
            try {
                SSLContext jdk = SSLContext.getDefault();
                list = new OpenSslCipherList(jdk.getDefaultSSLParameters().getCipherSuites(),
                        jdk.getSupportedSSLParameters().getCipherSuites());
            } catch (GeneralSecurityException e) {
                throw fail("Failed to configure TLS: " + e.getMessage());
            }
            jdkCiphers = list;
        }
        return list;
    }

    /**
     * OpenSSL's DEFAULT cipher list, which Redis's tls-ciphers starts from, still offers RSA key
     * exchange (AES256-SHA256, AES128-GCM-SHA256...). JDK updates of 2025 put TLS_RSA_* in
     * jdk.tls.disabledAlgorithms (Debian's 17.0.21 among them), out of reach of any tls-ciphers
     * setting: clients that Redis accepts failed their handshake, and a tls-ciphers naming only such
     * ciphers failed CONFIG SET. Taken off that list before the JDK first reads it (its first TLS
     * context in this process), so that the same settings accept the same clients as Redis.
     */
    private static void allowRsaKeyExchange() {
        String disabled = Security.getProperty(DISABLED_TLS_ALGORITHMS);
        if (disabled == null || !disabled.contains(RSA_KEY_EXCHANGE)) return;
        StringJoiner kept = new StringJoiner(", ");
        for (String entry : disabled.split(",")) {
            if (!entry.trim().equals(RSA_KEY_EXCHANGE)) kept.add(entry.trim());
        }
        Security.setProperty(DISABLED_TLS_ALGORITHMS, kept.toString());
    }

    private static final String DISABLED_TLS_ALGORITHMS = "jdk.tls.disabledAlgorithms";
    private static final String RSA_KEY_EXCHANGE = "TLS_RSA_*";

    /** The tls-* options whose change rebuilds the context (Redis's applyTlsCfg), all but tls-port and tls-auth-clients. */
    static final List<ConfigOption> REBUILD_OPTIONS = List.of(ConfigOptions.TLS_CERT_FILE, ConfigOptions.TLS_KEY_FILE,
            ConfigOptions.TLS_KEY_FILE_PASS, ConfigOptions.TLS_CLIENT_CERT_FILE, ConfigOptions.TLS_CLIENT_KEY_FILE,
            ConfigOptions.TLS_CLIENT_KEY_FILE_PASS, ConfigOptions.TLS_DH_PARAMS_FILE, ConfigOptions.TLS_CA_CERT_FILE,
            ConfigOptions.TLS_CA_CERT_DIR, ConfigOptions.TLS_PROTOCOLS, ConfigOptions.TLS_CIPHERS,
            ConfigOptions.TLS_CIPHERSUITES, ConfigOptions.TLS_REPLICATION, ConfigOptions.TLS_CLUSTER,
            ConfigOptions.TLS_PREFER_SERVER_CIPHERS, ConfigOptions.TLS_SESSION_CACHING,
            ConfigOptions.TLS_SESSION_CACHE_SIZE, ConfigOptions.TLS_SESSION_CACHE_TIMEOUT);
}
