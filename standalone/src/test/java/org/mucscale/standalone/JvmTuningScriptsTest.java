package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The measuring scripts of {@code jvm-tuning/}: their Python parsers pass their own tests
 * ({@code jvm-tuning/test_jvm_tuning.py}: the GC log in both decoration sets and rotated, a real JDK 17 and 25 log,
 * per-thread CPU grouping, the Openfire run's level window and worst second), and every shell script parses; the
 * Openfire benchmarks refuse bad settings by name before they start anything.
 */
class JvmTuningScriptsTest {
    private static final Path TUNING = Path.of("../jvm-tuning").toAbsolutePath().normalize();

    @TempDir
    Path dir;

    private String run(List<String> cmd) throws Exception {
        Path out = dir.resolve("out.txt");
        Process p = new ProcessBuilder(cmd).directory(TUNING.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile()).start();
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).as(String.join(" ", cmd) + " finished").isTrue();
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(String.join(" ", cmd) + ":\n" + text).isZero();
        return text;
    }

    @Test
    void pythonParsers_passTheirTests() throws Exception {
        String text = run(List.of("python3", "-B", "-m", "unittest", "discover", "-s", ".", "-p", "test_*.py"));
        assertThat(text).contains("OK");
    }

    @Test
    void shellScripts_parse() throws Exception {
        for (String script : List.of("measure.sh", "measure-openfire.sh", "run-matrix.sh", "../bench/e2e/openfire.sh",
                "../bench/cluster/openfire-cluster.sh")) {
            run(List.of("bash", "-n", script));
        }
    }

    /** MEASURE_JDK takes the two JDKs the scripts know; any other is refused by name before anything starts. */
    @Test
    void measureOpenfire_withAnUnknownMeasureJdk_isRefusedNamingIt() throws Exception {
        Path home = dir.resolve("openfire");
        Files.createDirectories(home.resolve("bin"));
        Files.writeString(home.resolve("bin/openfire.sh"), "exit 1\n");
        ProcessBuilder pb = new ProcessBuilder("bash", "measure-openfire.sh", "g1-default").directory(TUNING.toFile())
                .redirectErrorStream(true).redirectOutput(dir.resolve("jdk.txt").toFile());
        pb.environment().put("OPENFIRE_HOME", home.toString());
        pb.environment().put("MEASURE_JDK", "21");
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String text = Files.readString(dir.resolve("jdk.txt"), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(text).isEqualTo(2);
        assertThat(text).contains("JDK '21'").contains("MEASURE_JDK").contains("only 17 and 25");
    }

    /** OFC_NODE_CPUS takes only CPUs this machine has; anything else is refused by name before anything is built. */
    @Test
    void openfireCluster_withACpuThisMachineLacks_isRefusedNamingIt() throws Exception {
        Path home = dir.resolve("openfire");
        Files.createDirectories(home.resolve("lib"));
        Files.writeString(home.resolve("lib/startup.jar"), "");
        Path hazelcast = Files.writeString(dir.resolve("hazelcast.jar"), "");
        for (String cpus : List.of("0 4096", "0 x")) {
            ProcessBuilder pb = new ProcessBuilder("bash", "../bench/cluster/openfire-cluster.sh")
                    .directory(TUNING.toFile()).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("cpus.txt").toFile());
            pb.environment().put("OPENFIRE_HOME", home.toString());
            pb.environment().put("HAZELCAST_PLUGIN", hazelcast.toString());
            pb.environment().put("OFC_NODE_CPUS", cpus);
            Process p = pb.start();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            String text = Files.readString(dir.resolve("cpus.txt"), StandardCharsets.UTF_8);
            assertThat(p.exitValue()).as(text).isEqualTo(2);
            assertThat(text).contains("OFC_NODE_CPUS takes CPU numbers below").contains("was '" + cpus + "'");
        }
    }
}
