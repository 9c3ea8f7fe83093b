package io.cinnabar.spring;

import io.cinnabar.CinnabarServer;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import java.util.Map;

/**
 * Starts an embedded Cinnabar on a free port and points Spring Data Redis at it, in the way
 * {@code @ServiceConnection} points it at a container: Boot's Redis auto-configuration finds a
 * {@link DataRedisConnectionDetails} bean and uses it instead of {@code spring.data.redis.*}.
 * Off unless {@code cinnabar.embedded.enabled=true}, which {@link AutoConfigureCinnabar} sets, so
 * an application that merely has Cinnabar on its class path never starts a server by surprise.
 * Config options come from {@code cinnabar.embedded.options.<name>=<value>} (conf-file names).
 */
@AutoConfiguration(beforeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnBooleanProperty(CinnabarAutoConfiguration.ENABLED)
public class CinnabarAutoConfiguration {
    static final String ENABLED = "cinnabar.embedded.enabled";
    static final String OPTIONS = "cinnabar.embedded.options";

    /** A server the application declared itself (say with requirepass) is used instead. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public CinnabarServer cinnabarServer(Environment environment) {
        CinnabarServer.Builder builder = CinnabarServer.builder().port(0);
        Map<String, String> options = Binder.get(environment)
                .bind(OPTIONS, Bindable.mapOf(String.class, String.class)).orElse(Map.of());
        options.forEach(builder::option);
        return builder.build().start();
    }

    /** Apart from the server so that an app without Spring Data Redis still gets a server. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(DataRedisConnectionDetails.class)
    static class ConnectionDetailsConfiguration {
        @Bean
        @ConditionalOnMissingBean
        CinnabarConnectionDetails cinnabarConnectionDetails(CinnabarServer server) {
            return new CinnabarConnectionDetails(server);
        }
    }
}
