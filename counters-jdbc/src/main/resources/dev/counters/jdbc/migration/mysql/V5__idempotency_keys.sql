-- Callers' idempotency keys: each names one increment, recorded in the transaction that applies it, so that a repeat
-- finds it and writes nothing. result_value is the counter's value after it, when the caller asked for it.
CREATE TABLE ${prefix}counter_keys (
    idempotency_key VARCHAR(100) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    counter_name    VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    delta           BIGINT NOT NULL,
    result_value    BIGINT NULL,
    applied_at      BIGINT NOT NULL,
    PRIMARY KEY (idempotency_key),
    INDEX ${prefix}counter_keys_applied (applied_at)
) ENGINE = InnoDB;
