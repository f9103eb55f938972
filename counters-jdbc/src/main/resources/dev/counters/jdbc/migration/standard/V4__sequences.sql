-- Sequences: the next value to reserve.
CREATE TABLE ${prefix}counter_sequences (
    sequence_name VARCHAR(128) NOT NULL,
    next_value    BIGINT       NOT NULL,
    CONSTRAINT ${prefix}counter_sequences_pk PRIMARY KEY (sequence_name)
);
