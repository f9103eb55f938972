package dev.counters.jdbc;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.table;
import static org.jooq.impl.DSL.unquotedName;

import java.util.List;
import java.util.regex.Pattern;
import org.jooq.DataType;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * The library's tables and columns as typed jOOQ objects, named with the configured prefix. Names are unquoted so
 * that each database folds them as it folded the DDL in the migrations; the prefix is therefore restricted to
 * characters every database accepts unquoted.
 */
final class CounterTables {

    static final int MAX_PREFIX_LENGTH = 32;
    private static final Pattern PREFIX = Pattern.compile("[A-Za-z][A-Za-z0-9_]*|");

    final String prefix;

    // counter_cells: a counter is the sum of its cells.
    final Table<Record> cells;
    final Field<String> cellsName;
    final Field<String> cellsCell;
    final Field<Long> cellsValue;
    final Field<Long> cellsVersion;
    final Field<Long> cellsRoomDown;
    final Field<Long> cellsRoomUp;

    // counter_shards: the persisted, only-growing shard count of sharded counters.
    final Table<Record> shards;
    final Field<String> shardsName;
    final Field<Integer> shardsCount;

    // counter_leases: expiring claims (node identity, one recount in flight).
    final Table<Record> leases;
    final Field<String> leasesKey;
    final Field<String> leasesOwner;
    final Field<Long> leasesExpiresAt;

    // counter_batches: keys of applied batches.
    final Table<Record> batches;
    final Field<String> batchesKey;
    final Field<Long> batchesAppliedAt;

    // counter_keys: callers' idempotency keys.
    final Table<Record> keys;
    final Field<String> keysKey;
    final Field<String> keysName;
    final Field<Long> keysDelta;
    final Field<Long> keysValue;
    final Field<Long> keysAppliedAt;

    // counter_deltas: unfolded deltas of delta-log counters.
    final Table<Record> deltas;
    final Field<String> deltasName;
    final Field<String> deltasId;
    final Field<Long> deltasDelta;
    final Field<Long> deltasAppendedAt;
    final Field<Short> deltasFolded;

    // counter_max_shards: monotonic counters' maximum record.
    final Table<Record> maxShards;
    final Field<String> maxShardsName;
    final Field<Integer> maxShardsShard;
    final Field<Long> maxShardsValue;
    /** The history the shard was last written under (see {@link FailoverProtection}); null before V9. */
    final Field<String> maxShardsHistory;

    // counter_sequences: the next value of each sequence.
    final Table<Record> sequences;
    final Field<String> sequencesName;
    final Field<Long> sequencesNext;
    /** The history the row was last written under (see {@link FailoverProtection}); null before V9. */
    final Field<String> sequencesHistory;

    // counter_bounds: the bounds of bounded counters.
    final Table<Record> bounds;
    final Field<String> boundsName;
    final Field<Long> boundsMin;
    final Field<Long> boundsMax;
    final Field<Long> boundsBoundAt;
    /** 1 once sealed ({@code Escrow.seal}): no bind opens it again. */
    final Field<Short> boundsSealed;

    // counter_allowances: the nodes holding an allowance of a bounded counter.
    final Table<Record> allowances;
    final Field<String> allowancesNode;
    final Field<String> allowancesName;

    // counter_holds: keyed changes and holds of bounded counters.
    final Table<Record> holds;
    final Field<String> holdsKey;
    final Field<String> holdsName;
    final Field<Long> holdsDelta;
    final Field<Short> holdsState;
    final Field<Long> holdsValue;
    final Field<Long> holdsExpiresAt;
    final Field<Long> holdsRecordedAt;
    final Field<Long> holdsSettledAt;

    // counter_rate_tat: the theoretical arrival time of each key of a GCRA rate limiter.
    final Table<Record> rateTat;
    final Field<String> rateTatLimiter;
    final Field<String> rateTatKey;
    final Field<Long> rateTatTat;

    // counter_members: the members of membership counters, one row each.
    final Table<Record> members;
    final Field<String> membersName;
    final Field<String> membersMember;

    CounterTables(String prefix) {
        this.prefix = validatePrefix(prefix);
        this.cells = table(unquotedName(prefix + "counter_cells"));
        this.cellsName = column(cells, "counter_name", SQLDataType.VARCHAR(128));
        this.cellsCell = column(cells, "cell", SQLDataType.VARCHAR(64));
        this.cellsValue = column(cells, "cell_value", SQLDataType.BIGINT);
        this.cellsVersion = column(cells, "version", SQLDataType.BIGINT);
        this.cellsRoomDown = nullable(cells, "room_down", SQLDataType.BIGINT);
        this.cellsRoomUp = nullable(cells, "room_up", SQLDataType.BIGINT);

        this.shards = table(unquotedName(prefix + "counter_shards"));
        this.shardsName = column(shards, "counter_name", SQLDataType.VARCHAR(128));
        this.shardsCount = column(shards, "shards", SQLDataType.INTEGER);

        this.leases = table(unquotedName(prefix + "counter_leases"));
        this.leasesKey = column(leases, "lease_key", SQLDataType.VARCHAR(200));
        this.leasesOwner = column(leases, "owner", SQLDataType.VARCHAR(64));
        this.leasesExpiresAt = column(leases, "expires_at", SQLDataType.BIGINT);

        this.batches = table(unquotedName(prefix + "counter_batches"));
        this.batchesKey = column(batches, "batch_key", SQLDataType.VARCHAR(100));
        this.batchesAppliedAt = column(batches, "applied_at", SQLDataType.BIGINT);

        this.keys = table(unquotedName(prefix + "counter_keys"));
        this.keysKey = column(keys, "idempotency_key", SQLDataType.VARCHAR(100));
        this.keysName = column(keys, "counter_name", SQLDataType.VARCHAR(128));
        this.keysDelta = column(keys, "delta", SQLDataType.BIGINT);
        this.keysValue = nullable(keys, "result_value", SQLDataType.BIGINT);
        this.keysAppliedAt = column(keys, "applied_at", SQLDataType.BIGINT);

        this.deltas = table(unquotedName(prefix + "counter_deltas"));
        this.deltasName = column(deltas, "counter_name", SQLDataType.VARCHAR(128));
        this.deltasId = column(deltas, "delta_id", SQLDataType.VARCHAR(40));
        this.deltasDelta = column(deltas, "delta", SQLDataType.BIGINT);
        this.deltasAppendedAt = column(deltas, "appended_at", SQLDataType.BIGINT);
        this.deltasFolded = column(deltas, "folded", SQLDataType.SMALLINT);

        this.maxShards = table(unquotedName(prefix + "counter_max_shards"));
        this.maxShardsName = column(maxShards, "counter_name", SQLDataType.VARCHAR(128));
        this.maxShardsShard = column(maxShards, "shard", SQLDataType.INTEGER);
        this.maxShardsValue = column(maxShards, "shard_value", SQLDataType.BIGINT);
        this.maxShardsHistory = nullable(maxShards, "history", SQLDataType.VARCHAR(64));

        this.sequences = table(unquotedName(prefix + "counter_sequences"));
        this.sequencesName = column(sequences, "sequence_name", SQLDataType.VARCHAR(128));
        this.sequencesNext = column(sequences, "next_value", SQLDataType.BIGINT);
        this.sequencesHistory = nullable(sequences, "history", SQLDataType.VARCHAR(64));

        this.bounds = table(unquotedName(prefix + "counter_bounds"));
        this.boundsName = column(bounds, "counter_name", SQLDataType.VARCHAR(128));
        this.boundsMin = nullable(bounds, "min_value", SQLDataType.BIGINT);
        this.boundsMax = nullable(bounds, "max_value", SQLDataType.BIGINT);
        this.boundsBoundAt = column(bounds, "bound_at", SQLDataType.BIGINT);
        this.boundsSealed = column(bounds, "sealed", SQLDataType.SMALLINT);

        this.allowances = table(unquotedName(prefix + "counter_allowances"));
        this.allowancesNode = column(allowances, "node_id", SQLDataType.VARCHAR(40));
        this.allowancesName = column(allowances, "counter_name", SQLDataType.VARCHAR(128));

        this.holds = table(unquotedName(prefix + "counter_holds"));
        this.holdsKey = column(holds, "op_key", SQLDataType.VARCHAR(100));
        this.holdsName = column(holds, "counter_name", SQLDataType.VARCHAR(128));
        this.holdsDelta = column(holds, "delta", SQLDataType.BIGINT);
        this.holdsState = column(holds, "state", SQLDataType.SMALLINT);
        this.holdsValue = nullable(holds, "result_value", SQLDataType.BIGINT);
        this.holdsExpiresAt = nullable(holds, "expires_at", SQLDataType.BIGINT);
        this.holdsRecordedAt = column(holds, "recorded_at", SQLDataType.BIGINT);
        this.holdsSettledAt = nullable(holds, "settled_at", SQLDataType.BIGINT);

        this.rateTat = table(unquotedName(prefix + "counter_rate_tat"));
        this.rateTatLimiter = column(rateTat, "limiter", SQLDataType.VARCHAR(48));
        this.rateTatKey = column(rateTat, "k", SQLDataType.VARCHAR(48));
        this.rateTatTat = column(rateTat, "tat", SQLDataType.BIGINT);

        this.members = table(unquotedName(prefix + "counter_members"));
        this.membersName = column(members, "counter_name", SQLDataType.VARCHAR(128));
        this.membersMember = column(members, "member_id", SQLDataType.VARCHAR(128));
    }

    private static <T> Field<T> column(Table<?> table, String name, DataType<T> type) {
        return field(unquotedName(table.getName(), name), type.notNull());
    }

    private static <T> Field<T> nullable(Table<?> table, String name, DataType<T> type) {
        return field(unquotedName(table.getName(), name), type.nullable(true));
    }

    /** Every table with its columns, for the test that compares this holder with the migrated schema. */
    List<TableColumns> all() {
        return List.of(
                new TableColumns(
                        cells, List.of(cellsName, cellsCell, cellsValue, cellsVersion, cellsRoomDown, cellsRoomUp)),
                new TableColumns(shards, List.of(shardsName, shardsCount)),
                new TableColumns(leases, List.of(leasesKey, leasesOwner, leasesExpiresAt)),
                new TableColumns(batches, List.of(batchesKey, batchesAppliedAt)),
                new TableColumns(keys, List.of(keysKey, keysName, keysDelta, keysValue, keysAppliedAt)),
                new TableColumns(deltas, List.of(deltasName, deltasId, deltasDelta, deltasAppendedAt, deltasFolded)),
                new TableColumns(maxShards, List.of(maxShardsName, maxShardsShard, maxShardsValue, maxShardsHistory)),
                new TableColumns(sequences, List.of(sequencesName, sequencesNext, sequencesHistory)),
                new TableColumns(bounds, List.of(boundsName, boundsMin, boundsMax, boundsBoundAt, boundsSealed)),
                new TableColumns(allowances, List.of(allowancesNode, allowancesName)),
                new TableColumns(
                        holds,
                        List.of(
                                holdsKey,
                                holdsName,
                                holdsDelta,
                                holdsState,
                                holdsValue,
                                holdsExpiresAt,
                                holdsRecordedAt,
                                holdsSettledAt)),
                new TableColumns(rateTat, List.of(rateTatLimiter, rateTatKey, rateTatTat)),
                new TableColumns(members, List.of(membersName, membersMember)));
    }

    record TableColumns(Table<?> table, List<Field<?>> columns) {}

    static String validatePrefix(String prefix) {
        if (prefix == null) {
            throw new IllegalArgumentException("Table prefix must not be null (use \"\" for none)");
        }
        if (prefix.length() > MAX_PREFIX_LENGTH || !PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("Table prefix '" + prefix + "' is invalid: it must be empty, or start"
                    + " with a letter and contain only ASCII letters, digits and '_', at most " + MAX_PREFIX_LENGTH
                    + " characters");
        }
        return prefix;
    }
}
