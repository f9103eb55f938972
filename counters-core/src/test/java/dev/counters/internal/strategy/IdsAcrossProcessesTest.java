package dev.counters.internal.strategy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.testing.ChildJvm;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 13 as it was found: two processes running the same code write ids of their own. A random generator kept
 * from one thread and used from others gives every thread a sequence that depends only on the thread, the same in
 * every JVM; ids drawn from it repeated across processes, and a repeated delta id lost an increment.
 */
class IdsAcrossProcessesTest {

    @Test
    void twoProcessesNeverWriteTheSameIdAndPickTheirOwnShards() throws Exception {
        ChildJvm first = ChildJvm.start(ChildIdRecorder.class);
        ChildJvm second = ChildJvm.start(ChildIdRecorder.class);
        List<String> a = first.awaitSuccess(2, TimeUnit.MINUTES).lines().toList();
        List<String> b = second.awaitSuccess(2, TimeUnit.MINUTES).lines().toList();

        List<String> idsA = withPrefix(a, "ID ");
        List<String> idsB = withPrefix(b, "ID ");
        // 1,000 delta ids, 20 flush keys at least, a node cell: each process's own, none repeated.
        assertThat(idsA).hasSizeGreaterThan(1_000).doesNotHaveDuplicates();
        assertThat(idsB).hasSizeGreaterThan(1_000).doesNotHaveDuplicates();
        Set<String> shared = new HashSet<>(idsA);
        shared.retainAll(new HashSet<>(idsB));
        assertThat(shared).as("ids written by both processes").isEmpty();
        // 200 shard picks over 16 shards: the same sequence in both processes means the randomness is not random.
        assertThat(withPrefix(a, "SHARD ")).hasSize(200).isNotEqualTo(withPrefix(b, "SHARD "));
    }

    private static List<String> withPrefix(List<String> lines, String prefix) {
        return lines.stream()
                .filter(line -> line.startsWith(prefix))
                .map(line -> line.substring(prefix.length()))
                .toList();
    }
}
