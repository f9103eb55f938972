/**
 * counters: counters and sequences that take high write rates on an SQL database. Exports the API, the strategies'
 * factories and settings, the storage SPI, sequences and the in-memory store; {@code dev.counters.internal} and its
 * subpackages (the service and the strategies that run behind the API) stay inside.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"
}) // Resilience4j's jars name their modules, but have no descriptor
module dev.counters.core {
    exports dev.counters;
    exports dev.counters.memory;
    exports dev.counters.observation;
    exports dev.counters.sequence;
    exports dev.counters.spi;
    exports dev.counters.strategy;

    requires transitive io.github.resilience4j.circuitbreaker;
    requires transitive io.github.resilience4j.core;
    requires transitive io.github.resilience4j.retry;
    requires transitive micrometer.observation;
    requires transitive micrometer.commons;
    requires com.github.benmanes.caffeine;
    requires org.slf4j;
    requires static transitive org.jspecify;
}
