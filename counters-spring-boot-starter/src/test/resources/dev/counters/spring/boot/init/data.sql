-- The application's SQL init, after its Flyway (DatabaseInitializationOrderTest).
INSERT INTO app_seed (id) VALUES (1);
