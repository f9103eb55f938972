package dev.counters.examples.webapp;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** Counts page views and likes over HTTP; run it with {@code ./mvnw -pl examples/webapp -am spring-boot:run}. */
@SpringBootApplication
public class CountersExampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(CountersExampleApplication.class, args);
    }
}
