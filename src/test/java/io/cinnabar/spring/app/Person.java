package io.cinnabar.spring.app;

import org.springframework.data.annotation.Id;
import org.springframework.data.redis.core.RedisHash;
import org.springframework.data.redis.core.index.Indexed;

/** Stored by Spring Data Redis as the hash people:{id}, its id in the set people, and city in an index set. */
@RedisHash("people")
public class Person {
    @Id
    private String id;
    private String name;
    @Indexed
    private String city;

    public Person() {
    }

    public Person(String id, String name, String city) {
        this.id = id;
        this.name = name;
        this.city = city;
    }

    public String getId() {
        return id;
    }

    public void setId(String id) {
        this.id = id;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getCity() {
        return city;
    }

    public void setCity(String city) {
        this.city = city;
    }
}
