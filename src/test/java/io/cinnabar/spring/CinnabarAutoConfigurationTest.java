package io.cinnabar.spring;

import io.cinnabar.CinnabarServer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** When the auto-configuration starts a server, which one it uses, and when the server stops. */
class CinnabarAutoConfigurationTest {
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({CinnabarAutoConfiguration.class, DataRedisAutoConfiguration.class})
    static class App {
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnServer {
        static final CinnabarServer SERVER = CinnabarServer.builder().port(0).build();

        @Bean
        CinnabarServer cinnabarServer() {
            return SERVER.start();
        }
    }

    private static ConfigurableApplicationContext run(Class<?>[] sources, String... properties) {
        return new SpringApplicationBuilder(sources).web(WebApplicationType.NONE).properties(properties).run();
    }

    @Test
    void offUnlessEnabled() {
        try (ConfigurableApplicationContext context = run(new Class<?>[] {App.class})) {
            assertTrue(context.getBeansOfType(CinnabarServer.class).isEmpty());
            assertFalse(context.getBean(DataRedisConnectionDetails.class) instanceof CinnabarConnectionDetails);
        }
    }

    @Test
    void startsAServerThatLivesAndDiesWithTheContext() {
        CinnabarServer server;
        try (ConfigurableApplicationContext context = run(new Class<?>[] {App.class},
                "cinnabar.embedded.enabled=true", "cinnabar.embedded.options.databases=4")) {
            server = context.getBean(CinnabarServer.class);
            assertTrue(server.isRunning());
            assertEquals(server.port(), context.getBean(DataRedisConnectionDetails.class).getStandalone().getPort());
            try (RedisConnection c = context.getBean(RedisConnectionFactory.class).getConnection()) {
                assertEquals("4", c.serverCommands().getConfig("databases").getProperty("databases"));
            }
        }
        assertFalse(server.isRunning());
    }

    @Test
    void usesTheApplicationsOwnServer() {
        try (ConfigurableApplicationContext context = run(new Class<?>[] {App.class, OwnServer.class},
                "cinnabar.embedded.enabled=true")) {
            assertSame(OwnServer.SERVER, context.getBean(CinnabarServer.class));
            assertEquals(OwnServer.SERVER.port(),
                    context.getBean(DataRedisConnectionDetails.class).getStandalone().getPort());
        }
        assertFalse(OwnServer.SERVER.isRunning());
    }
}
