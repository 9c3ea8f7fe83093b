package io.cinnabar.junit;

/** How long a {@link CinnabarTest} server lives. */
public enum ServerLifecycle {
    /** One server for the test class, flushed before each test (unless flushBetweenTests is false). */
    PER_CLASS,
    /** A fresh server for each test method, closed after it: tests of one class may then run in parallel. */
    PER_METHOD
}
