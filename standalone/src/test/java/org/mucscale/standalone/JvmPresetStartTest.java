package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.testkit.ProsodyServer;

/**
 * Every preset in {@code jvm-tuning/presets/} starts the standalone runner on the JDK it names ({@code measure-jdk: N}
 * in its header: 17 is {@code /usr/lib/jvm/java-17-openjdk-amd64}, 25 {@code /usr/lib/jvm/temurin-25-jdk-amd64}),
 * applied the way jvm-tuning/README.md tells operators (a java {@code @argfile}), together with the GC-log add-on,
 * and the runner answers a join through a real Prosody. The GC log must be written where the add-on says.
 */
class JvmPresetStartTest {
    private static final Path TUNING = Path.of("../jvm-tuning").toAbsolutePath().normalize();
    private static ProsodyServer prosody;

    @TempDir
    Path dir;

    @BeforeAll
    static void startProsody() {
        prosody = ProsodyServer.builder().domain("example.test").externalComponent("muc", "right")
                .user("alice", "pw").start();
    }

    @AfterAll
    static void stopProsody() {
        prosody.close();
    }

    private static Path javaFor(int jdk) {
        String home = switch (jdk) {
            case 17 -> System.getProperty("mucscale.test.jdk17", "/usr/lib/jvm/java-17-openjdk-amd64");
            case 21 -> System.getProperty("mucscale.test.jdk21", "/usr/lib/jvm/java-21-openjdk-amd64");
            case 25 -> System.getProperty("mucscale.test.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64");
            default -> throw new AssertionError("a preset names JDK " + jdk + "; only 17, 21 and 25 are wired");
        };
        Path java = Path.of(home, "bin", "java");
        assertThat(java).as("JDK " + jdk + " (a preset names it)").isExecutable();
        return java;
    }

    @Test
    void everyPreset_startsTheRunnerOnItsJdk_andItAnswers() throws Exception {
        List<Path> presets;
        try (Stream<Path> files = Files.list(TUNING.resolve("presets"))) {
            presets = files.filter(f -> f.toString().endsWith(".jvmopts")).sorted().toList();
        }
        assertThat(presets).hasSizeGreaterThanOrEqualTo(6);
        String gcLogAddon = Files.readString(TUNING.resolve("addons/gc-log.jvmopts"), StandardCharsets.UTF_8);
        int n = 0;
        for (Path preset : presets) {
            String name = preset.getFileName().toString().replace(".jvmopts", "");
            Matcher m = Pattern.compile("measure-jdk: *(\\d+)").matcher(Files.readString(preset));
            assertThat(m.find()).as(name + " names its JDK").isTrue();
            Path java = javaFor(Integer.parseInt(m.group(1)));
            Path logs = Files.createDirectories(dir.resolve(name + "-logs"));
            Path gcLog = dir.resolve(name + "-gc-log.jvmopts");
            Files.writeString(gcLog, gcLogAddon.replace("/var/log/openfire/", logs + "/"));
            Path config = dir.resolve(name + ".properties");
            Files.write(config, List.of("mucscale.standalone.server-port=" + prosody.componentPort(),
                    "mucscale.standalone.component-domain=muc.example.test",
                    "mucscale.standalone.component-secret=right", "mucscale.store.jdbc-url=jdbc:hsqldb:mem:m" + n,
                    "mucscale.metrics.http-port=0"), StandardCharsets.UTF_8);
            List<String> cmd = new ArrayList<>(List.of(java.toString(), "@" + preset, "@" + gcLog, "-cp",
                    System.getProperty("java.class.path"), Main.class.getName(), "--config", config.toString()));
            Path err = dir.resolve(name + ".stderr");
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectError(err.toFile()).start();
            String room = "preset" + n++ + "@muc.example.test";
            try (RawXmppClient alice = RawXmppClient.login(prosody.c2sPort(), "example.test", "alice", "pw", name)) {
                BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                String line = out.readLine();
                assertThat(line).as(name + " on " + java + ": first line on stdout; stderr: " + read(err))
                        .contains("mucscale: running as muc.example.test");
                alice.write("<presence to='" + room + "/alice'><x xmlns='http://jabber.org/protocol/muc'/></presence>");
                alice.expect(e -> e.name().equals("presence") && (room + "/alice").equals(e.attribute("from")),
                        name + ": self presence");
                p.destroy(); // SIGTERM: a clean stop
                assertThat(p.waitFor(30, TimeUnit.SECONDS)).as(name + " exited after SIGTERM").isTrue();
            } finally {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
            assertThat(read(err)).as(name + ": the JVM warned about an option").doesNotContain("VM warning");
            assertThat(read(logs.resolve("gc.log"))).as(name + ": GC log").contains("[gc")
                    .contains("Using " + collectorOf(Files.readString(preset)));
        }
    }

    private static String collectorOf(String preset) {
        if (preset.contains("-XX:+UseZGC")) {
            return "The Z Garbage Collector";
        }
        if (preset.contains("-XX:+UseShenandoahGC")) {
            return "Shenandoah";
        }
        if (preset.contains("-XX:+UseParallelGC")) {
            return "Parallel";
        }
        return "G1";
    }

    private static String read(Path p) throws IOException {
        return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : "";
    }
}
