package dev.counters.spring.jpa;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Data JPA application whose entity ids come from {@code @CountersSequence}: its own package, so that the
 * starter's other test applications do not scan its entity. Redis, on the test classpath for other tests, is left out.
 */
@SpringBootApplication(excludeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
public class InvoiceApplication {}
