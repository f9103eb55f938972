package dev.counters.spring.boot.test;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The application the slice tests of this package find: nothing of its own, so each slice shows what it adds. */
@SpringBootApplication
class TestApplication {}
