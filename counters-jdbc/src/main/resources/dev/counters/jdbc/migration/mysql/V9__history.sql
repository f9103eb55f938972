-- Failover protection: the history (server, timeline) each row that hands out values was last written under. A row
-- whose history differs from the database's was written before a change of primary that may have lost commits, so
-- it skips ahead before it hands out another value. Null: written before this column; the library stamps such rows
-- with the live history right after this migration (the SQL of the live history differs by database, and
-- applications that run these files with their own Flyway set no placeholder for it), and otherwise takes them as
-- current.
ALTER TABLE ${prefix}counter_sequences ADD COLUMN history VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL;
ALTER TABLE ${prefix}counter_max_shards ADD COLUMN history VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL;
