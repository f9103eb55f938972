-- The persisted shard count of sharded counters: it only grows.
CREATE TABLE ${prefix}counter_shards (
    counter_name VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    shards       INT NOT NULL,
    PRIMARY KEY (counter_name)
) ENGINE = InnoDB;

-- Expiring claims: a node's identity, one recount in flight per counter.
CREATE TABLE ${prefix}counter_leases (
    lease_key  VARCHAR(200) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    owner      VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (lease_key)
) ENGINE = InnoDB;
