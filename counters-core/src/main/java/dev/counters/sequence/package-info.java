/** Sequences: unique, increasing numbers, from {@link dev.counters.sequence.SequenceService}. */
@NullMarked
package dev.counters.sequence;

import org.jspecify.annotations.NullMarked;
