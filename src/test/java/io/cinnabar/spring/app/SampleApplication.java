package io.cinnabar.spring.app;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application under test of the Spring Boot examples: a Redis repository and templates. */
@SpringBootApplication
public class SampleApplication {
}
