package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.counters.CounterService;
import dev.counters.MembershipCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Membership counters from {@code members: true} rules, in the meters ({@code counters.members.changes} by rule and
 * outcome, never by counter or member) and in the {@code counters} endpoint: which counters count members, their count
 * and a page of members, or whether one is a member; hidden as values are.
 */
class MembershipObservabilityTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues(
                    "counters.store=memory",
                    "counters.counters.[post.*.likes].strategy=sharded",
                    "counters.counters.[post.*.likes].members=true",
                    "counters.counters.[followers.*].strategy=node",
                    "counters.counters.[followers.*].members=true",
                    "counters.counters.[views.*].strategy=sharded")
            .withConfiguration(AutoConfigurations.of(
                    MetricsAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class,
                    CountersAutoConfiguration.class,
                    CountersMetricsAutoConfiguration.class));

    @Test
    void changesAreCountedByRuleAndOutcome() {
        runner.run(context -> {
            CounterService counters = context.getBean(CounterService.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            MembershipCounter one = counters.members("post.1.likes");
            MembershipCounter two = counters.members("post.2.likes");
            one.add("ann");
            one.add("ann");
            two.add("ann");
            two.add("bob");
            one.remove("ann");
            one.remove("ann");
            two.remove("carl");
            counters.members("followers.ann").add("bob");

            assertThat(changes(registry, "post.*.likes", "added")).isEqualTo(3);
            assertThat(changes(registry, "post.*.likes", "removed")).isEqualTo(1);
            assertThat(changes(registry, "post.*.likes", "unchanged")).isEqualTo(3);
            assertThat(changes(registry, "followers.*", "added")).isEqualTo(1);
            assertThat(registry.find("counters.members.changes").meters())
                    .hasSize(6)
                    .allSatisfy(meter -> assertThat(meter.getId().getTags())
                            .extracting(Tag::getKey)
                            .containsExactlyInAnyOrder("rule", "strategy", "outcome"));
            assertThat(registry.find("counters.members.changes")
                            .tag("rule", "views.*")
                            .meters())
                    .as("a rule that counts no members")
                    .isEmpty();
            assertThat(registry.get("counters.increments")
                            .tag("rule", "post.*.likes")
                            .functionCounter()
                            .count())
                    .as("each change of membership, an increment of the count")
                    .isEqualTo(4);
        });
    }

    private static double changes(MeterRegistry registry, String rule, String outcome) {
        return registry.get("counters.members.changes")
                .tags("rule", rule, "outcome", outcome)
                .functionCounter()
                .count();
    }

    @Test
    void rulesWithMembersTrueMakeMembershipCountersOfTheirStrategy() {
        runner.run(context -> {
            CounterService counters = context.getBean(CounterService.class);
            MembershipCounter likes = counters.members("post.1.likes");
            assertThat(likes.add("ann")).isTrue();
            assertThat(likes.add("ann")).as("a repeat").isFalse();
            assertThat(likes.add("bob")).isTrue();
            assertThat(likes.remove("carl")).isFalse();
            assertThat(likes.count()).isEqualTo(2);
            assertThat(counters.get("post.1.likes")).isEqualTo(2);
            assertThat(counters.counter("post.1.likes").strategy()).isEqualTo("sharded");
            MembershipCounter followers = counters.members("followers.ann");
            assertThat(followers.add("bob")).isTrue();
            assertThat(followers.remove("bob")).as("node's decrements").isTrue();
            assertThat(followers.count()).isZero();
            assertThat(counters.counter("followers.ann").strategy()).isEqualTo("node");
            assertThatThrownBy(() -> counters.members("post.1.views"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("members: true");
        });
    }

    @Test
    void theEndpointShowsWhichCountersCountMembersAndReadsThem() {
        runner.run(context -> {
            CounterService counters = context.getBean(CounterService.class);
            MembershipCounter likes = counters.members("post.1.likes");
            List<String> users = IntStream.range(0, CountersEndpoint.MEMBERS_PAGE_SIZE + 5)
                    .mapToObj(i -> String.format("user-%03d", i))
                    .toList();
            users.forEach(likes::add);
            counters.increment("post.1.views", 7);
            CountersEndpoint endpoint = new CountersEndpoint(counters, Show.ALWAYS, Set.of());

            assertThat(endpoint.counter(SecurityContext.NONE, "post.1.likes").members())
                    .isTrue();
            assertThat(endpoint.counter(SecurityContext.NONE, "post.1.likes").value())
                    .isEqualTo(users.size());
            assertThat(endpoint.counter(SecurityContext.NONE, "post.1.views").members())
                    .isFalse();
            assertThat(endpoint.counters(SecurityContext.NONE, null, null).counters())
                    .extracting(CountersEndpoint.CounterDescriptor::name, CountersEndpoint.CounterDescriptor::members)
                    .contains(tuple("post.1.likes", true), tuple("post.1.views", false));

            CountersEndpoint.MembersDescriptor first =
                    endpoint.members(SecurityContext.NONE, "members", "post.1.likes", null, null);
            assertThat(first.strategy()).isEqualTo("sharded");
            assertThat(first.count()).isEqualTo(users.size());
            assertThat(first.members()).hasSize(CountersEndpoint.MEMBERS_PAGE_SIZE);
            CountersEndpoint.MembersDescriptor second =
                    endpoint.members(SecurityContext.NONE, "members", "post.1.likes", null, first.next());
            assertThat(second.next()).as("the last page").isNull();
            assertThat(first.members())
                    .as("every member once, over the pages")
                    .doesNotContainAnyElementsOf(second.members());
            assertThat(second.members()).hasSize(5);

            assertThat(endpoint.members(SecurityContext.NONE, "members", "post.1.likes", "user-004", null))
                    .isEqualTo(new CountersEndpoint.MembersDescriptor(
                            "post.1.likes", "sharded", (long) users.size(), null, null, "user-004", true));
            assertThat(endpoint.members(SecurityContext.NONE, "members", "post.1.likes", "nobody", null)
                            .contains())
                    .isFalse();
            assertThat(endpoint.members(SecurityContext.NONE, "members", "post.1.views", null, null))
                    .as("not a membership counter: not found")
                    .isNull();
            assertThatThrownBy(() -> endpoint.members(SecurityContext.NONE, "member", "post.1.likes", null, null))
                    .isInstanceOf(InvalidEndpointRequestException.class);
            assertThatThrownBy(
                            () -> endpoint.members(SecurityContext.NONE, "members", "post.1.likes", "two words", null))
                    .isInstanceOf(InvalidEndpointRequestException.class);

            CountersEndpoint hidden = new CountersEndpoint(counters, Show.NEVER, Set.of());
            assertThat(hidden.members(SecurityContext.NONE, "members", "post.1.likes", "user-004", null))
                    .as("members and count hidden as values are; the member asked about echoed")
                    .isEqualTo(new CountersEndpoint.MembersDescriptor(
                            "post.1.likes", "sharded", null, null, null, "user-004", null));
            assertThat(hidden.counter(SecurityContext.NONE, "post.1.likes").members())
                    .as("what the configuration says is shown")
                    .isTrue();
        });
    }
}
