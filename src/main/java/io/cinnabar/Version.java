package io.cinnabar;

/** The versions we report: Redis's, so clients enable the right features, and our own. */
public final class Version {
    public static final String REDIS_VERSION = "7.0.15";
    public static final String CINNABAR_VERSION = "0.1.0";

    private Version() {}
}
