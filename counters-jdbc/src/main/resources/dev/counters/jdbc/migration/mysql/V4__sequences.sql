-- Sequences: the next value to reserve.
CREATE TABLE ${prefix}counter_sequences (
    sequence_name VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    next_value    BIGINT NOT NULL,
    PRIMARY KEY (sequence_name)
) ENGINE = InnoDB;
