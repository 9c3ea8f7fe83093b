package io.cinnabar.junit;

import io.cinnabar.CinnabarServer;
import io.cinnabar.ManualClock;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * JUnit 5 extension behind {@link CinnabarTest}; also usable directly:
 * <pre>{@code
 * @RegisterExtension
 * static CinnabarExtension cinnabar = new CinnabarExtension().option("hz", "100").clock(ClockMode.MANUAL);
 * }</pre>
 * Servers and the clients it injects live in JUnit's extension store (not in fields), so test
 * classes and per-method servers may run in parallel. Jedis and Lettuce are optional: their
 * types are recognised by name and only the classes that link against them (JedisSupport,
 * LettuceSupport) load them, when a test asks for one.
 */
public final class CinnabarExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback, ParameterResolver {
    /** The name of every connection the extension injects; the leak check passes over them. */
    public static final String CLIENT_NAME = "cinnabar-junit";
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(CinnabarExtension.class);
    private static final String SERVER = "server", CLIENTS_BEFORE = "clientsBefore", SETTINGS = "settings";
    private static final String JEDIS = "redis.clients.jedis.Jedis";
    private static final String JEDIS_POOLED = "redis.clients.jedis.JedisPooled";
    private static final String HOST_AND_PORT = "redis.clients.jedis.HostAndPort";
    private static final String LETTUCE_CLIENT = "io.lettuce.core.RedisClient";
    private static final String LETTUCE_CONNECTION = "io.lettuce.core.api.StatefulRedisConnection";
    /** How long closes the test made may take to reach the server before a connection counts as leaked. */
    private static final long LEAK_GRACE_MS = 2000;

    private final Settings programmatic = new Settings();
    /** The latest server started (for {@link #server()} of a {@code @RegisterExtension} field). */
    private volatile CinnabarServer server;

    /** What a server is started with: the annotation's values, over which programmatic ones win. */
    private static final class Settings {
        final Map<String, String> options = new LinkedHashMap<>();
        Boolean flushBetweenTests;
        ClockMode clock;
        ServerLifecycle lifecycle;
        Boolean failOnLeaks;

        Settings merged(CinnabarTest a) {
            Settings s = new Settings();
            s.options.putAll(options);
            s.flushBetweenTests = flushBetweenTests != null ? flushBetweenTests : a == null || a.flushBetweenTests();
            s.clock = clock != null ? clock : a == null ? ClockMode.SYSTEM : a.clock();
            s.lifecycle = lifecycle != null ? lifecycle : a == null ? ServerLifecycle.PER_CLASS : a.lifecycle();
            s.failOnLeaks = failOnLeaks != null ? failOnLeaks : a == null || a.failOnLeakedConnections();
            if (a != null) {
                String[] o = a.options();
                if (o.length % 2 != 0) throw new IllegalArgumentException("@CinnabarTest options come in name/value pairs");
                for (int i = 0; i < o.length; i += 2) s.options.putIfAbsent(o[i], o[i + 1]);
            }
            return s;
        }
    }

    public CinnabarExtension() {
    }

    public CinnabarExtension option(String name, String value) {
        programmatic.options.put(name, value);
        return this;
    }

    public CinnabarExtension flushBetweenTests(boolean flush) {
        programmatic.flushBetweenTests = flush;
        return this;
    }

    public CinnabarExtension clock(ClockMode clock) {
        programmatic.clock = clock;
        return this;
    }

    public CinnabarExtension lifecycle(ServerLifecycle lifecycle) {
        programmatic.lifecycle = lifecycle;
        return this;
    }

    public CinnabarExtension failOnLeakedConnections(boolean fail) {
        programmatic.failOnLeaks = fail;
        return this;
    }

    /** The running server (after beforeAll, or beforeEach for per-method servers). */
    public CinnabarServer server() {
        return server;
    }

    public int port() {
        return server.port();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        Settings s = programmatic.merged(annotation(context.getRequiredTestClass()));
        context.getStore(NS).put(SETTINGS, s);
        if (s.lifecycle == ServerLifecycle.PER_CLASS) context.getStore(NS).put(SERVER, start(s));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        try {
            closeInjected(context);
        } finally {
            CinnabarServer s = context.getStore(NS).remove(SERVER, CinnabarServer.class);
            if (s != null) s.close();
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        Settings s = settings(context);
        CinnabarServer srv;
        if (s.lifecycle == ServerLifecycle.PER_METHOD) {
            srv = start(s);
            context.getStore(NS).put(SERVER, srv);
        } else {
            srv = server(context);
            if (s.flushBetweenTests) srv.flushAll();
        }
        // Tests sharing a server at the same time would see each other's connections as leaks.
        boolean alone = s.lifecycle == ServerLifecycle.PER_METHOD || context.getExecutionMode() != ExecutionMode.CONCURRENT;
        if (s.failOnLeaks && alone && srv.isRunning()) context.getStore(NS).put(CLIENTS_BEFORE, ids(srv.clientList()));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        try {
            closeInjected(context);
            @SuppressWarnings("unchecked")
            Set<String> before = context.getStore(NS).remove(CLIENTS_BEFORE, Set.class);
            CinnabarServer srv = server(context);
            // A test that shut the server down leaves nothing to leak.
            if (before != null && srv.isRunning()) checkNoLeaks(srv, before, context.getDisplayName());
        } finally {
            if (settings(context).lifecycle == ServerLifecycle.PER_METHOD) {
                CinnabarServer s = context.getStore(NS).remove(SERVER, CinnabarServer.class);
                if (s != null) s.close();
            }
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        String type = p.getParameter().getType().getName();
        return type.equals(CinnabarServer.class.getName()) || type.equals(ManualClock.class.getName())
                || type.equals(JEDIS) || type.equals(JEDIS_POOLED) || type.equals(HOST_AND_PORT)
                || type.equals(LETTUCE_CLIENT) || type.equals(LETTUCE_CONNECTION);
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        String type = p.getParameter().getType().getName();
        CinnabarServer srv = server(e);
        if (srv == null) {
            throw new ParameterResolutionException("No Cinnabar server to inject into " + p.getDeclaringExecutable()
                    + ": with lifecycle PER_METHOD a server exists only during each test (not in @BeforeAll or a constructor)");
        }
        switch (type) {
            case "io.cinnabar.CinnabarServer":
                return srv;
            case "io.cinnabar.ManualClock":
                if (srv.clock() == null) {
                    throw new ParameterResolutionException("The Cinnabar server runs on the system clock: use "
                            + "@CinnabarTest(clock = ClockMode.MANUAL) to inject a ManualClock");
                }
                return srv.clock();
            case HOST_AND_PORT:
                return JedisSupport.hostAndPort(srv);
            case JEDIS:
                return closedAfter(e, JedisSupport.connect(srv));
            case JEDIS_POOLED:
                return closedAfter(e, JedisSupport.pooled(srv));
            case LETTUCE_CLIENT: {
                Object client = LettuceSupport.client(srv);
                opened(e).add(LettuceSupport.closer(client));
                return client;
            }
            default: {
                // A connection of a client of its own, shut down with it after the test.
                Object client = LettuceSupport.client(srv);
                opened(e).add(LettuceSupport.closer(client));
                return LettuceSupport.connect(client, byteArrays(p.getParameter().getParameterizedType()));
            }
        }
    }

    /** StatefulRedisConnection<byte[], byte[]> asks for byte arrays; anything else gets Strings. */
    private static boolean byteArrays(Type type) {
        return type instanceof ParameterizedType
                && ((ParameterizedType) type).getActualTypeArguments()[0] == byte[].class;
    }

    private static Object closedAfter(ExtensionContext e, AutoCloseable c) {
        opened(e).add(c);
        return c;
    }

    /** What was injected in this context (a test, or the class for @BeforeAll): closed when it ends. */
    @SuppressWarnings("unchecked")
    private static List<AutoCloseable> opened(ExtensionContext e) {
        // Keyed by the context: a store lookup would otherwise find the class's list from a test.
        return e.getStore(NS).getOrComputeIfAbsent("opened:" + e.getUniqueId(), k -> new ArrayList<>(), List.class);
    }

    private static void closeInjected(ExtensionContext e) {
        @SuppressWarnings("unchecked")
        List<AutoCloseable> opened = e.getStore(NS).remove("opened:" + e.getUniqueId(), List.class);
        if (opened == null) return;
        for (AutoCloseable c : opened) {
            try {
                c.close();
            } catch (Exception ignored) {
                // a client that failed to close must not fail the test that used it
            }
        }
    }

    /**
     * Fails when connections that were not there before the test, and not injected, are still
     * connected: after a grace period, for closes the test made that are still on their way.
     */
    private static void checkNoLeaks(CinnabarServer srv, Set<String> before, String test) {
        long deadline = System.nanoTime() + LEAK_GRACE_MS * 1_000_000;
        List<String> leaked;
        while (true) {
            leaked = new ArrayList<>();
            for (String line : srv.clientList()) {
                if (!before.contains(id(line)) && !line.contains(" name=" + CLIENT_NAME + " ")) leaked.add(line);
            }
            if (leaked.isEmpty()) return;
            if (System.nanoTime() > deadline) break;
            try {
                Thread.sleep(5); // waiting for sockets to close, not for time to pass
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new AssertionError(test + " left " + leaked.size() + " connection(s) to Cinnabar (port " + srv.port()
                + ") open: close the clients a test opens (try-with-resources), take injected ones as parameters, "
                + "or set @CinnabarTest(failOnLeakedConnections = false). Still connected:\n  " + String.join("\n  ", leaked));
    }

    private static Set<String> ids(List<String> clientList) {
        Set<String> ids = new HashSet<>();
        for (String line : clientList) ids.add(id(line));
        return ids;
    }

    private static String id(String clientLine) {
        int end = clientLine.indexOf(' ');
        return end < 0 ? clientLine : clientLine.substring(0, end);
    }

    private CinnabarServer start(Settings s) {
        CinnabarServer.Builder b = CinnabarServer.builder().port(0);
        s.options.forEach(b::option);
        if (s.clock == ClockMode.MANUAL) b.clock(new ManualClock());
        CinnabarServer started = b.build().start();
        server = started;
        return started;
    }

    private static CinnabarServer server(ExtensionContext context) {
        return context.getStore(NS).get(SERVER, CinnabarServer.class);
    }

    private Settings settings(ExtensionContext context) {
        Settings s = context.getStore(NS).get(SETTINGS, Settings.class);
        return s != null ? s : programmatic.merged(annotation(context.getRequiredTestClass()));
    }

    /** The class's @CinnabarTest, or an enclosing class's for @Nested tests. */
    private static CinnabarTest annotation(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getEnclosingClass()) {
            CinnabarTest a = c.getAnnotation(CinnabarTest.class);
            if (a != null) return a;
        }
        return null;
    }
}
