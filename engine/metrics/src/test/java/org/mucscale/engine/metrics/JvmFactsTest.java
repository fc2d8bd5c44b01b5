package org.mucscale.engine.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.port.Clock;

/**
 * The dashboard's JVM facts and the flag checker's verdict, read from real JVMs: child JVMs of JDK 17 and 25 started
 * with known options print their {@code jvm} object, and the dashboard JSON of this JVM carries it.
 */
class JvmFactsTest {

    private static String childJson(String javaHome, List<String> options, String occupants) throws Exception {
        Path java = Path.of(javaHome, "bin", "java");
        assumeTrue(Files.isExecutable(java), java + " is not installed");
        List<String> cmd = new ArrayList<>(List.of(java.toString()));
        cmd.addAll(options);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), PrintJvmFacts.class.getName(), occupants));
        Process p = new ProcessBuilder(cmd).start();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(err).isZero();
        String text = new String(out, StandardCharsets.UTF_8).strip();
        return text.substring(text.lastIndexOf('\n') + 1);
    }

    @Test
    void jdk25_zgcWithObsoleteFlagAndYoungSizing_showsGenerationalZgcAndWarnings() throws Exception {
        String json = childJson("/usr/lib/jvm/temurin-25-jdk-amd64",
                List.of("-XX:+UseZGC", "-XX:+ZGenerational", "-Xmn16m", "-Xms64m", "-Xmx64m", "-Dunrelated=1"), "0");
        assertThat(json).startsWith("{\"version\":\"25").contains("\"feature\":25")
                .contains("\"collector\":\"ZGC (generational)\"")
                .contains("\"heapMaxBytes\":" + (64L << 20))
                .contains("\"gcOptions\":[\"-XX:+UseZGC\",\"-XX:+ZGenerational\",\"-Xmn16m\",\"-Xms64m\",\"-Xmx64m\"]")
                .contains("\"verdict\":\"warnings\",\"exitCode\":1")
                .contains("{\"severity\":\"WARN\",\"option\":\"-XX:+ZGenerational\"")
                .contains("{\"severity\":\"WARN\",\"option\":\"-Xmn16m\"")
                .doesNotContain("unrelated");
    }

    @Test
    void jdk17_g1LowPausePreset_isClean_untilTheOccupantsOutgrowTheHeap() throws Exception {
        List<String> preset = List.of("-XX:+UseG1GC", "-Xms1g", "-Xmx1g", "-XX:MaxGCPauseMillis=20",
                "-XX:+ParallelRefProcEnabled", "-XX:+ExitOnOutOfMemoryError");
        String clean = childJson("/usr/lib/jvm/java-17-openjdk-amd64", preset, "1000");
        assertThat(clean).contains("\"feature\":17").contains("\"collector\":\"G1\"")
                .contains("\"MaxGCPauseMillis\":\"20\"")
                .contains("\"verdict\":\"clean\",\"exitCode\":0,\"occupants\":1000,\"host\":\"standalone\"")
                .contains("\"findings\":[]");
        // 1 GiB for 5,000 occupants: below 5,000 x 274 kB (standalone's measured memory per user).
        String tooSmall = childJson("/usr/lib/jvm/java-17-openjdk-amd64", preset, "5000");
        assertThat(tooSmall).contains("\"verdict\":\"warnings\"").contains("too small for 5000 users");
        // Inside Openfire (its launchers set -DopenfireHome) the Openfire figure applies: 625 kB per user.
        List<String> inOpenfire = new ArrayList<>(preset);
        inOpenfire.add("-DopenfireHome=/opt/openfire");
        assertThat(childJson("/usr/lib/jvm/java-17-openjdk-amd64", inOpenfire, "2000"))
                .contains("\"host\":\"openfire\"").contains("too small for 2000 users");
    }

    @Test
    void collectorOf_namesEachCollectorFromItsBeans() {
        assertThat(JvmFacts.collectorOf(List.of("G1 Young Generation", "G1 Concurrent GC", "G1 Old Generation")))
                .isEqualTo("G1");
        assertThat(JvmFacts.collectorOf(List.of("ZGC Minor Cycles", "ZGC Minor Pauses", "ZGC Major Cycles",
                "ZGC Major Pauses"))).isEqualTo("ZGC (generational)");
        assertThat(JvmFacts.collectorOf(List.of("ZGC Cycles", "ZGC Pauses"))).isEqualTo("ZGC");
        assertThat(JvmFacts.collectorOf(List.of("Shenandoah Pauses", "Shenandoah Cycles"))).isEqualTo("Shenandoah");
        assertThat(JvmFacts.collectorOf(List.of("PS Scavenge", "PS MarkSweep"))).isEqualTo("Parallel");
        assertThat(JvmFacts.collectorOf(List.of("Copy", "MarkSweepCompact"))).isEqualTo("Serial");
    }

    @Test
    void dashboardJson_carriesThisJvm() throws Exception {
        try (MucScaleMetrics metrics = new MucScaleMetrics(MetricsConfig.defaults(), Clock.SYSTEM)) {
            metrics.dashboard().sampleNow();
            String json = metrics.dashboard().json(900);
            assertThat(json).contains(",\"jvm\":{\"version\":")
                    .contains("\"feature\":" + Runtime.version().feature())
                    .contains("\"collector\":\"" + JvmFacts.facts().collector() + "\"")
                    .contains("\"check\":{\"verdict\":");
            assertThat(JsonProbe.number(json, "\"jvm\":", "heapMaxBytes"))
                    .isEqualTo((double) java.lang.management.ManagementFactory.getMemoryMXBean()
                            .getHeapMemoryUsage().getMax());
        }
    }
}
