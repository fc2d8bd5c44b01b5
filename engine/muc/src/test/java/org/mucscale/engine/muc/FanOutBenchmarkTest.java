package org.mucscale.engine.muc;

import java.io.File;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs {@link FanOutBenchmark} under JMH when {@code -Dmucscale.bench=true} (skipped otherwise, so CI stays fast).
 * Results: {@code engine/muc/target<suffix>/jmh-fanout.txt}, {@code jmh-fanout.json} and {@code cpu-fanout.txt}.
 */
@EnabledIfSystemProperty(named = "mucscale.bench", matches = "true")
class FanOutBenchmarkTest {

    /** {@code -Dmucscale.bench.dir}, else this module's build folder (with the build suffix, if any). */
    private static File benchDir() {
        return new File(System.getProperty("mucscale.bench.dir",
                "target" + System.getProperty("mucscale.build.suffix", "")));
    }

    @Test
    void fanOut_427Occupants_engineVersusPerRecipientToXml() throws Exception {
        File dir = benchDir();
        dir.mkdirs();
        Options opts = new OptionsBuilder()
                .include(FanOutBenchmark.class.getName())
                .forks(1)
                .warmupIterations(Integer.getInteger("mucscale.bench.warmup", 3))
                .warmupTime(org.openjdk.jmh.runner.options.TimeValue.seconds(1))
                .measurementIterations(Integer.getInteger("mucscale.bench.iterations", 5))
                .measurementTime(org.openjdk.jmh.runner.options.TimeValue.seconds(1))
                .addProfiler(GCProfiler.class)
                .jvmArgsAppend("-Xms512m", "-Xmx512m")
                .output(new File(dir, "jmh-fanout.txt").getPath())
                .result(new File(dir, "jmh-fanout.json").getPath())
                .resultFormat(ResultFormatType.JSON)
                .build();
        assertThat(new Runner(opts).run()).isNotEmpty();
    }

    /**
     * The same two paths measured in thread CPU time and thread-allocated bytes (ThreadMXBean), which a shared,
     * overloaded machine distorts far less than wall-clock averages: time spent descheduled is not counted.
     */
    @Test
    void fanOut_427Occupants_threadCpuTimeAndAllocationPerDelivery() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)
                java.lang.management.ManagementFactory.getThreadMXBean();
        FanOutBenchmark b = new FanOutBenchmark();
        b.setUp();
        org.openjdk.jmh.infra.Blackhole bh = new org.openjdk.jmh.infra.Blackhole(
                "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
        int warmup = 20_000;
        int messages = 5_000;
        int rounds = 7;
        for (int i = 0; i < warmup; i++) {
            b.engine();
            if (i % 4 == 0) {
                b.baselinePerRecipientToXml(bh);
            }
        }
        StringBuilder report = new StringBuilder("round engine-cpu-ns/delivery engine-bytes/delivery"
                + " baseline-cpu-ns/delivery baseline-bytes/delivery\n");
        double[] engineNs = new double[rounds];
        double[] baselineNs = new double[rounds];
        double engineBytes = 0;
        double baselineBytes = 0;
        long tid = Thread.currentThread().getId();
        for (int r = 0; r < rounds; r++) {
            long c0 = mx.getCurrentThreadCpuTime();
            long a0 = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < messages; i++) {
                b.engine();
            }
            long c1 = mx.getCurrentThreadCpuTime();
            long a1 = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < messages; i++) {
                b.baselinePerRecipientToXml(bh);
            }
            long c2 = mx.getCurrentThreadCpuTime();
            long a2 = mx.getThreadAllocatedBytes(tid);
            double deliveries = (double) messages * FanOutBenchmark.OCCUPANTS;
            engineNs[r] = (c1 - c0) / deliveries;
            baselineNs[r] = (c2 - c1) / deliveries;
            engineBytes = (a1 - a0) / deliveries;
            baselineBytes = (a2 - a1) / deliveries;
            report.append(String.format(java.util.Locale.ROOT, "%d %.1f %.2f %.1f %.1f%n", r, engineNs[r],
                    engineBytes, baselineNs[r], baselineBytes));
        }
        int joins = 2_000;
        for (int i = 0; i < joins; i++) {
            b.joinAndLeave();
        }
        double[] joinUs = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long c0 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < joins; i++) {
                b.joinAndLeave();
            }
            joinUs[r] = (mx.getCurrentThreadCpuTime() - c0) / 1000.0 / joins;
        }
        java.util.Arrays.sort(joinUs);
        report.append(String.format(java.util.Locale.ROOT, "join+leave of a 427-occupant room (FULL presence): median"
                + " %.1f us CPU, best %.1f us%n", joinUs[rounds / 2], joinUs[0]));
        java.util.Arrays.sort(engineNs);
        java.util.Arrays.sort(baselineNs);
        report.append(String.format(java.util.Locale.ROOT,
                "median engine %.1f ns/delivery, baseline %.1f ns/delivery, ratio %.1fx; min engine %.1f, min baseline"
                        + " %.1f%n", engineNs[rounds / 2], baselineNs[rounds / 2],
                baselineNs[rounds / 2] / engineNs[rounds / 2], engineNs[0], baselineNs[0]));
        File dir = benchDir();
        dir.mkdirs();
        java.nio.file.Files.writeString(new File(dir, "cpu-fanout.txt").toPath(), report.toString());
        assertThat(engineNs[rounds / 2]).isLessThan(baselineNs[rounds / 2]);
    }
}
