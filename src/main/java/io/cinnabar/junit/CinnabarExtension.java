package io.cinnabar.junit;

import io.cinnabar.CinnabarServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JUnit 5 extension behind {@link CinnabarTest}; also usable directly:
 * <pre>{@code
 * @RegisterExtension
 * static CinnabarExtension cinnabar = new CinnabarExtension().option("hz", "100");
 * }</pre>
 * Jedis is optional: the extension only touches it when a test asks for a Jedis parameter.
 */
public final class CinnabarExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(CinnabarExtension.class);
    private static final String JEDIS = "redis.clients.jedis.Jedis";
    private static final String HOST_AND_PORT = "redis.clients.jedis.HostAndPort";

    private final Map<String, String> options = new LinkedHashMap<>();
    private boolean flushBetweenTests = true;
    private CinnabarServer server;

    public CinnabarExtension() {
    }

    public CinnabarExtension option(String name, String value) {
        options.put(name, value);
        return this;
    }

    public CinnabarExtension flushBetweenTests(boolean flush) {
        flushBetweenTests = flush;
        return this;
    }

    /** The running server (after beforeAll). */
    public CinnabarServer server() {
        return server;
    }

    public int port() {
        return server.port();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        CinnabarTest annotation = context.getRequiredTestClass().getAnnotation(CinnabarTest.class);
        if (annotation != null) {
            flushBetweenTests = annotation.flushBetweenTests();
            String[] o = annotation.options();
            if (o.length % 2 != 0) throw new IllegalArgumentException("@CinnabarTest options come in name/value pairs");
            for (int i = 0; i < o.length; i += 2) options.putIfAbsent(o[i], o[i + 1]);
        }
        CinnabarServer.Builder b = CinnabarServer.builder().port(0);
        options.forEach(b::option);
        server = b.build().start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (server != null) server.close();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (flushBetweenTests && server != null) server.flushAll();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        @SuppressWarnings("unchecked")
        List<AutoCloseable> opened = context.getStore(NS).remove("closeables", List.class);
        if (opened == null) return;
        for (AutoCloseable c : opened) {
            try {
                c.close();
            } catch (Exception ignored) {
                // a client that failed to close must not fail the test that used it
            }
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        String type = p.getParameter().getType().getName();
        return type.equals(CinnabarServer.class.getName()) || type.equals(JEDIS) || type.equals(HOST_AND_PORT);
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        String type = p.getParameter().getType().getName();
        if (type.equals(CinnabarServer.class.getName())) return server;
        if (type.equals(HOST_AND_PORT)) return JedisSupport.hostAndPort(server);
        Object jedis = JedisSupport.connect(server);
        @SuppressWarnings("unchecked")
        List<AutoCloseable> opened = e.getStore(NS).getOrComputeIfAbsent("closeables", k -> new ArrayList<>(), List.class);
        opened.add((AutoCloseable) jedis);
        return jedis;
    }
}
