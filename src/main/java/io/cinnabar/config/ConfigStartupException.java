package io.cinnabar.config;

/**
 * A config file line that only the started server can judge (rename-command of a command that
 * does not exist): the message is Redis's whole fatal config error text.
 */
public final class ConfigStartupException extends RuntimeException {
    public ConfigStartupException(String fatalText) {
        super(fatalText);
    }
}
