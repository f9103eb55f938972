/**
 * The storage SPI: the few primitive operations a database must offer. The algorithms live in the strategies;
 * a store only knows how to run these operations atomically.
 */
@NullMarked
package dev.counters.spi;

import org.jspecify.annotations.NullMarked;
