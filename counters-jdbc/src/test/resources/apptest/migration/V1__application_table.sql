-- An application's own migration, applied by the application's own Flyway before the library's.
CREATE TABLE ${prefix}orders (id BIGINT NOT NULL PRIMARY KEY, customer VARCHAR(100) NOT NULL);
