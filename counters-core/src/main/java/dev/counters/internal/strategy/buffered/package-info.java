/**
 * The buffered strategy: increments are added up in memory and flushed in batches. Not an API.
 */
@NullMarked
package dev.counters.internal.strategy.buffered;

import org.jspecify.annotations.NullMarked;
