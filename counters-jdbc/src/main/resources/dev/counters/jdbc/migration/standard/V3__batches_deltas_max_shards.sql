-- Keys of applied batches (buffered flushes): a batch commits together with its key, exactly once.
CREATE TABLE ${prefix}counter_batches (
    batch_key  VARCHAR(100) NOT NULL,
    applied_at BIGINT       NOT NULL,
    CONSTRAINT ${prefix}counter_batches_pk PRIMARY KEY (batch_key)
);
CREATE INDEX ${prefix}counter_batches_applied ON ${prefix}counter_batches (applied_at);

-- Deltas of delta-log counters, one row per increment with a unique id. A folded delta stays a while, marked
-- folded, so that a late retry of its append finds its id and is not counted twice.
CREATE TABLE ${prefix}counter_deltas (
    counter_name VARCHAR(128) NOT NULL,
    delta_id     VARCHAR(40)  NOT NULL,
    delta        BIGINT       NOT NULL,
    appended_at  BIGINT       NOT NULL,
    folded       SMALLINT     NOT NULL,
    CONSTRAINT ${prefix}counter_deltas_pk PRIMARY KEY (counter_name, delta_id)
);

-- Monotonic counters: the durable value is the maximum over these shards.
CREATE TABLE ${prefix}counter_max_shards (
    counter_name VARCHAR(128) NOT NULL,
    shard        INT          NOT NULL,
    shard_value  BIGINT       NOT NULL,
    CONSTRAINT ${prefix}counter_max_shards_pk PRIMARY KEY (counter_name, shard)
);
