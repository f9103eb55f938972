/**
 * The storage SPI: a small core every store offers, and opt-in capabilities. The algorithms live in the strategies;
 * a store only knows how to run these operations atomically and translate its errors.
 */
@NullMarked
package dev.counters.spi;

import org.jspecify.annotations.NullMarked;
