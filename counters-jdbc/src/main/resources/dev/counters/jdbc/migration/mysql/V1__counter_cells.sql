-- A counter is the sum of its cells; strategies choose which cells they write.
-- Names are ASCII with a binary collation: case-sensitive, as on the other databases.
CREATE TABLE ${prefix}counter_cells (
    counter_name VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    cell         VARCHAR(64)  CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
    cell_value   BIGINT       NOT NULL,
    version      BIGINT       NOT NULL,
    PRIMARY KEY (counter_name, cell)
) ENGINE = InnoDB;
