package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterName;
import dev.counters.jdbc.testing.FaultInjectingDataSource;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An increment of a cell that exists is one {@code UPDATE}: an upsert of an existing row costs the server more
 * (MariaDB tries the insert and meets the duplicate key first), and it is what {@code atomic}, {@code node} and
 * {@code sharded} send per write. The upsert is for a cell's first write.
 */
class CellWriteStatementsTest {

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void anIncrementOfAnExistingCellIsOneUpdate(TestDatabase database) {
        JooqStores stores = JooqStores.shared(database);
        FaultInjectingDataSource counting = new FaultInjectingDataSource(database.dataSource());
        JooqCounterStore store =
                JooqCounterStore.builder(counting).tablePrefix(stores.prefix()).build();
        CounterName counter = CounterName.of("writes" + System.nanoTime());
        List<String> prepared = new CopyOnWriteArrayList<>();
        counting.onPrepare = prepared::add;

        store.add(counter, "v", 2);
        assertThat(writes(prepared))
                .as("a cell's first write")
                .last()
                .satisfies(sql -> assertThat(sql).doesNotStartWith("update"));
        prepared.clear();
        store.add(counter, "v", 3);

        assertThat(writes(prepared))
                .singleElement()
                .satisfies(sql -> assertThat(sql).startsWith("update"));
        assertThat(store.get(counter)).isEqualTo(5);
    }

    private static List<String> writes(List<String> prepared) {
        return prepared.stream()
                .map(sql -> sql.strip().toLowerCase(Locale.ROOT))
                .filter(sql -> !sql.startsWith("select") && !sql.startsWith("with"))
                .toList();
    }
}
