package dev.counters.spring.boot.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Every property of the starter's generated configuration metadata is named in docs/spring-boot.md. */
class PropertiesDocumentedTest {

    /** What the configuration processor wrote for the starter (with any additional metadata merged in). */
    private static final Path METADATA = Path.of("target", "classes", "META-INF", "spring-configuration-metadata.json");

    @Test
    void everyPropertyOfTheMetadataIsNamedInTheSpringBootPage() throws IOException {
        List<String> properties = JsonPath.read(Files.readString(METADATA), "$.properties[*].name");
        assertThat(properties)
                .as("properties in " + METADATA)
                .contains("counters.default-strategy", "management.endpoint.counters.show-values");
        String page = Files.readString(Documentation.ROOT.resolve("docs/spring-boot.md"));
        // Named in code: `counters.sharded.shards`, or a map's entries: `counters.counters.<name or pattern>.strategy`.
        List<String> unnamed = properties.stream()
                .filter(name -> !page.contains("`" + name + "`") && !page.contains("`" + name + "."))
                .collect(Collectors.toList());
        assertThat(unnamed).as("properties docs/spring-boot.md does not name").isEmpty();
    }
}
