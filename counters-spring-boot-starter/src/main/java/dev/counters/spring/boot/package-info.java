/** Spring Boot auto-configuration for counters. */
@NullMarked
package dev.counters.spring.boot;

import org.jspecify.annotations.NullMarked;
