package dev.counters.examples.webapp;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** Counts page views and likes over HTTP; run it with {@code ./mvnw -pl examples/webapp -am spring-boot:run}. */
@SpringBootApplication
public class CountersExampleApplication {

    public static void main(String[] args) {
        // jOOQ greets with a logo and a tip on first use; an example's console is clearer without them.
        System.setProperty("org.jooq.no-logo", "true");
        System.setProperty("org.jooq.no-tips", "true");
        SpringApplication.run(CountersExampleApplication.class, args);
    }
}
