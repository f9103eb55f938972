package dev.counters.jdbc;

import dev.counters.CounterName;
import dev.counters.spi.Failovers;
import dev.counters.spi.Failovers.Durability;
import dev.counters.spi.Failovers.Replication;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The protection of the rows that hand out values against a change of primary that lost commits ({@link Failovers}):
 * the database's live <em>history</em> in SQL, how far a row written under another history skips, the skips made
 * and their log line, and what the database's settings say a commit survives.
 */
final class FailoverProtection {

    private static final Logger LOG = LoggerFactory.getLogger(FailoverProtection.class);

    /** The kinds of rows that skip, as the log line names them. */
    static final String SEQUENCE = "Sequence";

    static final String MAXIMUM = "Monotonic counter";

    /** PostgreSQL's synchronous_commit values that wait for the standbys of synchronous_standby_names. */
    private static final Set<String> WAITING_COMMITS = Set.of("on", "remote_write", "remote_apply");

    final long skipAhead;
    /** The live history, an expression evaluated by the database in the statement that needs it. */
    final Field<String> live;

    private final LongAdder sequences = new LongAdder();
    private final LongAdder maxima = new LongAdder();

    FailoverProtection(SQLDialect dialect, long skipAhead) {
        this.skipAhead = skipAhead;
        this.live = DSL.field(historySql(dialect), SQLDataType.VARCHAR(64));
    }

    /**
     * The history rows are written under, as SQL: on PostgreSQL the system identifier and the timeline of the WAL
     * being written, which a promotion changes at once (the checkpoint's timeline would change only at the next
     * checkpoint), readable by any role; on a standby it fails, as a write there does. On MySQL the server's UUID, on
     * MariaDB its server_id, both distinct on every server of a replication topology. MariaDB's is the session's: a
     * replica replaying a statement takes the server_id of the event's origin, so a row replicated by statement
     * carries the primary's history as one replicated by rows does (MySQL's server_uuid has no such scope: there
     * binlog_format STATEMENT defeats it). On a Galera node a constant,
     * since the cluster certifies every commit before acknowledging it and loses none on a node's death. On H2 a
     * constant: one in-process server.
     */
    static String historySql(SQLDialect dialect) {
        return switch (dialect.family()) {
            case POSTGRES ->
                "cast((select system_identifier from pg_control_system()) as varchar(20)) || '/' ||"
                        + " substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)";
            case MYSQL -> "@@global.server_uuid";
            case MARIADB -> "if(@@global.wsrep_on, 'galera', cast(@@session.server_id as char))";
            default -> "'h2'";
        };
    }

    /** Whether a row stamped {@code history} was written under another history than {@code live}. */
    static boolean stale(@Nullable String history, String live) {
        // A row written before the column existed is taken as current: stamped when the schema was migrated
        // (SchemaMigrations), it is null only when an older version of the library wrote it meanwhile.
        return history != null && !history.equals(live);
    }

    /** A row moved ahead after a change of history. */
    record Skip(String kind, CounterName name, String from, String to, long values, long was, long now) {}

    /** Counts and logs a skip that committed. */
    void made(@Nullable Skip skip) {
        if (skip == null) {
            return;
        }
        (skip.kind().equals(SEQUENCE) ? sequences : maxima).increment();
        LOG.warn(
                "{} '{}' skipped {} values ({} -> {}): the database's history changed from {} to {}, a failover or a"
                        + " promotion that may have lost commits; values repeat only if the failover lost more than {}",
                skip.kind(),
                skip.name(),
                skip.values(),
                skip.was(),
                skip.now(),
                skip.from(),
                skip.to(),
                skip.values());
    }

    Failovers.Skips skips() {
        return new Failovers.Skips(sequences.sum(), maxima.sum());
    }

    /** What the database's settings say a commit survives: a few reads, no privilege beyond a connection. */
    static Durability durability(DSLContext ctx) {
        return switch (ctx.dialect().family()) {
            case POSTGRES -> postgreSqlDurability(ctx);
            case MYSQL, MARIADB -> mySqlDurability(ctx);
            default -> new Durability(Replication.NONE, Map.of()); // H2: in-process, no replica
        };
    }

    private static Durability postgreSqlDurability(DSLContext ctx) {
        var row = ctx.fetchSingle(
                "select current_setting('synchronous_commit'), current_setting('synchronous_standby_names'),"
                        + " (select count(*) from pg_stat_replication)");
        String commit = row.get(0, String.class);
        String standbyNames = row.get(1, String.class);
        long standbys = row.get(2, Long.class);
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("synchronous_commit", commit);
        settings.put("synchronous_standby_names", standbyNames);
        // Any role sees a row per WAL sender (the details need pg_read_all_stats).
        settings.put("standbys", Long.toString(standbys));
        Replication replication = !standbyNames.isBlank() && WAITING_COMMITS.contains(commit)
                ? Replication.SYNCHRONOUS
                : standbys > 0 ? Replication.ASYNCHRONOUS : Replication.NONE;
        return new Durability(replication, settings);
    }

    private static Durability mySqlDurability(DSLContext ctx) {
        Map<String, String> settings = new LinkedHashMap<>();
        // SHOW lists only the variables the server has (the semi-synchronous plugins' once loaded).
        for (String show : new String[] {
            "show global variables where variable_name in ('wsrep_on', 'rpl_semi_sync_master_enabled',"
                    + " 'rpl_semi_sync_source_enabled', 'binlog_format')",
            "show global status where variable_name in ('wsrep_cluster_size', 'rpl_semi_sync_master_status',"
                    + " 'rpl_semi_sync_source_status', 'slaves_connected')"
        }) {
            ctx.fetch(show)
                    .forEach(row ->
                            settings.put(row.get(0, String.class).toLowerCase(Locale.ROOT), row.get(1, String.class)));
        }
        String connected = settings.remove("slaves_connected"); // MariaDB's; MySQL shows replicas to PROCESS only
        long replicas = connected != null
                ? Long.parseLong(connected)
                : ctx.fetchSingle(
                                "select count(*) from information_schema.processlist where command like 'Binlog Dump%'")
                        .get(0, Long.class);
        settings.put("replicas", Long.toString(replicas));
        if (ctx.dialect().family() != SQLDialect.MYSQL) {
            settings.remove("binlog_format"); // MariaDB's history survives every format (historySql)
        }
        return new Durability(mySqlReplication(settings), settings);
    }

    /** What MySQL's or MariaDB's settings, as {@link #durability} reads them, say a commit survives. */
    static Replication mySqlReplication(Map<String, String> settings) {
        return on(settings, "wsrep_on")
                ? Replication.CLUSTER
                : semiSynchronous(settings, "master") || semiSynchronous(settings, "source")
                        ? Replication.SYNCHRONOUS
                        : Long.parseLong(settings.getOrDefault("replicas", "0")) > 0
                                ? Replication.ASYNCHRONOUS
                                : Replication.NONE;
    }

    /**
     * Whether commits wait for a semi-synchronous replica: enabled, and not fallen back to asynchronous after the
     * timeout (the status says it, when the server shows one).
     */
    private static boolean semiSynchronous(Map<String, String> settings, String side) {
        String status = "rpl_semi_sync_" + side + "_status";
        return on(settings, "rpl_semi_sync_" + side + "_enabled")
                && (!settings.containsKey(status) || on(settings, status));
    }

    private static boolean on(Map<String, String> settings, String name) {
        return "ON".equalsIgnoreCase(settings.get(name)) || "1".equals(settings.get(name));
    }
}
