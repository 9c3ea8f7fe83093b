package io.cinnabar.junit;

import io.cinnabar.CinnabarServer;
import io.cinnabar.ManualClock;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.jar.JarFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The extension as a build sees it: sample classes (nested here, so the build itself does not
 * run them) go through JUnit and this test checks what happened.
 */
class CinnabarExtensionIT {
    @Test
    void perMethodServersAreFreshAndClosedAfterEachTest() {
        PerMethodSample.servers.clear();
        TestExecutionSummary s = SampleRuns.run(Map.of(), PerMethodSample.class);
        assertEquals(2, s.getTestsSucceededCount(), () -> failures(s));
        List<CinnabarServer> servers = new ArrayList<>(PerMethodSample.servers.keySet());
        assertEquals(2, servers.size());
        assertNotSame(servers.get(0), servers.get(1));
        assertFalse(servers.get(0).isRunning());
        assertFalse(servers.get(1).isRunning());
    }

    @Test
    void parallelClassesEachGetTheirOwnServer() {
        ParallelSample.ports.clear();
        ParallelSample.together.reset();
        TestExecutionSummary s = SampleRuns.run(Map.of(
                "junit.jupiter.execution.parallel.enabled", "true",
                "junit.jupiter.execution.parallel.mode.classes.default", "concurrent",
                "junit.jupiter.execution.parallel.config.strategy", "fixed",
                "junit.jupiter.execution.parallel.config.fixed.parallelism", "2"), ParallelA.class, ParallelB.class);
        // Each waited for the other inside its test: both ran at once, each on a server of its own.
        assertEquals(2, s.getTestsSucceededCount(), () -> failures(s));
        assertEquals(2, Set.copyOf(ParallelSample.ports.values()).size(), ParallelSample.ports.toString());
    }

    @Test
    void nestedClassesUseTheEnclosingClassSettings() {
        TestExecutionSummary s = SampleRuns.run(Map.of(), NestedSample.class);
        assertEquals(2, s.getTestsSucceededCount(), () -> failures(s));
    }

    @Test
    void aTestThatLeavesAConnectionOpenFailsNamingIt() {
        TestExecutionSummary s = SampleRuns.run(Map.of(), LeakingSample.class, TidySample.class);
        try {
            assertEquals(2, s.getTestsSucceededCount(), () -> failures(s));
            assertEquals(1, s.getTestsFailedCount());
            String message = s.getFailures().get(0).getException().getMessage();
            assertTrue(message.startsWith("leaks(CinnabarServer) left 1 connection(s) to Cinnabar (port "), message);
            assertTrue(message.contains("name=left-open "), message);
        } finally {
            LeakingSample.leaked.close();
        }
    }

    @Test
    void aManualClockIsInjectedOnlyWhereTheServerHasOne() {
        TestExecutionSummary s = SampleRuns.run(Map.of(), SystemClockSample.class);
        assertEquals(1, s.getTestsFailedCount());
        assertEquals("The Cinnabar server runs on the system clock: use @CinnabarTest(clock = ClockMode.MANUAL) to inject a ManualClock",
                s.getFailures().get(0).getException().getMessage());
    }

    @Test
    void theExtensionWorksWithoutLettuceOnTheClassPath() throws Exception {
        try (URLClassLoader withoutLettuce = new URLClassLoader(classPathWithout("lettuce"), ClassLoader.getPlatformClassLoader())) {
            assertThrows(ClassNotFoundException.class, () -> withoutLettuce.loadClass("io.lettuce.core.RedisClient"));
            // JUnit finds its engines through the context class loader.
            ClassLoader previous = Thread.currentThread().getContextClassLoader();
            Thread.currentThread().setContextClassLoader(withoutLettuce);
            try {
                Object result = withoutLettuce.loadClass(SampleRuns.class.getName()).getMethod("runNamed", String.class)
                        .invoke(null, JedisOnlySample.class.getName());
                assertEquals("1/0", result);
            } finally {
                Thread.currentThread().setContextClassLoader(previous);
            }
        }
    }

    private static String failures(TestExecutionSummary s) {
        StringBuilder out = new StringBuilder();
        for (TestExecutionSummary.Failure f : s.getFailures()) out.append(f.getTestIdentifier().getDisplayName()).append(": ").append(f.getException()).append('\n');
        return out.toString();
    }

    /** This JVM's class path (surefire passes it in a jar's manifest) minus entries whose name contains word. */
    private static URL[] classPathWithout(String word) throws IOException {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            if (entry.contains("surefirebooter")) {
                try (JarFile jar = new JarFile(entry)) {
                    String classPath = jar.getManifest().getMainAttributes().getValue("Class-Path");
                    for (String u : classPath.split(" ")) if (!u.isEmpty() && !u.contains(word)) urls.add(new URL(u));
                }
            } else if (!entry.contains(word)) {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        return urls.toArray(new URL[0]);
    }

    // ---- samples, run by the tests above ----

    @CinnabarTest(lifecycle = ServerLifecycle.PER_METHOD, flushBetweenTests = false)
    static class PerMethodSample {
        static final Map<CinnabarServer, Boolean> servers = new ConcurrentHashMap<>();

        @Test
        void one(Jedis jedis, CinnabarServer server) {
            assertEquals(0, jedis.dbSize());
            jedis.set("left", "behind");
            servers.put(server, true);
        }

        @Test
        void two(Jedis jedis, CinnabarServer server) {
            assertEquals(0, jedis.dbSize());
            jedis.set("left", "behind");
            servers.put(server, true);
        }
    }

    static class ParallelSample {
        static final Map<String, Integer> ports = new ConcurrentHashMap<>();
        static final CyclicBarrier together = new CyclicBarrier(2);

        static void meet(String name, CinnabarServer server, Jedis jedis)
                throws InterruptedException, BrokenBarrierException, TimeoutException {
            ports.put(name, server.port());
            jedis.set("who", name);
            together.await(30, TimeUnit.SECONDS);
            assertEquals(name, jedis.get("who"));
        }
    }

    @CinnabarTest
    static class ParallelA {
        @Test
        void meets(CinnabarServer server, Jedis jedis) throws Exception {
            ParallelSample.meet("A", server, jedis);
        }
    }

    @CinnabarTest
    static class ParallelB {
        @Test
        void meets(CinnabarServer server, Jedis jedis) throws Exception {
            ParallelSample.meet("B", server, jedis);
        }
    }

    @CinnabarTest
    static class LeakingSample {
        static Jedis leaked;

        @Test
        void leaks(CinnabarServer server) {
            leaked = new Jedis(server.host(), server.port());
            leaked.clientSetname("left-open");
        }

        @Test
        void injectedClientsAreNotLeaks(Jedis jedis, redis.clients.jedis.JedisPooled pooled) {
            jedis.ping();
            pooled.set("k", "v");
        }
    }

    @CinnabarTest(clock = ClockMode.MANUAL)
    static class TidySample {
        @Test
        void closesWhatItOpens(CinnabarServer server, ManualClock clock) {
            try (Jedis own = new Jedis(server.host(), server.port())) {
                own.ping();
            }
            assertEquals(clock, server.clock());
        }
    }

    @CinnabarTest(clock = ClockMode.MANUAL, options = {"databases", "4"})
    static class NestedSample {
        @Test
        void outer(ManualClock clock, Jedis jedis) {
            assertEquals("4", jedis.configGet("databases").get("databases"));
        }

        @org.junit.jupiter.api.Nested
        class Inner {
            @Test
            void inner(ManualClock clock, Jedis jedis) {
                assertEquals("4", jedis.configGet("databases").get("databases"));
                jedis.psetex("k", 5, "v");
                clock.advanceMillis(6);
                assertEquals(0, jedis.dbSize());
            }
        }
    }

    @CinnabarTest
    static class SystemClockSample {
        @Test
        void wantsAClock(ManualClock clock) {
            clock.advance(java.time.Duration.ofSeconds(1));
        }
    }

    @CinnabarTest
    static class JedisOnlySample {
        @Test
        void runs(Jedis jedis, CinnabarServer server) {
            assertEquals("PONG", jedis.ping());
            assertTrue(server.isRunning());
        }
    }
}
