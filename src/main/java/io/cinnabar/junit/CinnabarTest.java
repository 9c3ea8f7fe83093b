package io.cinnabar.junit;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Starts one Cinnabar server on a free port for the test class and injects it into test
 * methods and constructors as {@code CinnabarServer}, {@code HostAndPort} or a connected
 * {@code Jedis} (closed after each test). Every database is flushed before each test unless
 * {@link #flushBetweenTests()} is false.
 * <pre>{@code
 * @CinnabarTest
 * class CartTest {
 *     @Test void addsItem(Jedis jedis) { ... }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(CinnabarExtension.class)
public @interface CinnabarTest {
    boolean flushBetweenTests() default true;

    /**
     * Config options as name/value pairs: {"hz", "100", "requirepass", "secret"}. Redis 7.0's
     * defaults apply otherwise, so DEBUG and CONFIG SET dir need {"enable-debug-command", "yes"}
     * and {"enable-protected-configs", "yes"}.
     */
    String[] options() default {};
}
