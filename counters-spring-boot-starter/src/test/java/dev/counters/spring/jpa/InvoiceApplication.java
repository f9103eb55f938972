package dev.counters.spring.jpa;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Data JPA application whose entity ids come from {@code @CountersSequence}: its own package, so that the
 * starter's other test applications do not scan its entity.
 */
@SpringBootApplication
public class InvoiceApplication {}
