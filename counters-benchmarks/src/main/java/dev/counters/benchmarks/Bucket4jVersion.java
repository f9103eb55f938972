package dev.counters.benchmarks;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.mysql.Bucket4jMySQL;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The Bucket4j versions on the class path, for the report: read from their jars' Maven metadata. */
final class Bucket4jVersion {

    static final String CORE = of(BucketConfiguration.class, "bucket4j_jdk17-core");
    static final String MYSQL = of(Bucket4jMySQL.class, "bucket4j_jdk17-mysql");

    private Bucket4jVersion() {}

    private static String of(Class<?> type, String artifact) {
        try (InputStream in =
                type.getResourceAsStream("/META-INF/maven/com.bucket4j/" + artifact + "/pom.properties")) {
            if (in == null) {
                return "(version unknown)";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "(version unknown)");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
