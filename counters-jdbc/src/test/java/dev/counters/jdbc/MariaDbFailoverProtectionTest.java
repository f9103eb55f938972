package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.spi.Failovers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

class MariaDbFailoverProtectionTest extends FailoverProtectionContract {

    MariaDbFailoverProtectionTest() {
        super(TestDatabase.MARIADB);
    }

    /**
     * Semi-synchronous replication counts as synchronous only while commits wait for a replica: enabled and, when the
     * server shows it, its status ON. Fallen back to asynchronous after its timeout (status OFF), a failover can lose
     * what the replicas missed.
     */
    @Test
    void semiSynchronousReplicationCountsOnlyWhileItIsOn() {
        assertThat(FailoverProtection.mySqlReplication(Map.of(
                        "rpl_semi_sync_master_enabled", "ON", "rpl_semi_sync_master_status", "ON", "replicas", "1")))
                .isEqualTo(Failovers.Replication.SYNCHRONOUS);
        assertThat(FailoverProtection.mySqlReplication(Map.of(
                        "rpl_semi_sync_master_enabled", "ON", "rpl_semi_sync_master_status", "OFF", "replicas", "1")))
                .isEqualTo(Failovers.Replication.ASYNCHRONOUS);
        assertThat(FailoverProtection.mySqlReplication(
                        Map.of("rpl_semi_sync_source_enabled", "1", "rpl_semi_sync_source_status", "OFF")))
                .isEqualTo(Failovers.Replication.NONE);
        assertThat(FailoverProtection.mySqlReplication(Map.of("wsrep_on", "ON", "replicas", "2")))
                .isEqualTo(Failovers.Replication.CLUSTER);
    }

    /** The read on a live server: semi-synchronous replication enabled, binlog_format left out (any format works). */
    @Test
    void theDurabilityReadShowsSemiSynchronousReplicationAndNoBinlogFormat() throws SQLException {
        try (Connection connection = TestDatabase.MARIADB.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("set global rpl_semi_sync_master_enabled = on");
            try {
                Failovers.Durability durability =
                        FailoverProtection.durability(DSL.using(connection, SQLDialect.MARIADB));
                assertThat(durability.settings())
                        .containsEntry("rpl_semi_sync_master_enabled", "ON")
                        .containsKey("rpl_semi_sync_master_status")
                        .doesNotContainKey("binlog_format");
                assertThat(durability.replication())
                        .isEqualTo(FailoverProtection.mySqlReplication(durability.settings()));
            } finally {
                statement.execute("set global rpl_semi_sync_master_enabled = off");
            }
        }
    }
}
