package io.cinnabar.config;

/** A config value or directive was rejected; the message is Redis's reason text. */
public final class ConfigException extends Exception {
    public ConfigException(String reason) {
        super(reason, null, false, false);
    }
}
