/** Rate limiters: GCRA on the store's {@link dev.counters.spi.RateLimits}, windows on bounded counters. Not an API. */
@NullMarked
package dev.counters.internal.ratelimit;

import org.jspecify.annotations.NullMarked;
