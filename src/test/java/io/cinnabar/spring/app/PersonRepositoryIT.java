package io.cinnabar.spring.app;

import io.cinnabar.CinnabarServer;
import io.cinnabar.spring.AutoConfigureCinnabar;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.redis.test.autoconfigure.DataRedisTest;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@code @DataRedisTest} slice (repositories and templates only) whose repository talks to an
 * embedded Cinnabar: no Docker, no spring.data.redis properties. Example of docs/testing.md.
 */
@DataRedisTest
@AutoConfigureCinnabar
class PersonRepositoryIT {
    @Autowired
    PersonRepository people;
    @Autowired
    CinnabarServer server;

    @Test
    void savesFindsListsAndDeletes() {
        assertEquals(0, people.count());
        people.save(new Person("1", "Ada", "London"));
        people.save(new Person("2", "Grace", "Arlington"));

        Optional<Person> ada = people.findById("1");
        assertTrue(ada.isPresent());
        assertEquals("Ada", ada.get().getName());
        assertEquals(Set.of("Ada", "Grace"), names(people.findAll()));
        assertEquals(Set.of("Ada"), names(people.findByCity("London")));

        people.deleteById("1");
        assertTrue(people.findById("1").isEmpty());
        assertEquals(Set.of("Grace"), names(people.findAll()));
        assertEquals(1, people.count());
    }

    /**
     * The commands the repository sends, as MONITOR shows them; the same sequence real Redis
     * 7.0.15 receives from this repository (checked by pointing this app at redis-server).
     * MONITOR stands in for the server's command recorder (issue 11) until it exists; then this
     * asserts on server.recorder() instead, with no second connection and no markers.
     */
    @Test
    void repositorySendsTheCommandsRedisReceives() {
        assertEquals(0, people.count());
        try (CommandMonitor monitor = new CommandMonitor(server.host(), server.port())) {
            monitor.commands();
            people.save(new Person("1", "Ada", "London"));
            List<String> save = monitor.commands();
            // Lettuce opens its connection with HELLO 3 on first use.
            assertEquals(List.of(
                    "\"DEL\" \"people:1\"",
                    "\"HMSET\" \"people:1\" \"_class\" \"io.cinnabar.spring.app.Person\" \"city\" \"London\" \"id\" \"1\" \"name\" \"Ada\"",
                    "\"SADD\" \"people\" \"1\"",
                    "\"SADD\" \"people:city:London\" \"1\"",
                    "\"SADD\" \"people:1:idx\" \"people:city:London\""),
                    save.subList(save.size() - 5, save.size()));

            people.findByCity("London");
            assertEquals(List.of("\"SINTER\" \"people:city:London\"", "\"HGETALL\" \"people:1\""), monitor.commands());

            people.deleteById("1");
            assertEquals(List.of(
                    "\"HGETALL\" \"people:1\"",
                    "\"DEL\" \"people:1\"",
                    "\"SREM\" \"people\" \"1\"",
                    "\"SMEMBERS\" \"people:1:idx\"",
                    "\"TYPE\" \"people:city:London\"",
                    "\"SREM\" \"people:city:London\" \"1\"",
                    "\"DEL\" \"people:1:idx\""), monitor.commands());
        }
    }

    private static Set<String> names(Iterable<Person> found) {
        return StreamSupport.stream(found.spliterator(), false).map(Person::getName).collect(Collectors.toSet());
    }
}
