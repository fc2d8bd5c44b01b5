package org.mucscale.engine.metrics;

import com.codahale.metrics.Snapshot;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class HdrWindowReservoirTest {

    private final ManualClock clock = new ManualClock();

    @Test
    void snapshot_withOneOutlierInTenThousand_keepsMaxAndP999() {
        HdrWindowReservoir r = HdrWindowReservoir.forNanos(60_000_000_000L, 10_000_000_000L, clock);
        for (int i = 0; i < 9_980; i++) {
            r.update(1_000_000L); // 1 ms
        }
        for (int i = 0; i < 19; i++) {
            r.update(50_000_000L); // 50 ms
        }
        r.update(5_000_000_000L); // one 5 s stall

        Snapshot s = r.getSnapshot();

        assertThat(s.size()).isEqualTo(10_000);
        assertThat(s.getMax()).isCloseTo(5_000_000_000L, within(5_000_000L)); // 3 significant digits
        assertThat(s.get999thPercentile()).isCloseTo(50_000_000.0, within(50_000.0));
        assertThat(s.getMedian()).isCloseTo(1_000_000.0, within(1_000.0));
        assertThat(s.getValue(1.0)).isEqualTo(s.getMax());
    }

    @Test
    void snapshot_afterWindowPassed_forgetsOldValues() {
        HdrWindowReservoir r = HdrWindowReservoir.forNanos(60_000_000_000L, 10_000_000_000L, clock);
        r.update(5_000_000_000L);
        r.getSnapshot(); // values belong to the bucket where a reader first collects them; the sampler reads often
        clock.advanceMs(30_000);
        r.update(1_000_000L);
        assertThat(r.getSnapshot().getMax()).isGreaterThan(4_000_000_000L);

        clock.advanceMs(35_000); // the stall is now 65 s old, the 1 ms value 35 s old

        Snapshot s = r.getSnapshot();
        assertThat(s.size()).isEqualTo(1);
        assertThat(s.getMax()).isCloseTo(1_000_000L, within(1_000L));
    }

    @Test
    void snapshot_readManyTimes_countsEveryValueOnce() {
        HdrWindowReservoir r = HdrWindowReservoir.forNanos(60_000_000_000L, 10_000_000_000L, clock);
        for (int i = 0; i < 100; i++) {
            r.update(2_000_000L);
            r.getSnapshot();
            clock.advanceMs(100);
        }
        assertThat(r.size()).isEqualTo(100);
        Histogram drained = r.newCompatibleHistogram();
        r.drainSinceLastDrain(drained);
        assertThat(drained.getTotalCount()).isEqualTo(100);
        r.drainSinceLastDrain(drained);
        assertThat(drained.getTotalCount()).isZero();
    }

    @Test
    void windowHistogram_count_isCumulativeBeyondTheWindow() {
        HdrWindowReservoir r = HdrWindowReservoir.forNanos(60_000_000_000L, 10_000_000_000L, clock);
        WindowHistogram h = new WindowHistogram(r);
        h.update(1_000_000L);
        assertThat(h.getCount()).isEqualTo(1);
        clock.advanceMs(120_000);
        h.update(2_000_000L);
        assertThat(h.getCount()).isEqualTo(2);
        assertThat(h.getSnapshot().size()).isEqualTo(1);
    }

    @Test
    void update_aboveRange_isClampedAndCounted() {
        HdrWindowReservoir r = HdrWindowReservoir.forCounts(60_000_000_000L, 10_000_000_000L, clock);
        r.update(Long.MAX_VALUE);
        r.update(-5);
        assertThat(r.clampedCount()).isEqualTo(1);
        assertThat(r.size()).isEqualTo(2);
        assertThat(r.getSnapshot().getMin()).isZero();
        assertThat(r.getSnapshot().getMax()).isGreaterThanOrEqualTo(r.highestTrackableValue());
    }

    @Test
    void update_fromManyThreads_losesNothing() throws Exception {
        HdrWindowReservoir r = HdrWindowReservoir.forNanos(60_000_000_000L, 10_000_000_000L, clock);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                for (int i = 0; i < 50_000; i++) {
                    r.update(1_000L + i);
                }
            });
            threads.add(thread);
            thread.start();
        }
        for (int i = 0; i < 50; i++) {
            r.getSnapshot(); // readers rotate concurrently with writers
        }
        for (Thread thread : threads) {
            thread.join(30_000);
        }
        assertThat(r.size()).isEqualTo(200_000);
    }

    @Test
    void constructor_withIntervalLongerThanWindow_isRefused() {
        assertThatThrownBy(() -> HdrWindowReservoir.forNanos(1_000L, 2_000L, clock))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("intervalNs <= windowNs");
    }

    @Test
    void snapshot_empty_isZeroNotAnError() {
        HdrWindowReservoir r = HdrWindowReservoir.forNanos(60_000_000_000L, 10_000_000_000L, clock);
        Snapshot s = r.getSnapshot();
        assertThat(s.size()).isZero();
        assertThat(s.getMax()).isZero();
        assertThat(s.get999thPercentile()).isZero();
        assertThat(s.getValues()).isEmpty();
    }
}
