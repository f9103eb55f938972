package dev.counters.examples.compat;

import dev.counters.CounterService;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The smallest Spring Boot application on the starter, built the way a user builds one (spring-boot-starter-parent,
 * java.version 17): counts page visits. Its two builds, boot-4.0 and boot-4.1, share these sources.
 */
@SpringBootApplication
@RestController
public class CompatApplication {

    private final CounterService counters;

    public CompatApplication(CounterService counters) {
        this.counters = counters;
    }

    @PostMapping("/visits/{page}")
    public long visit(@PathVariable String page) {
        return counters.incrementAndGet("visits." + page, 1);
    }

    @GetMapping("/visits/{page}")
    public long visits(@PathVariable String page) {
        return counters.get("visits." + page);
    }

    public static void main(String[] args) {
        SpringApplication.run(CompatApplication.class, args);
    }
}
