-- The application's own table, created by its own Flyway (DatabaseInitializationOrderTest).
CREATE TABLE app_seed (id INT NOT NULL);
