package dev.counters.spring.boot;

import java.util.LinkedHashSet;
import java.util.Set;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code counters} endpoint's settings, as Boot's {@code env} and {@code configprops} endpoints have theirs. Stored
 * counter names may be user ids, and their values business figures: they are shown only as {@code show-values} says.
 */
@ConfigurationProperties("management.endpoint.counters")
public class CountersEndpointProperties {

    /**
     * When to show the stored counters: the names listed, and the values, cells and windows of every counter. The
     * configured rules and their statistics are always shown.
     */
    private Show showValues = Show.NEVER;

    /**
     * Roles used to determine whether a user is authorized to be shown the stored counters. When empty, all
     * authenticated users are authorized.
     */
    private Set<String> roles = new LinkedHashSet<>();

    public Show getShowValues() {
        return showValues;
    }

    public void setShowValues(Show showValues) {
        this.showValues = showValues;
    }

    public Set<String> getRoles() {
        return roles;
    }

    public void setRoles(Set<String> roles) {
        this.roles = roles;
    }
}
