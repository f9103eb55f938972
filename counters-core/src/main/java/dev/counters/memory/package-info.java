/** A store that keeps counters in this JVM's memory: for tests, and for counters that need not survive a restart. */
@NullMarked
package dev.counters.memory;

import org.jspecify.annotations.NullMarked;
