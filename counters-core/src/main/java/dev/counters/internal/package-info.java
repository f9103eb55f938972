/**
 * The library's internals: public only because other packages of {@code counters-core} and the library's own
 * modules use them. Not an API: anything here may change in any release. This package holds what the internal
 * packages share (time, ids, retries, observations, threads, name rules); the service lives in
 * {@code dev.counters.internal.service}, the strategies in {@code dev.counters.internal.strategy}.
 */
@NullMarked
package dev.counters.internal;

import org.jspecify.annotations.NullMarked;
