package org.mucscale.engine.metrics.jvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.metrics.jvm.JvmFlagCheck.Report;
import org.mucscale.engine.metrics.jvm.JvmFlagCheck.Severity;

/**
 * The rules table against the real JDKs: every rule's verdict is what {@code java <option> -version} does on JDK 17
 * ({@code /usr/lib/jvm/java-17-openjdk-amd64}) and JDK 25 ({@code /usr/lib/jvm/temurin-25-jdk-amd64}), and JDK 21 when
 * one is installed (none is here; {@code -Dmucscale.test.jdk21=PATH} names one). STOP means the JVM does not start
 * ("Unrecognized VM option"); an obsolete or deprecated flag starts with the JVM's own warning naming it; the
 * collector fights the JVM accepts silently (that silence is why the checker exists). Also: every shipped preset and
 * operator form checks clean on its JDK, and starts that JDK.
 */
class JvmFlagRulesJdkTest {

    /** Flags that take a value; the others are booleans. */
    private static final Map<String, String> SAMPLE_VALUES = Map.of("PermSize", "128m", "MaxPermSize", "256m",
            "NumberOfGCLogFiles", "5", "GCLogFileSize", "10M", "BiasedLockingStartupDelay", "0",
            "PrintSafepointStatisticsCount", "1", "ParallelCMSThreads", "2");
    /** The prefix rule's example. */
    private static final String CMS_EXAMPLE = "CMSParallelRemarkEnabled";

    @TempDir
    Path dir;

    static Map<Integer, Path> jdks() {
        Map<Integer, Path> out = new LinkedHashMap<>();
        add(out, 17, System.getProperty("mucscale.test.jdk17", "/usr/lib/jvm/java-17-openjdk-amd64"));
        add(out, 21, System.getProperty("mucscale.test.jdk21", "/usr/lib/jvm/java-21-openjdk-amd64"));
        add(out, 25, System.getProperty("mucscale.test.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"));
        return out;
    }

    private static void add(Map<Integer, Path> out, int feature, String home) {
        Path java = Path.of(home, "bin", "java");
        if (Files.isExecutable(java)) {
            out.put(feature, java);
        }
    }

    static Path javaFor(int feature) {
        Path java = jdks().get(feature);
        assumeTrue(java != null, "JDK " + feature + " is not installed (-Dmucscale.test.jdk" + feature + "=HOME)");
        return java;
    }

    record JavaRun(int exit, String output) {
    }

    static JavaRun java(Path java, List<String> options) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(options);
        cmd.add("-version");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(cmd + " did not finish");
        }
        return new JavaRun(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    @Test
    void jdksUnderTest_areThere() {
        // 17 and 25 are this project's two JDKs (measure.sh uses both); without them the rules go unverified.
        assertThat(jdks()).containsKeys(17, 25);
    }

    @Test
    void everyLifecycleRule_matchesWhatTheJdkDoes() throws Exception {
        int checked = 0;
        for (Map.Entry<Integer, Path> jdk : jdks().entrySet()) {
            for (JvmFlagRules.Lifecycle rule : JvmFlagRules.FLAGS) {
                String name = rule.prefix() ? CMS_EXAMPLE : rule.name();
                String option = SAMPLE_VALUES.containsKey(name) ? "-XX:" + name + "=" + SAMPLE_VALUES.get(name)
                        : "-XX:+" + name;
                JvmFlagRules.Stage stage = rule.stageAt(jdk.getKey());
                JavaRun run = java(jdk.getValue(), List.of(option));
                Report report = JvmFlagCheck.check(List.of("-XX:+UseG1GC", option), jdk.getKey(), 0, null, 0);
                String what = option + " on JDK " + jdk.getKey() + " (rule says " + stage + "): " + run.output();
                switch (stage) {
                    case NOT_YET, EXPIRED -> {
                        assertThat(run.exit()).as(what).isNotZero();
                        assertThat(run.output()).as(what).contains("Unrecognized VM option '" + name);
                        assertThat(report.exitCode()).as(what).isEqualTo(2);
                    }
                    case OBSOLETE -> {
                        assertThat(run.exit()).as(what).isZero();
                        assertThat(run.output()).as(what).contains("Ignoring option " + name);
                        assertThat(report.exitCode()).as(what).isEqualTo(1);
                    }
                    case DEPRECATED -> {
                        assertThat(run.exit()).as(what).isZero();
                        assertThat(run.output()).as(what).contains(name);
                        assertThat(run.output().toLowerCase(Locale.ROOT)).as(what).contains("deprecated");
                        assertThat(report.exitCode()).as(what).isEqualTo(1);
                    }
                    case CURRENT -> {
                        assertThat(run.exit()).as(what).isZero();
                        assertThat(report.exitCode()).as(what).isZero();
                    }
                }
                checked++;
            }
        }
        assertThat(checked).isGreaterThanOrEqualTo(2 * JvmFlagRules.FLAGS.size());
    }

    /** Option sets beyond single flags: the JVM refuses exactly those the checker calls STOP. */
    static Map<String, List<String>> combinations() {
        Map<String, List<String>> c = new LinkedHashMap<>();
        c.put("reference operator", JvmFlagCheckTest.REFERENCE_OPERATOR);
        c.put("Tigase 2009", JvmFlagCheckTest.TIGASE_2009);
        c.put("two collectors", List.of("-XX:+UseG1GC", "-XX:+UseParallelGC"));
        c.put("collector switched off again", List.of("-XX:+UseParallelGC", "-XX:-UseParallelGC", "-XX:+UseG1GC"));
        c.put("Xms above Xmx", List.of("-Xms256m", "-Xmx128m"));
        c.put("experimental without unlock", List.of("-XX:+UseG1GC", "-XX:G1NewSizePercent=10"));
        c.put("experimental with unlock", List.of("-XX:+UseG1GC", "-XX:+UnlockExperimentalVMOptions",
                "-XX:G1NewSizePercent=10"));
        c.put("Xmn under G1", List.of("-XX:+UseG1GC", "-Xmn64m"));
        c.put("NewRatio under G1", List.of("-XX:+UseG1GC", "-XX:NewRatio=2"));
        c.put("Xmn under ZGC", List.of("-XX:+UseZGC", "-Xmn64m"));
        c.put("NewSize under Shenandoah", List.of("-XX:+UseShenandoahGC", "-XX:NewSize=64m"));
        c.put("pause goal under ZGC", List.of("-XX:+UseZGC", "-XX:MaxGCPauseMillis=5"));
        c.put("Xincgc", List.of("-Xincgc"));
        // A regular file: -Xloggc:/dev/null makes JDK 17 refuse to start (it cannot rotate a device).
        c.put("Xloggc", List.of("-XX:+UseG1GC",
                "-Xloggc:" + Path.of(System.getProperty("java.io.tmpdir"), "mucscale-xloggc-test.log")));
        c.put("Xverify none", List.of("-XX:+UseG1GC", "-Xverify:none"));
        return c;
    }

    @Test
    void combinations_stopExactlyWhenTheJvmRefuses_andWarnOnlyWhereItStarts() throws Exception {
        Set<String> warnedSomewhere = new java.util.TreeSet<>();
        for (Map.Entry<Integer, Path> jdk : jdks().entrySet()) {
            for (Map.Entry<String, List<String>> c : combinations().entrySet()) {
                Report report = JvmFlagCheck.check(c.getValue(), jdk.getKey(), 0, null, 0);
                JavaRun run = java(jdk.getValue(), c.getValue());
                String what = c.getKey() + " on JDK " + jdk.getKey() + ": " + report.findings() + "\n" + run.output();
                assertThat(report.exitCode() == 2).as(what).isEqualTo(run.exit() != 0);
                if (report.exitCode() == 1) {
                    warnedSomewhere.add(c.getKey());
                }
            }
        }
        assertThat(warnedSomewhere).contains("Xmn under G1", "NewRatio under G1", "Xmn under ZGC",
                "NewSize under Shenandoah", "pause goal under ZGC", "Xloggc", "Xverify none");
    }

    @Test
    void everyPreset_isCleanOnItsJdk_andStartsIt() throws Exception {
        List<JvmPresetFormsTest.Preset> presets = JvmPresetFormsTest.presets();
        assertThat(presets).extracting(JvmPresetFormsTest.Preset::name).contains("g1-default", "g1-low-pause", "zgc",
                "zgc-generational", "parallel", "shenandoah");
        for (JvmPresetFormsTest.Preset p : presets) {
            Path java = javaFor(p.jdk());
            Report report = JvmFlagCheck.check(p.options(), p.jdk(), 0, null, 0);
            assertThat(report.exitCode()).as(p.name() + " on JDK " + p.jdk() + ": " + report.findings()).isZero();
            JavaRun run = java(java, List.of("@" + JvmPresetFormsTest.PRESETS.resolve(p.name() + ".jvmopts")));
            assertThat(run.exit()).as(p.name() + ": " + run.output()).isZero();
            assertThat(run.output()).as(p.name()).doesNotContainIgnoringCase("warning");
        }
    }

    @Test
    void everyOperatorForm_isCleanOnItsPresetsJdk() throws Exception {
        for (JvmPresetFormsTest.Preset p : JvmPresetFormsTest.presets()) {
            for (String form : List.of(".vmoptions", ".sysconfig", ".default")) {
                Path file = JvmPresetFormsTest.FORMS.resolve(p.name() + form);
                java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                int exit = JvmFlagCheckCli.run(new String[] {"--jdk", Integer.toString(p.jdk()), "--portable",
                        file.toString()}, new java.io.PrintStream(out, true, StandardCharsets.UTF_8), System.err);
                assertThat(exit).as(file + ":\n" + out.toString(StandardCharsets.UTF_8)).isZero();
            }
        }
    }

    @Test
    void addons_startBothJdks_gcLogRotatesIntoItsFile_jfrRecords() throws Exception {
        Path addons = JvmPresetFormsTest.TUNING.resolve("addons");
        for (Map.Entry<Integer, Path> jdk : jdks().entrySet()) {
            Path logs = Files.createDirectories(dir.resolve("logs-" + jdk.getKey()));
            List<String> options = new ArrayList<>();
            for (String addon : List.of("gc-log", "jfr", "large-pages")) {
                for (String o : JvmFlagCheckCli.argfileWords(Files.readString(addons.resolve(addon + ".jvmopts")))) {
                    options.add(o.replace("/var/log/openfire/", logs + "/"));
                }
            }
            Report report = JvmFlagCheck.check(options, jdk.getKey(), 0, null, 0);
            assertThat(report.count(Severity.WARN) + report.count(Severity.STOP)).as(report.findings().toString())
                    .isZero();
            JavaRun run = java(jdk.getValue(), options);
            assertThat(run.exit()).as(run.output()).isZero();
            assertThat(run.output()).as("JDK " + jdk.getKey()).contains("Started recording");
            assertThat(Files.readString(logs.resolve("gc.log"))).contains("Using G1");
            try (Stream<Path> files = Files.list(logs)) {
                assertThat(files.map(f -> f.getFileName().toString())).contains("mucscale.jfr");
            }
        }
    }

    @Test
    void shenandoah_isShippedByBothJdksHere() throws Exception {
        // The preset says "where the JDK ships it": both JDKs on this machine do; Oracle's builds would not.
        for (Map.Entry<Integer, Path> jdk : jdks().entrySet()) {
            assertThat(java(jdk.getValue(), List.of("-XX:+UseShenandoahGC")).exit()).as("JDK " + jdk.getKey())
                    .isZero();
        }
    }

    @Test
    void runningJvm_byPid_readsItsJdkFlagsAndActualHeap() throws Exception {
        record Case(int jdk, List<String> options, String warned, String collector) {
        }
        List<Case> cases = List.of(
                new Case(17, List.of("-XX:+UseG1GC", "-XX:NewRatio=2", "-Xmx64m"), "-XX:NewRatio=2", "G1"),
                new Case(25, List.of("-XX:+UseZGC", "-XX:+ZGenerational", "-Xmx64m"), "-XX:+ZGenerational", "ZGC"),
                // No collector named: the checker takes the one the JVM chose from VM.flags (G1 on 2+ CPUs).
                new Case(25, List.of("-XX:ActiveProcessorCount=2", "-Xmn16m", "-Xmx64m"), "-Xmn16m", "G1"));
        for (Case c : cases) {
            Path java = javaFor(c.jdk());
            List<String> cmd = new ArrayList<>(List.of(java.toString()));
            cmd.addAll(c.options());
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), WaitForStdin.class.getName()));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            try {
                java.io.BufferedReader r = new java.io.BufferedReader(
                        new java.io.InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                String line;
                while ((line = r.readLine()) != null && !line.equals("ready")) {
                    // the JVM's own warnings come first
                }
                assertThat(line).as("child JVM started").isEqualTo("ready");
                java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
                int exit = JvmFlagCheckCli.run(new String[] {"--users", "5000", "--pid", Long.toString(p.pid())},
                        new java.io.PrintStream(out, true, StandardCharsets.UTF_8),
                        new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
                String text = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
                assertThat(exit).as(text).isEqualTo(1);
                assertThat(text).contains("JDK " + c.jdk() + " (the running JVM)").contains("max heap 64 MiB")
                        .contains("WARN  " + c.warned()).contains("too small for 5000 users");
                if (c.collector() != null) {
                    assertThat(text).contains("collector " + c.collector());
                }
            } finally {
                p.getOutputStream().close();
                if (!p.waitFor(20, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
    }

    @Test
    void zgcWithTransparentHugePages_warnsExactlyWhenJdk25SaysTheOsSideIsMissing() throws Exception {
        Path shmem = Path.of("/sys/kernel/mm/transparent_hugepage/shmem_enabled");
        assumeTrue(Files.isReadable(shmem), "no transparent huge pages on this kernel");
        List<String> options = List.of("-XX:+UseZGC", "-XX:+UseTransparentHugePages", "-Xmx64m");
        boolean checkerWarns = JvmFlagCheckCli.hostFindings(options).stream()
                .anyMatch(f -> f.problem().contains("shared-memory huge pages are off"));
        JavaRun run = java(javaFor(25), options);
        assertThat(run.exit()).isZero();
        boolean jdkWarns = run.output().contains("Shared memory transparent huge pages are not enabled");
        assertThat(checkerWarns).as("shmem_enabled is " + Files.readString(shmem).strip() + "; JDK 25 said:\n"
                + run.output()).isEqualTo(jdkWarns);
    }
}
