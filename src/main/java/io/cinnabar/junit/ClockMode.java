package io.cinnabar.junit;

/** Which clock a {@link CinnabarTest} server runs on. */
public enum ClockMode {
    /** The system's time. */
    SYSTEM,
    /**
     * A {@link io.cinnabar.ManualClock} that stands still until the test moves it; inject it as a
     * {@code ManualClock} parameter, or reach it through {@code server.clock()}.
     */
    MANUAL
}
