package io.cinnabar.junit;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Starts a Cinnabar server on a free port, one for the test class or one per test method (see
 * {@link #lifecycle()}), and injects into test methods, constructors and lifecycle methods:
 * {@code CinnabarServer}, {@code ManualClock} (with {@code clock = MANUAL}), {@code HostAndPort},
 * a connected {@code Jedis} or {@code JedisPooled}, and Lettuce's {@code RedisClient} or
 * {@code StatefulRedisConnection} when Lettuce is on the class path. Injected clients are closed
 * after the test (or the class, when injected into {@code @BeforeAll}). Every database is flushed
 * before each test unless {@link #flushBetweenTests()} is false. A test that leaves a connection
 * it opened itself still connected fails, naming it (see {@link #failOnLeakedConnections()}).
 * Test classes may run in parallel: each has its own server.
 * <pre>{@code
 * @CinnabarTest(clock = ClockMode.MANUAL)
 * class SessionTest {
 *     @Test void expires(Jedis jedis, ManualClock clock) {
 *         jedis.setex("session", 3600, "x");
 *         clock.advance(Duration.ofHours(1).plusMillis(1)); // past its last millisecond
 *         assertFalse(jedis.exists("session"));
 *     }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ExtendWith(CinnabarExtension.class)
public @interface CinnabarTest {
    boolean flushBetweenTests() default true;

    /**
     * Config options as name/value pairs: {"hz", "100", "requirepass", "secret"}. Redis 7.0's
     * defaults apply otherwise, so DEBUG and CONFIG SET dir need {"enable-debug-command", "yes"}
     * and {"enable-protected-configs", "yes"}.
     */
    String[] options() default {};

    /** The server's clock: the system's, or one the test moves by hand. */
    ClockMode clock() default ClockMode.SYSTEM;

    /** One server for the class (default) or a fresh one per test method. */
    ServerLifecycle lifecycle() default ServerLifecycle.PER_CLASS;

    /**
     * A test fails when a connection it opened (not one the extension injected) is still
     * connected after it: the message lists the connections as CLIENT LIST shows them. Not
     * checked for test methods that run concurrently on one per-class server.
     */
    boolean failOnLeakedConnections() default true;
}
