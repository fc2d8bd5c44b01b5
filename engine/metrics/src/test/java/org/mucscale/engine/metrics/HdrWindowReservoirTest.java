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

    /** The snapshot keeps only non-empty buckets; it must still answer exactly as HdrHistogram itself does. */
    @Test
    void snapshot_answersExactlyAsTheHistogram_forRandomData() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        double[] quantiles = {0.0, 1e-9, 0.001, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.98, 0.99, 0.999, 0.9999, 1.0 - 1e-12,
                1.0};
        for (int round = 0; round < 200; round++) {
            Histogram h = new Histogram(1_000L, 100_000_000_000L, 3);
            int kind = round % 4;
            int n = kind == 3 ? 1 : 1 + random.nextInt(5_000);
            for (int i = 0; i < n; i++) {
                long v = switch (kind) {
                    case 0 -> 50_000L + (long) (Math.pow(random.nextDouble(), 4) * 50_000_000L);
                    case 1 -> random.nextInt(10) == 0 ? 0 : random.nextLong(1, 100_000_000_000L);
                    case 2 -> 1_000_000L * (1 + random.nextInt(3)); // few buckets, many ties at boundaries
                    default -> random.nextLong(0, 10_000_000L);
                };
                h.recordValueWithCount(v, 1 + random.nextInt(3));
            }
            HdrSnapshot s = new HdrSnapshot(h);
            for (double q : quantiles) {
                double expected = q >= 1.0 ? h.getMaxValue() : h.getValueAtPercentile(q * 100.0);
                assertThat(s.getValue(q)).as("round %d, quantile %s", round, q).isEqualTo(expected);
            }
            assertThat(s.size()).isEqualTo(h.getTotalCount());
            assertThat(s.getMax()).isEqualTo(h.getMaxValue());
            assertThat(s.getMin()).isEqualTo(h.getMinValue());
            assertThat(s.getMean()).isCloseTo(h.getMean(), within(Math.abs(h.getMean()) * 1e-12 + 1e-9));
            assertThat(s.getStdDev()).isCloseTo(h.getStdDeviation(), within(h.getStdDeviation() * 1e-9 + 1e-6));
            List<Long> expanded = new ArrayList<>();
            for (org.HdrHistogram.HistogramIterationValue v : h.recordedValues()) {
                for (long c = 0; c < v.getCountAtValueIteratedTo(); c++) {
                    expanded.add(h.highestEquivalentValue(v.getValueIteratedTo()));
                }
            }
            assertThat(s.getValues()).containsExactly(expanded.stream().mapToLong(Long::longValue).toArray());
        }
    }

    /**
     * The window is a running sum: whatever the order of writes, reads and clock steps, it must hold exactly the
     * values whose bucket (the bucket of the read that collected them) is inside the window, as a fresh merge would.
     */
    @Test
    void window_isAlwaysTheSumOfItsBuckets_underRandomWritesReadsAndClockSteps() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(11);
        long intervalNs = 10_000_000_000L;
        HdrWindowReservoir r = HdrWindowReservoir.forNanos(60_000_000_000L, intervalNs, clock);
        List<long[]> collected = new ArrayList<>(); // {bucket, value} of values a read has collected
        List<Long> pending = new ArrayList<>();
        for (int step = 0; step < 3_000; step++) {
            int action = random.nextInt(10);
            if (action < 6) {
                long v = random.nextLong(1_000L, 1_000_000_000L);
                r.update(v);
                pending.add(v);
            } else if (action < 8) {
                clock.advanceMs(random.nextInt(4) == 0 ? random.nextLong(1, 90_000) : random.nextLong(1, 3_000));
            } else {
                long bucket = Math.floorDiv(clock.nanoTime(), intervalNs);
                for (long v : pending) {
                    collected.add(new long[] {bucket, v});
                }
                pending.clear();
                Histogram expected = r.newCompatibleHistogram();
                for (long[] bv : collected) {
                    if (bv[0] > bucket - 6) {
                        expected.recordValue(bv[1]);
                    }
                }
                Histogram actual = r.windowCopy();
                assertThat(actual.getTotalCount()).as("step %d", step).isEqualTo(expected.getTotalCount());
                assertThat(buckets(actual)).as("step %d", step).isEqualTo(buckets(expected));
                if (expected.getTotalCount() > 0) { // (HdrHistogram's copy of an empty histogram reports max 511)
                    assertThat(actual.getMaxValue()).as("step %d", step).isEqualTo(expected.getMaxValue());
                    assertThat(actual.getMinNonZeroValue()).as("step %d", step).isEqualTo(expected.getMinNonZeroValue());
                }
                assertThat(r.getSnapshot().getMax()).isEqualTo(expected.getTotalCount() == 0 ? 0 : expected.getMaxValue());
            }
        }
    }

    @Test
    void snapshot_isReusedWhileNothingChanged_andRenewedWhenValuesArriveOrTheWindowSlides() {
        HdrWindowReservoir r = HdrWindowReservoir.forNanos(60_000_000_000L, 10_000_000_000L, clock);
        r.update(1_000_000L);
        Snapshot first = r.getSnapshot();
        assertThat(r.getSnapshot()).isSameAs(first);
        clock.advanceMs(5_000);
        assertThat(r.getSnapshot()).as("same window contents").isSameAs(first);

        r.update(2_000_000L);
        Snapshot second = r.getSnapshot();
        assertThat(second).isNotSameAs(first);
        assertThat(second.size()).isEqualTo(2);
        assertThat(first.size()).as("a snapshot is immutable").isEqualTo(1);

        clock.advanceMs(70_000);
        Snapshot third = r.getSnapshot();
        assertThat(third).isNotSameAs(second);
        assertThat(third.size()).isZero();
    }

    /** Each non-empty bucket as "value x count" (Histogram.equals also compares internal tracking fields). */
    private static List<String> buckets(Histogram h) {
        List<String> out = new ArrayList<>();
        for (org.HdrHistogram.HistogramIterationValue v : h.recordedValues()) {
            out.add(v.getValueIteratedTo() + "x" + v.getCountAtValueIteratedTo());
        }
        return out;
    }
}
