-- Keys of applied batches (buffered flushes): a batch commits together with its key, exactly once.
CREATE TABLE ${prefix}counter_batches (
    batch_key  VARCHAR(100) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    applied_at BIGINT NOT NULL,
    PRIMARY KEY (batch_key),
    INDEX ${prefix}counter_batches_applied (applied_at)
) ENGINE = InnoDB;

-- Deltas of delta-log counters, one row per increment with a unique id. A folded delta stays a while, marked
-- folded, so that a late retry of its append finds its id and is not counted twice.
CREATE TABLE ${prefix}counter_deltas (
    counter_name VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    delta_id     VARCHAR(40)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    delta        BIGINT NOT NULL,
    appended_at  BIGINT NOT NULL,
    folded       SMALLINT NOT NULL,
    PRIMARY KEY (counter_name, delta_id)
) ENGINE = InnoDB;

-- Monotonic counters: the durable value is the maximum over these shards.
CREATE TABLE ${prefix}counter_max_shards (
    counter_name VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    shard        INT NOT NULL,
    shard_value  BIGINT NOT NULL,
    PRIMARY KEY (counter_name, shard)
) ENGINE = InnoDB;
