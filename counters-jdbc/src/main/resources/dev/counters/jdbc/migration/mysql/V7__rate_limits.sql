-- Rate limits by GCRA: each key of a limiter has one time, its theoretical arrival time (tat), in nanoseconds since
-- the epoch on the database's clock. A key whose tat has passed decides as an absent one, so idle keys are deleted
-- by their tat.
CREATE TABLE ${prefix}counter_rate_tat (
    limiter VARCHAR(48) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    k       VARCHAR(48) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    tat     BIGINT NOT NULL,
    PRIMARY KEY (limiter, k),
    INDEX ${prefix}counter_rate_tat_tat (tat)
) ENGINE = InnoDB;

-- A sliding window's ended slice is sealed: its value is final, and a bind with other bounds (a process that had not
-- seen it yet) must not open it again. 1 sealed, 0 not.
ALTER TABLE ${prefix}counter_bounds ADD COLUMN sealed SMALLINT DEFAULT 0 NOT NULL;
