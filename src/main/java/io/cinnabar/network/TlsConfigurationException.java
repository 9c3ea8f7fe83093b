package io.cinnabar.network;

/** TLS could not be configured from the tls-* options; the message is the reason Redis logs. */
public final class TlsConfigurationException extends IllegalStateException {
    public TlsConfigurationException(String reason) {
        super(reason);
    }
}
