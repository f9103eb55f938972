-- Bounded counters keep their cells here too: a pool cell and a cell per node. Their rooms are how far changes
-- made through the cell may still move the counter toward its minimum and its maximum; NULL on every other cell,
-- and where the counter has no such bound.
ALTER TABLE ${prefix}counter_cells ADD COLUMN room_down BIGINT NULL, ADD COLUMN room_up BIGINT NULL;

-- The bounds a bounded counter's rooms were computed for; bound_at in epoch milliseconds.
CREATE TABLE ${prefix}counter_bounds (
    counter_name VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    min_value    BIGINT NULL,
    max_value    BIGINT NULL,
    bound_at     BIGINT NOT NULL,
    PRIMARY KEY (counter_name)
) ENGINE = InnoDB;

-- The nodes that may hold an allowance (a node cell) of a bounded counter: what is checked when a node's claim ends.
CREATE TABLE ${prefix}counter_allowances (
    node_id      VARCHAR(40)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    counter_name VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    PRIMARY KEY (node_id, counter_name),
    INDEX ${prefix}counter_allowances_counter (counter_name)
) ENGINE = InnoDB;

-- Keyed changes and holds of bounded counters, under the caller's key, recorded with their change. state: 1 applied,
-- 2 refused, 3 held, 4 confirmed, 5 released, 6 expired. Held rows are never pruned; the others once settled_at is
-- older than the key retention. Times in epoch milliseconds.
CREATE TABLE ${prefix}counter_holds (
    op_key       VARCHAR(100) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    counter_name VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    delta        BIGINT NOT NULL,
    state        SMALLINT NOT NULL,
    result_value BIGINT NULL,
    expires_at   BIGINT NULL,
    recorded_at  BIGINT NOT NULL,
    settled_at   BIGINT NULL,
    PRIMARY KEY (op_key),
    INDEX ${prefix}counter_holds_counter (counter_name, state, expires_at),
    INDEX ${prefix}counter_holds_due (state, expires_at),
    INDEX ${prefix}counter_holds_settled (settled_at)
) ENGINE = InnoDB;
