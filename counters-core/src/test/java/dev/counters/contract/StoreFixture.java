package dev.counters.contract;

import dev.counters.spi.CounterStore;

/** The stores a contract runs on: one, and a second independent instance on the same data (another node). */
public interface StoreFixture {

    CounterStore store();

    CounterStore anotherStore();
}
