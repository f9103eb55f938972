-- Callers' idempotency keys: each names one increment, recorded in the transaction that applies it, so that a repeat
-- finds it and writes nothing. result_value is the counter's value after it, when the caller asked for it.
CREATE TABLE ${prefix}counter_keys (
    idempotency_key VARCHAR(100) NOT NULL,
    counter_name    VARCHAR(128) NOT NULL,
    delta           BIGINT       NOT NULL,
    result_value    BIGINT,
    applied_at      BIGINT       NOT NULL,
    CONSTRAINT ${prefix}counter_keys_pk PRIMARY KEY (idempotency_key)
);
CREATE INDEX ${prefix}counter_keys_applied ON ${prefix}counter_keys (applied_at);
