package io.cinnabar.junit;

import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.util.Map;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/** Runs sample test classes through JUnit inside a test, as a build would, and sums up what happened. */
public final class SampleRuns {
    private SampleRuns() {}

    static TestExecutionSummary run(Map<String, String> configuration, Class<?>... classes) {
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request().configurationParameters(configuration);
        for (Class<?> c : classes) request.selectors(selectClass(c));
        LauncherDiscoveryRequest built = request.build();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(built, listener);
        return listener.getSummary();
    }

    /** "succeeded/failed: messages" of a run of the named class; called reflectively from another class loader. */
    public static String runNamed(String className) throws ClassNotFoundException {
        TestExecutionSummary s = run(Map.of(), Class.forName(className));
        StringBuilder out = new StringBuilder(s.getTestsSucceededCount() + "/" + s.getTestsFailedCount());
        for (TestExecutionSummary.Failure f : s.getFailures()) out.append(": ").append(f.getException());
        return out.toString();
    }
}
