package org.mucscale.engine.metrics.jvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.metrics.jvm.JvmFlagCheck.Finding;
import org.mucscale.engine.metrics.jvm.JvmFlagCheck.Host;
import org.mucscale.engine.metrics.jvm.JvmFlagCheck.Report;
import org.mucscale.engine.metrics.jvm.JvmFlagCheck.Severity;

/** The checker's verdicts and its command line, without starting JVMs (JvmFlagRulesJdkTest does that). */
class JvmFlagCheckTest {

    /** The reference operator's flags (issue 15). */
    static final List<String> REFERENCE_OPERATOR = List.of("-XX:+UseParNewGC", "-XX:+UseConcMarkSweepGC",
            "-XX:NewRatio=2", "-XX:+CMSIncrementalMode", "-XX:PermSize=128m");
    /** Tigase's etc/tigase.conf of the CMS era (GC, EX and JAVA_OPTIONS lines, uncommented as its guide said). */
    static final List<String> TIGASE_2009 = List.of("-XX:+UseBiasedLocking", "-XX:+UseConcMarkSweepGC",
            "-XX:+CMSIncrementalMode", "-XX:ParallelCMSThreads=2", "-XX:-ReduceInitialCardMarks",
            "-XX:+OptimizeStringConcat", "-XX:+DoEscapeAnalysis", "-XX:+UseNUMA", "-server", "-Xms100M", "-Xmx200M",
            "-XX:PermSize=32m", "-XX:MaxPermSize=256m", "-XX:MaxDirectMemorySize=128m");

    @TempDir
    Path dir;

    private static Severity severityOf(Report r, String option) {
        return r.findings().stream().filter(f -> f.option().equals(option)).map(Finding::severity).findFirst()
                .orElse(null);
    }

    @Test
    void referenceOperator_onEveryJdk_stopsOnRemovedFlags_andWarnsAboutYoungSizing() {
        for (int jdk : new int[] {17, 21, 25}) {
            Report r = JvmFlagCheck.check(REFERENCE_OPERATOR, jdk, 0, Host.OPENFIRE, 0);
            assertThat(r.exitCode()).as("JDK " + jdk).isEqualTo(2);
            assertThat(severityOf(r, "-XX:+UseParNewGC")).isEqualTo(Severity.STOP);
            assertThat(severityOf(r, "-XX:+UseConcMarkSweepGC")).isEqualTo(Severity.STOP);
            assertThat(severityOf(r, "-XX:+CMSIncrementalMode")).isEqualTo(Severity.STOP);
            assertThat(severityOf(r, "-XX:PermSize=128m")).isEqualTo(Severity.STOP);
            assertThat(severityOf(r, "-XX:NewRatio=2")).isEqualTo(Severity.WARN);
            assertThat(r.collector()).startsWith("CMS");
            assertThat(r.findings()).allSatisfy(f -> assertThat(f.instead()).isNotBlank());
            assertThat(r.findings().stream().filter(f -> f.option().equals("-XX:+UseConcMarkSweepGC")).findFirst()
                    .orElseThrow().instead()).contains("UseZGC").contains("UseG1GC");
        }
    }

    @Test
    void tigase2009_stopsOnCmsAndPermGen_biasedLockingWarnsOn17AndStopsOn21() {
        Report on17 = JvmFlagCheck.check(TIGASE_2009, 17, 0, Host.OPENFIRE, 0);
        assertThat(on17.exitCode()).isEqualTo(2);
        assertThat(severityOf(on17, "-XX:+UseBiasedLocking")).isEqualTo(Severity.WARN);
        assertThat(severityOf(on17, "-XX:ParallelCMSThreads=2")).isEqualTo(Severity.STOP);
        assertThat(severityOf(on17, "-XX:MaxPermSize=256m")).isEqualTo(Severity.STOP);
        assertThat(severityOf(on17, "-XX:+UseNUMA")).isNull();
        Report on21 = JvmFlagCheck.check(TIGASE_2009, 21, 0, Host.OPENFIRE, 0);
        assertThat(severityOf(on21, "-XX:+UseBiasedLocking")).isEqualTo(Severity.STOP);
    }

    @Test
    void zgenerational_notKnownOn17_fineOn21_ignoredOn25() {
        List<String> opts = List.of("-XX:+UseZGC", "-XX:+ZGenerational");
        assertThat(JvmFlagCheck.check(opts, 17, 0, null, 0).exitCode()).isEqualTo(2);
        assertThat(JvmFlagCheck.check(opts, 21, 0, null, 0).findings()).isEmpty();
        Report on25 = JvmFlagCheck.check(opts, 25, 0, null, 0);
        assertThat(on25.exitCode()).isEqualTo(1);
        assertThat(on25.findings().get(0).problem()).contains("support was removed in 24.0");
        // Single-generation ZGC on 21: works, but is not what anyone wants there.
        assertThat(severityOf(JvmFlagCheck.check(List.of("-XX:+UseZGC"), 21, 0, null, 0), "-XX:+UseZGC"))
                .isEqualTo(Severity.WARN);
        assertThat(JvmFlagCheck.check(List.of("-XX:+UseZGC"), 25, 0, null, 0).findings()).isEmpty();
    }

    @Test
    void youngSizing_fightsG1AndZgc_notParallel() {
        for (String young : List.of("-Xmn256m", "-XX:NewSize=100m", "-XX:MaxNewSize=100m", "-XX:NewRatio=2")) {
            assertThat(severityOf(JvmFlagCheck.check(List.of("-XX:+UseG1GC", young), 17, 0, null, 0), young))
                    .isEqualTo(Severity.WARN);
            assertThat(severityOf(JvmFlagCheck.check(List.of("-XX:+UseZGC", young), 25, 0, null, 0), young))
                    .isEqualTo(Severity.WARN);
            assertThat(severityOf(JvmFlagCheck.check(List.of("-XX:+UseShenandoahGC", young), 17, 0, null, 0), young))
                    .isEqualTo(Severity.WARN);
            assertThat(JvmFlagCheck.check(List.of("-XX:+UseParallelGC", young), 17, 0, null, 0).exitCode()).isZero();
        }
        // G1 is the default collector: young sizing without a collector flag fights it too.
        assertThat(severityOf(JvmFlagCheck.check(List.of("-Xmn1g"), 17, 0, null, 0), "-Xmn1g"))
                .isEqualTo(Severity.WARN);
        assertThat(severityOf(JvmFlagCheck.check(List.of("-XX:+UseZGC", "-XX:MaxGCPauseMillis=5"), 25, 0, null, 0),
                "-XX:MaxGCPauseMillis=5")).isEqualTo(Severity.WARN);
        assertThat(JvmFlagCheck.check(List.of("-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20"), 17, 0, null, 0).exitCode())
                .isZero();
    }

    @Test
    void collectors_twoSelectedStop_lastSettingWins() {
        assertThat(JvmFlagCheck.check(List.of("-XX:+UseG1GC", "-XX:+UseParallelGC"), 17, 0, null, 0).exitCode())
                .isEqualTo(2);
        Report r = JvmFlagCheck.check(List.of("-XX:+UseParallelGC", "-XX:-UseParallelGC", "-XX:+UseG1GC"), 17, 0,
                null, 0);
        assertThat(r.exitCode()).isZero();
        assertThat(r.collector()).isEqualTo("G1");
    }

    @Test
    void heap_initialAboveMaxStops_usersAboveMeasuredFloorWarn() {
        assertThat(JvmFlagCheck.check(List.of("-XX:+UseG1GC", "-Xms2g", "-Xmx1g"), 17, 0, null, 0).exitCode())
                .isEqualTo(2);
        assertThat(JvmFlagCheck.check(List.of("-XX:+UseG1GC", "-XX:InitialHeapSize=2g", "-XX:MaxHeapSize=1g"), 17, 0,
                null, 0).exitCode()).isEqualTo(2);
        // 5,000 users x 625 kB = 3.1 GB: 2 GiB is too small inside Openfire, 4 GiB is enough; standalone 274 kB/user.
        List<String> twoGiB = List.of("-XX:+UseZGC", "-Xms2g", "-Xmx2g");
        Report small = JvmFlagCheck.check(twoGiB, 25, 5000, Host.OPENFIRE, 0);
        assertThat(severityOf(small, "-Xmx2g")).isEqualTo(Severity.WARN);
        assertThat(small.findings().get(0).problem()).contains("5000 users").contains("docs/benchmarks/e2e.md");
        assertThat(JvmFlagCheck.check(List.of("-XX:+UseZGC", "-Xms4g", "-Xmx4g"), 25, 5000, Host.OPENFIRE, 0)
                .exitCode()).isZero();
        assertThat(JvmFlagCheck.check(twoGiB, 25, 5000, Host.STANDALONE, 0).exitCode()).isZero();
        // The running JVM's actual maximum heap wins over the options (jcmd VM.flags, or the dashboard's own JVM).
        assertThat(JvmFlagCheck.check(List.of("-XX:+UseZGC"), 25, 5000, Host.OPENFIRE, 1L << 30).exitCode())
                .isEqualTo(1);
        // No -Xmx and no running JVM: a note, not a guess.
        Report unknown = JvmFlagCheck.check(List.of("-XX:+UseZGC"), 25, 5000, Host.OPENFIRE, 0);
        assertThat(unknown.exitCode()).isZero();
        assertThat(severityOf(unknown, "(no -Xmx)")).isEqualTo(Severity.NOTE);
    }

    @Test
    void legacyLoggingAndOldSwitches_warnOrStop_withTheModernForm() {
        Report r = JvmFlagCheck.check(List.of("-XX:+UseG1GC", "-XX:+PrintGCDetails", "-Xloggc:/tmp/gc.log",
                "-XX:+PrintGCDateStamps", "-XX:+UseGCLogFileRotation", "-Xincgc", "-Xverify:none"), 17, 0, null, 0);
        assertThat(severityOf(r, "-XX:+PrintGCDetails")).isEqualTo(Severity.WARN);
        assertThat(severityOf(r, "-Xloggc:/tmp/gc.log")).isEqualTo(Severity.WARN);
        assertThat(severityOf(r, "-XX:+PrintGCDateStamps")).isEqualTo(Severity.STOP);
        assertThat(severityOf(r, "-XX:+UseGCLogFileRotation")).isEqualTo(Severity.STOP);
        assertThat(severityOf(r, "-Xincgc")).isEqualTo(Severity.STOP);
        assertThat(severityOf(r, "-Xverify:none")).isEqualTo(Severity.WARN);
        assertThat(r.findings().stream().filter(f -> f.option().startsWith("-Xloggc")).findFirst().orElseThrow()
                .instead()).contains("-Xlog:gc*").contains("filecount=");
    }

    @Test
    void experimentalFlag_needsUnlockBeforeIt() {
        assertThat(JvmFlagCheck.check(List.of("-XX:G1NewSizePercent=10"), 17, 0, null, 0).exitCode()).isEqualTo(2);
        assertThat(JvmFlagCheck.check(List.of("-XX:G1NewSizePercent=10", "-XX:+UnlockExperimentalVMOptions"), 17, 0,
                null, 0).exitCode()).isEqualTo(2);
        assertThat(JvmFlagCheck.check(List.of("-XX:+UnlockExperimentalVMOptions", "-XX:G1NewSizePercent=10"), 17, 0,
                null, 0).exitCode()).isZero();
    }

    @Test
    void unauthenticatedOrCleartextJmx_warns_authenticatedTlsIsClean() {
        Report open = JvmFlagCheck.check(List.of("-XX:+UseG1GC", "-Dcom.sun.management.jmxremote.port=9010",
                "-Dcom.sun.management.jmxremote.authenticate=false", "-Dcom.sun.management.jmxremote.ssl=false"), 17,
                0, null, 0);
        assertThat(open.count(Severity.WARN)).isEqualTo(2);
        assertThat(JvmFlagCheck.check(List.of("-XX:+UseG1GC", "-Dcom.sun.management.jmxremote.port=9010",
                "-Dcom.sun.management.jmxremote.authenticate=true", "-Dcom.sun.management.jmxremote.ssl=true"), 17, 0,
                null, 0).exitCode()).isZero();
    }

    @Test
    void badInput_clearErrors() {
        assertThatThrownBy(() -> JvmFlagCheck.check(List.of("-Xmx2x"), 17, 0, null, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-Xmx2x").hasMessageContaining("size");
        assertThatThrownBy(() -> JvmFlagCheck.check(List.of("-Xmx"), 17, 0, null, 0))
                .hasMessageContaining("a size is missing");
        assertThatThrownBy(() -> JvmFlagCheck.check(List.of(), 5, 0, null, 0)).hasMessageContaining("was 5");
        assertThat(JvmFlagCheck.parseSize("1073741824", "x")).isEqualTo(1L << 30);
        assertThat(JvmFlagCheck.parseSize("100M", "x")).isEqualTo(100L << 20);
    }

    // ---- reading the operators' forms ----

    @Test
    void argfile_commentsQuotesAndNestedArgfiles() throws IOException {
        Path inner = dir.resolve("inner.jvmopts");
        Files.writeString(inner, "-Xmx1g # trailing comment\n");
        JvmFlagCheckCli.Input in = JvmFlagCheckCli.fromText("f", "# comment\n-XX:+UseG1GC\n\"-Dx=a b\"\n@inner.jvmopts\n",
                dir, JvmFlagCheckCli.Kind.ARGFILE);
        // An argfile inside an argfile is not expanded by the launcher; only command line / env words are.
        assertThat(in.options()).containsExactly("-XX:+UseG1GC", "-Dx=a b", "@inner.jvmopts");
        JvmFlagCheckCli.Input env = JvmFlagCheckCli.fromText("f", "OPENFIRE_OPTS=\"@inner.jvmopts -XX:+UseZGC\"\n",
                dir, JvmFlagCheckCli.Kind.ARGFILE);
        assertThat(env.options()).containsExactly("-Xmx1g", "-XX:+UseZGC");
        JvmFlagCheckCli.Input missing = JvmFlagCheckCli.fromText("f", "OPENFIRE_OPTS=\"@nope.jvmopts\"\n", dir,
                JvmFlagCheckCli.Kind.ARGFILE);
        assertThat(missing.findings()).singleElement().extracting(Finding::severity).isEqualTo(Severity.STOP);
    }

    @Test
    void shellFiles_sysconfigAndDefault_daemonOptsIsFlagged() throws IOException {
        String debian = """
                # /etc/default/openfire
                JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64
                DAEMON_OPTS="-Xmx2g -XX:+UseG1GC"
                export JDK_JAVA_OPTIONS='-XX:+UseZGC -Xmx4g'
                """;
        JvmFlagCheckCli.Input in = JvmFlagCheckCli.fromText("f", debian, dir, JvmFlagCheckCli.Kind.ARGFILE);
        assertThat(in.options()).containsExactly("-XX:+UseZGC", "-Xmx4g");
        assertThat(in.findings()).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARN);
            assertThat(f.option()).startsWith("DAEMON_OPTS=");
            assertThat(f.instead()).contains("JDK_JAVA_OPTIONS");
        });
        JvmFlagCheckCli.Input rpm = JvmFlagCheckCli.fromText("f", "#OPENFIRE_OPTS=\"-Xmx1024m\"\nOPENFIRE_OPTS=\"-Xmx3g\"\n",
                dir, JvmFlagCheckCli.Kind.ARGFILE);
        assertThat(rpm.options()).containsExactly("-Xmx3g");
    }

    @Test
    void vmoptions_oneOptionALine_install4jDirectivesSkipped() throws IOException {
        JvmFlagCheckCli.Input in = JvmFlagCheckCli.fromText("f.vmoptions",
                "# c\n-Xmx2g\n-Dopenfire.home=C:/Program Files/Openfire\n-include-options other.vmoptions\n"
                        + "-classpath/a lib/x.jar\n", dir, JvmFlagCheckCli.Kind.VMOPTIONS);
        assertThat(in.options()).containsExactly("-Xmx2g", "-Dopenfire.home=C:/Program Files/Openfire");
    }

    // ---- the command line ----

    private record Run(int exit, String out, String err) {
    }

    private static Run cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = JvmFlagCheckCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void cli_exitCodes_0clean_1warn_2stop_3usage() throws IOException {
        assertThat(cli("--jdk", "25", "--", "-XX:+UseZGC", "-Xms1g", "-Xmx1g").exit()).isZero();
        assertThat(cli("--jdk", "25", "--", "-XX:+UseZGC", "-XX:+ZGenerational").exit()).isEqualTo(1);
        Run stop = cli("--jdk", "17", "--line", "OPENFIRE_OPTS=\"" + String.join(" ", REFERENCE_OPERATOR) + "\"");
        assertThat(stop.exit()).isEqualTo(2);
        assertThat(stop.out()).contains("STOP  -XX:+UseConcMarkSweepGC").contains("instead: ")
                .contains("result: the JVM will not start (4 stop, 1 warn");
        Path vmoptions = dir.resolve("openfire.vmoptions");
        Files.writeString(vmoptions, "-XX:+UseG1GC\n-Xmn512m\n");
        assertThat(cli("--jdk", "17", vmoptions.toString()).exit()).isEqualTo(1);
        assertThat(cli("--jdk", "x", "--", "-Xmx1g").exit()).isEqualTo(JvmFlagCheckCli.EXIT_USAGE);
        assertThat(cli("--jdk", "17").err()).contains("name one SOURCE");
        assertThat(cli("--users", "-1", "--", "-Xmx1g").err()).contains("--users must be a whole number");
        assertThat(cli("--host", "tomcat", "--", "-Xmx1g").err()).contains("--host must be openfire or standalone");
        Run missing = cli(dir.resolve("missing").toString());
        assertThat(missing.exit()).isEqualTo(JvmFlagCheckCli.EXIT_USAGE);
        assertThat(missing.err()).contains("cannot read " + dir.resolve("missing") + ": no such file");
        assertThat(cli("--pid", "999999999").err()).contains("cannot read the options: no process 999999999");
        assertThat(cli("--pid", "0").err()).contains("--pid must be a whole number between 1");
        assertThat(cli("--jdk", "17", "--", "-Xmx2q").err()).contains("-Xmx2q");
        assertThat(cli("--help").out()).contains("usage: mucscale-jvm-check");
    }

    @Test
    void cli_hostChecks_gcLogFolderMustExist_portableSkipsThem() {
        String log = "-Xlog:gc*:file=" + dir.resolve("no/such/folder/gc.log") + ":time:filecount=2,filesize=1m";
        assertThat(cli("--jdk", "17", "--", "-XX:+UseG1GC", log).exit()).isEqualTo(2);
        assertThat(cli("--jdk", "17", "--portable", "--", "-XX:+UseG1GC", log).exit()).isZero();
        String present = "-Xlog:gc*:file=" + dir.resolve("gc.log") + ":time:filecount=2,filesize=1m";
        assertThat(cli("--jdk", "17", "--", "-XX:+UseG1GC", present).exit()).isZero();
    }
}
