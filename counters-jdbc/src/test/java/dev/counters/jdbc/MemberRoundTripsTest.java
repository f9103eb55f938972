package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterName;
import dev.counters.jdbc.testing.FaultInjectingDataSource;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.spi.Members.MemberChange;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A change of any number of members is a handful of statements and one commit, not a few per member. */
class MemberRoundTripsTest {

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aBatchOfManyChangesIsOneTransactionOfAtMostFourStatements(TestDatabase database) {
        JooqStores stores = JooqStores.shared(database);
        CounterName counter = CounterName.of("trips" + System.nanoTime());
        List<MemberChange> before = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            before.add(new MemberChange("m" + i, true));
        }
        stores.store().changeMembers(counter, "main", before);

        // 200 new members, 100 removed, 100 repeats of either kind, shuffled.
        List<MemberChange> changes = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            changes.add(new MemberChange("m" + (100 + i), i >= 100 && i < 300 ? true : i < 100));
        }
        for (int i = 0; i < 100; i++) {
            changes.add(new MemberChange("m" + i, false));
        }
        Collections.shuffle(changes, new Random(36));
        FaultInjectingDataSource counting = new FaultInjectingDataSource(database.dataSource());
        JooqCounterStore store =
                JooqCounterStore.builder(counting).tablePrefix(stores.prefix()).build();
        store.get(counter); // its first connection: what the store asks of the database once (is it Galera?)
        counting.statements.set(0);
        counting.commits.set(0);
        List<Boolean> changed = store.changeMembers(counter, "main", changes);

        assertThat(changed.stream().filter(c -> c).count()).isEqualTo(300);
        assertThat(stores.store().get(counter)).isEqualTo(200 - 100 + 200);
        assertThat(counting.commits.get()).isEqualTo(1);
        assertThat(counting.statements.get())
                .as("a locking read, a delete, an insert, the cell's upsert")
                .isLessThanOrEqualTo(4);
    }
}
