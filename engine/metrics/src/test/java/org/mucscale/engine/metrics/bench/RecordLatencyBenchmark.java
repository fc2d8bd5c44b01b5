package org.mucscale.engine.metrics.bench;

import com.codahale.metrics.ExponentiallyDecayingReservoir;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.SlidingTimeWindowArrayReservoir;
import org.mucscale.engine.metrics.MetricsConfig;
import org.mucscale.engine.metrics.MucScaleMetrics;
import org.mucscale.engine.port.Clock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Cost of recording one latency: mucscale's HdrHistogram window reservoir (through the public facade) against
 * Dropwizard's own reservoirs in the same run. Run with {@code -prof gc} to see allocation per operation
 * (docs/benchmarks/metrics.md has the command).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RecordLatencyBenchmark {

    /** Shared by all benchmark threads, as the registry is in the server. */
    @State(Scope.Benchmark)
    public static class Metrics {
        MucScaleMetrics mucscale;
        Histogram exponentiallyDecaying;
        Histogram lockFreeExponentiallyDecaying;
        Histogram slidingTimeWindowArray;

        @Setup(Level.Trial)
        public void setUp() {
            // Not started: no sampler thread, so the numbers are the writer's cost alone.
            mucscale = new MucScaleMetrics(MetricsConfig.defaults(), Clock.SYSTEM);
            exponentiallyDecaying = new Histogram(new ExponentiallyDecayingReservoir());
            lockFreeExponentiallyDecaying = new Histogram(LockFreeExponentiallyDecayingReservoir.builder().build());
            slidingTimeWindowArray = new Histogram(new SlidingTimeWindowArrayReservoir(60, TimeUnit.SECONDS));
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            mucscale.close();
        }
    }

    /** Latencies from 50 us to ~50 ms, precomputed so the benchmark measures recording, not a random generator. */
    @State(Scope.Thread)
    public static class Values {
        final long[] latenciesNs = new long[1024];
        int next;

        @Setup(Level.Trial)
        public void setUp() {
            java.util.SplittableRandom random = new java.util.SplittableRandom(42);
            for (int i = 0; i < latenciesNs.length; i++) {
                latenciesNs[i] = 50_000L + (long) (Math.pow(random.nextDouble(), 4) * 50_000_000L);
            }
        }

        long nextNs() {
            int i = next;
            next = (i + 1) & 1023;
            return latenciesNs[i];
        }
    }

    @Benchmark
    public void mucscaleHdrWindow(Metrics m, Values v) {
        m.mucscale.recordDeliveryLatencyNs(v.nextNs());
    }

    @Benchmark
    public void dropwizardExponentiallyDecaying(Metrics m, Values v) {
        m.exponentiallyDecaying.update(v.nextNs());
    }

    @Benchmark
    public void dropwizardLockFreeExponentiallyDecaying(Metrics m, Values v) {
        m.lockFreeExponentiallyDecaying.update(v.nextNs());
    }

    @Benchmark
    public void dropwizardSlidingTimeWindowArray(Metrics m, Values v) {
        m.slidingTimeWindowArray.update(v.nextNs());
    }

    /** Everything one groupchat message records: two histograms, two counters and its room's traffic. */
    @Benchmark
    public void mucscaleRecordMessage(Metrics m, Values v) {
        m.mucscale.recordMessage("lobby@conference.example", 12, v.nextNs());
    }

    /** Two writers on the shared registry (the machine has 2 cores). */
    @Benchmark
    @Threads(2)
    public void mucscaleHdrWindowTwoThreads(Metrics m, Values v) {
        m.mucscale.recordDeliveryLatencyNs(v.nextNs());
    }

    @Benchmark
    @Threads(2)
    public void dropwizardExponentiallyDecayingTwoThreads(Metrics m, Values v) {
        m.exponentiallyDecaying.update(v.nextNs());
    }
}
