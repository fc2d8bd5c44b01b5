package org.mucscale.engine.metrics.bench;

import java.io.IOException;
import java.io.Writer;
import java.util.concurrent.TimeUnit;

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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one Prometheus scrape costs the server: the text exposition of every metric after {@code valuesPerScrape}
 * deliveries were recorded since the previous scrape (0: an idle server; 7,000: one second of ref-5000 at 80 msg/s).
 * Every scrape reads each latency window (11 of them) and its quantiles, so this is the fixed cost each node pays per
 * scrape, whatever its traffic.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class ScrapeBenchmark {

    @Param({"0", "7000"})
    int valuesPerScrape;

    private MucScaleMetrics metrics;
    private final long[] latenciesNs = new long[1024];
    private int next;
    private final Writer sink = new Writer() {
        @Override
        public void write(char[] cbuf, int off, int len) {
            chars += len;
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    long chars;

    @Setup(Level.Trial)
    public void setUp() {
        // Not started: no sampler thread; the scrape is the only reader, as with a dashboard nobody has open.
        metrics = new MucScaleMetrics(MetricsConfig.defaults(), Clock.SYSTEM);
        java.util.SplittableRandom random = new java.util.SplittableRandom(42);
        for (int i = 0; i < latenciesNs.length; i++) {
            latenciesNs[i] = 50_000L + (long) (Math.pow(random.nextDouble(), 4) * 50_000_000L);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        metrics.close();
    }

    @Benchmark
    public long scrape() throws IOException {
        for (int i = 0; i < valuesPerScrape; i++) {
            metrics.recordDeliveryLatencyNs(latenciesNs[next++ & 1023]);
        }
        metrics.writePrometheus(sink);
        return chars;
    }
}
