-- A counter is the sum of its cells; strategies choose which cells they write.
CREATE TABLE ${prefix}counter_cells (
    counter_name VARCHAR(128) NOT NULL,
    cell         VARCHAR(64)  NOT NULL,
    cell_value   BIGINT       NOT NULL,
    version      BIGINT       NOT NULL,
    CONSTRAINT ${prefix}counter_cells_pk PRIMARY KEY (counter_name, cell)
);
