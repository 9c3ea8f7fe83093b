package io.cinnabar.spring;

import io.cinnabar.CinnabarServer;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.test.context.support.AbstractTestExecutionListener;

/**
 * Empties the embedded server before each test method of a class with
 * {@link AutoConfigureCinnabar}: Spring keeps one application context, and so one server, for
 * every test class that configures it alike, and a test must not see the data of the last.
 * Registered in META-INF/spring.factories; does nothing for other test classes.
 */
public final class FlushBeforeEachTest extends AbstractTestExecutionListener {
    @Override
    public int getOrder() {
        // After dependency injection (2000), before transactional and SQL listeners.
        return 2100;
    }

    @Override
    public void beforeTestMethod(TestContext test) {
        AutoConfigureCinnabar cinnabar = TestContextAnnotationUtils.findMergedAnnotation(
                test.getTestClass(), AutoConfigureCinnabar.class);
        if (cinnabar == null || !cinnabar.enabled() || !cinnabar.flushBetweenTests()) return;
        test.getApplicationContext().getBeanProvider(CinnabarServer.class).ifAvailable(CinnabarServer::flushAll);
    }
}
