package dev.counters.spring.boot;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Configuration of counters, under {@code counters.*}.
 *
 * @param defaultStrategy the strategy of every counter not configured otherwise
 * @param jdbc where and how counters are stored in the application's database
 */
@ConfigurationProperties("counters")
public record CountersProperties(@DefaultValue("atomic") StrategyType defaultStrategy, @DefaultValue Jdbc jdbc) {

    /** The strategies that can be chosen in configuration. */
    public enum StrategyType {
        /** One row per counter, one atomic upsert per increment: exact and durable at once. */
        ATOMIC
    }

    /** When the library's own Flyway migrations run at startup. */
    public enum InitializeSchema {
        /** Only on an embedded (in-memory) database. */
        EMBEDDED,
        /** On every database; the migrations have their own history table and are safe to run on every start. */
        ALWAYS,
        /** Never: the tables are created by other means (the README shows the DDL). */
        NEVER
    }

    /**
     * Storage in the application's {@code DataSource}.
     *
     * @param tablePrefix prefix for the library's table names: empty, or a letter followed by letters, digits and
     *     underscores, at most 32 characters
     * @param initializeSchema when to create and upgrade the library's tables with its Flyway migrations
     */
    public record Jdbc(@DefaultValue("") String tablePrefix, @DefaultValue("embedded") InitializeSchema initializeSchema) {
    }
}
