package io.cinnabar.spring.app;

import io.cinnabar.CinnabarServer;
import io.cinnabar.command.testing.Recorder;
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
     * The commands the repository sends, as the server's recorder saw them: the same sequence
     * real Redis 7.0.15 receives from this repository (checked with MONITOR by pointing this app
     * at redis-server).
     */
    @Test
    void repositorySendsTheCommandsRedisReceives() {
        assertEquals(0, people.count());
        Recorder recorder = server.recorder().clear().start();
        try {
            people.save(new Person("1", "Ada", "London"));
            List<String> save = sent(recorder);
            // Lettuce opens its connection with HELLO 3 on first use.
            assertEquals(List.of(
                    "DEL people:1",
                    "HMSET people:1 _class io.cinnabar.spring.app.Person city London id 1 name Ada",
                    "SADD people 1",
                    "SADD people:city:London 1",
                    "SADD people:1:idx people:city:London"),
                    save.subList(save.size() - 5, save.size()));

            people.findByCity("London");
            assertEquals(List.of("SINTER people:city:London", "HGETALL people:1"), sent(recorder));

            people.deleteById("1");
            assertEquals(2, recorder.commands("DEL").size());
            assertEquals(List.of(
                    "HGETALL people:1",
                    "DEL people:1",
                    "SREM people 1",
                    "SMEMBERS people:1:idx",
                    "TYPE people:city:London",
                    "SREM people:city:London 1",
                    "DEL people:1:idx"), sent(recorder));
        } finally {
            recorder.stop();
        }
    }

    /** What the recorder kept since the last call, as "NAME arg ...", and forgets it. */
    private static List<String> sent(Recorder recorder) {
        List<String> sent = recorder.commands().stream().map(Object::toString).collect(Collectors.toList());
        recorder.clear();
        return sent;
    }

    private static Set<String> names(Iterable<Person> found) {
        return StreamSupport.stream(found.spliterator(), false).map(Person::getName).collect(Collectors.toSet());
    }
}
