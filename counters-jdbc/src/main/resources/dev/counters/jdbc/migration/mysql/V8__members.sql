-- Membership counters: one row per member of a counter, inserted or deleted in the transaction that changes the
-- counter's cells by as much, so that the counter's value is always the number of its rows.
CREATE TABLE ${prefix}counter_members (
    counter_name VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    member_id    VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    PRIMARY KEY (counter_name, member_id)
) ENGINE = InnoDB;
