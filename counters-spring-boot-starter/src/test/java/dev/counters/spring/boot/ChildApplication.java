package dev.counters.spring.boot;

import dev.counters.CounterService;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The child JVM of {@link UnsupportedJooqStartupTest}: starts an application on the starter and an embedded H2 with
 * whatever jOOQ is on its class path, counts once and prints STARTED; a failed start prints Boot's report and exits 1.
 */
public final class ChildApplication {

    private ChildApplication() {}

    public static void main(String[] args) {
        SpringApplication application = new SpringApplication(RealApplicationTest.MinimalApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        try (ConfigurableApplicationContext context =
                application.run("--spring.datasource.generate-unique-name=true")) {
            context.getBean(CounterService.class).increment("started");
            System.out.println("STARTED");
        }
    }
}
