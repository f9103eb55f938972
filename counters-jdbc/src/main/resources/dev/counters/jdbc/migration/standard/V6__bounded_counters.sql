-- Bounded counters keep their cells here too: a pool cell and a cell per node. Their rooms are how far changes
-- made through the cell may still move the counter toward its minimum and its maximum; NULL on every other cell,
-- and where the counter has no such bound. Two statements: PostgreSQL adds one column per ADD.
ALTER TABLE ${prefix}counter_cells ADD COLUMN room_down BIGINT;
ALTER TABLE ${prefix}counter_cells ADD COLUMN room_up BIGINT;

-- The bounds a bounded counter's rooms were computed for; bound_at in epoch milliseconds.
CREATE TABLE ${prefix}counter_bounds (
    counter_name VARCHAR(128) NOT NULL,
    min_value    BIGINT,
    max_value    BIGINT,
    bound_at     BIGINT       NOT NULL,
    CONSTRAINT ${prefix}counter_bounds_pk PRIMARY KEY (counter_name)
);

-- The nodes that may hold an allowance (a node cell) of a bounded counter: what is checked when a node's claim ends.
CREATE TABLE ${prefix}counter_allowances (
    node_id      VARCHAR(40)  NOT NULL,
    counter_name VARCHAR(128) NOT NULL,
    CONSTRAINT ${prefix}counter_allowances_pk PRIMARY KEY (node_id, counter_name)
);
CREATE INDEX ${prefix}counter_allowances_counter ON ${prefix}counter_allowances (counter_name);

-- Keyed changes and holds of bounded counters, under the caller's key, recorded with their change. state: 1 applied,
-- 2 refused, 3 held, 4 confirmed, 5 released, 6 expired. Held rows are never pruned; the others once settled_at is
-- older than the key retention. Times in epoch milliseconds.
CREATE TABLE ${prefix}counter_holds (
    op_key       VARCHAR(100) NOT NULL,
    counter_name VARCHAR(128) NOT NULL,
    delta        BIGINT       NOT NULL,
    state        SMALLINT     NOT NULL,
    result_value BIGINT,
    expires_at   BIGINT,
    recorded_at  BIGINT       NOT NULL,
    settled_at   BIGINT,
    CONSTRAINT ${prefix}counter_holds_pk PRIMARY KEY (op_key)
);
CREATE INDEX ${prefix}counter_holds_counter ON ${prefix}counter_holds (counter_name, state, expires_at);
CREATE INDEX ${prefix}counter_holds_due ON ${prefix}counter_holds (state, expires_at);
CREATE INDEX ${prefix}counter_holds_settled ON ${prefix}counter_holds (settled_at);
