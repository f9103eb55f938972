package dev.counters.internal.strategy;

/**
 * A strategy that counts the increments it accepted itself, so that the service does not count them a second time:
 * {@code buffered}'s increment of 1 is one add to its counter's slot, whose sum is then also the count. The service
 * counts the increments of every other strategy.
 */
public interface SelfCounting {

    /** The increments accepted so far; it never goes back. */
    long acceptedIncrements();
}
