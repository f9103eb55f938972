-- The persisted shard count of sharded counters: it only grows.
CREATE TABLE ${prefix}counter_shards (
    counter_name VARCHAR(128) NOT NULL,
    shards       INT          NOT NULL,
    CONSTRAINT ${prefix}counter_shards_pk PRIMARY KEY (counter_name)
);

-- Expiring claims: a node's identity, one recount in flight per counter.
CREATE TABLE ${prefix}counter_leases (
    lease_key  VARCHAR(200) NOT NULL,
    owner      VARCHAR(64)  NOT NULL,
    expires_at BIGINT       NOT NULL,
    CONSTRAINT ${prefix}counter_leases_pk PRIMARY KEY (lease_key)
);
