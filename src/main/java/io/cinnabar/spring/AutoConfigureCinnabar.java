package io.cinnabar.spring;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.PropertyMapping;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a {@code @SpringBootTest} or a slice such as {@code @DataRedisTest}: the application talks
 * to an embedded Cinnabar on a free port, started with the test's application context and closed
 * with it; no Docker, no {@code spring.data.redis.*} properties. The server is a bean:
 * {@code @Autowired CinnabarServer server}. Every database is flushed before each test, as
 * {@code @CinnabarTest} does, unless {@link #flushBetweenTests()} is false.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
@PropertyMapping("cinnabar.embedded")
public @interface AutoConfigureCinnabar {
    /** False turns the server off for a test class that inherits this annotation. */
    boolean enabled() default true;

    @PropertyMapping(skip = PropertyMapping.Skip.YES)
    boolean flushBetweenTests() default true;
}
