/** Counters in Spring Boot tests: {@link dev.counters.spring.boot.test.AutoConfigureCounters}. */
@NullMarked
package dev.counters.spring.boot.test;

import org.jspecify.annotations.NullMarked;
