-- Rate limits by GCRA: each key of a limiter has one time, its theoretical arrival time (tat), in nanoseconds since
-- the epoch on the database's clock. A key whose tat has passed decides as an absent one, so idle keys are deleted
-- by their tat.
CREATE TABLE ${prefix}counter_rate_tat (
    limiter VARCHAR(48) NOT NULL,
    k       VARCHAR(48) NOT NULL,
    tat     BIGINT      NOT NULL,
    CONSTRAINT ${prefix}counter_rate_tat_pk PRIMARY KEY (limiter, k)
);
CREATE INDEX ${prefix}counter_rate_tat_tat ON ${prefix}counter_rate_tat (tat);

-- A sliding window's ended slice is sealed: its value is final, and a bind with other bounds (a process that had not
-- seen it yet) must not open it again. 1 sealed, 0 not.
ALTER TABLE ${prefix}counter_bounds ADD COLUMN sealed SMALLINT DEFAULT 0 NOT NULL;
