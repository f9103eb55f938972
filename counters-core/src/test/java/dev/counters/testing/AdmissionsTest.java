package dev.counters.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.testing.AdmissionLog.Admission;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The bound checks count only admissions whose whole (widened) span lies inside, as a direct count does. */
class AdmissionsTest {

    @Test
    void anAdmissionCountsOnlyWhenItsWholeSpanLiesInside() {
        List<Admission> admissions = List.of(
                new Admission(0, 10), new Admission(5, 999), new Admission(990, 1_001), new Admission(1_000, 1_010));

        assertThat(Admissions.mostInAnyPeriod(admissions, 1_000, 0)).isEqualTo(2); // [0, 1000): the first two
        assertThat(Admissions.mostInAWindow(admissions, 1_000, 0)).isEqualTo(2);
        assertThat(Admissions.mostInAWindow(admissions, 1_000, 20)).isZero(); // each widened span crosses an edge
    }

    @Test
    void theMostInAnyPeriodIsWhatADirectCountFinds() {
        Random random = new Random(35);
        for (int run = 0; run < 50; run++) {
            List<Admission> admissions = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                long start = random.nextInt(5_000);
                admissions.add(new Admission(start, start + random.nextInt(300)));
            }
            long period = 200 + random.nextInt(1_000);
            long tolerance = random.nextInt(20);

            assertThat(Admissions.mostInAnyPeriod(admissions, period, tolerance))
                    .isEqualTo(directly(admissions, period, tolerance));
        }
    }

    /** Every stretch starting at a widened start, counted one by one. */
    private static long directly(List<Admission> admissions, long period, long tolerance) {
        long most = 0;
        for (Admission first : admissions) {
            long from = first.start() - tolerance;
            long inside = admissions.stream()
                    .filter(a -> a.start() - tolerance >= from && a.end() + tolerance < from + period)
                    .count();
            most = Math.max(most, inside);
        }
        return most;
    }
}
