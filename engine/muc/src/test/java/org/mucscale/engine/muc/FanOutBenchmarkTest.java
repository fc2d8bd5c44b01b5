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
 * Results: {@code engine/muc/target<suffix>/jmh-fanout.txt} (JSON next to it).
 */
@EnabledIfSystemProperty(named = "mucscale.bench", matches = "true")
class FanOutBenchmarkTest {

    @Test
    void fanOut_427Occupants_engineVersusPerRecipientToXml() throws Exception {
        File dir = new File(System.getProperty("mucscale.bench.dir", "target"));
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
}
