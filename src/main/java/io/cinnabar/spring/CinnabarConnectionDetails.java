package io.cinnabar.spring;

import io.cinnabar.CinnabarServer;
import io.cinnabar.config.ConfigOptions;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

/** Where Spring Data Redis finds the embedded server: its address, and requirepass when one is set. */
public final class CinnabarConnectionDetails implements DataRedisConnectionDetails {
    private final CinnabarServer server;

    public CinnabarConnectionDetails(CinnabarServer server) {
        this.server = server;
    }

    @Override
    public String getPassword() {
        String password = server.config().getString(ConfigOptions.REQUIREPASS);
        return password.isEmpty() ? null : password;
    }

    @Override
    public Standalone getStandalone() {
        return Standalone.of(server.host(), server.port());
    }
}
