package org.mucscale.engine.metrics.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The operator forms in {@code jvm-tuning/forms/} are generated from one source, the presets
 * ({@code jvm-tuning/presets/*.jvmopts}) plus the GC-log add-on, and must stay equal to what this generator writes:
 * edit a preset, then regenerate with
 * {@code mvn -B -ntp -o -pl engine/metrics -am test -Dtest=JvmPresetFormsTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dmucscale.jvm.writeForms=true}.
 *
 * <p>Three forms per preset: {@code P.vmoptions} (install4j launchers of the Windows/macOS installers: one option a
 * line), {@code P.sysconfig} (the {@code OPENFIRE_OPTS=} line for {@code /etc/sysconfig/openfire}, RPM) and
 * {@code P.default} (the {@code export JDK_JAVA_OPTIONS=} line for {@code /etc/default/openfire}, Debian).
 */
class JvmPresetFormsTest {

    static final Path TUNING = Path.of("../../jvm-tuning").toAbsolutePath().normalize();
    static final Path PRESETS = TUNING.resolve("presets");
    static final Path FORMS = TUNING.resolve("forms");
    static final Path GC_LOG = TUNING.resolve("addons/gc-log.jvmopts");
    static final String DEBIAN_LOGS = "/var/log/openfire/";
    static final String RPM_LOGS = "/opt/openfire/logs/";

    /** A preset: its name, the JDK it names ("measure-jdk: N"), its first comment line, its options. */
    record Preset(String name, int jdk, String summary, List<String> options) {
        static Preset read(Path file) throws IOException {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            String name = file.getFileName().toString().replace(".jvmopts", "");
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("measure-jdk: *(\\d+)").matcher(text);
            if (!m.find()) {
                throw new IllegalStateException(file + " has no 'measure-jdk: N' in its header");
            }
            String first = text.lines().filter(l -> l.startsWith("#")).findFirst().orElse("# " + name)
                    .substring(1).strip();
            return new Preset(name, Integer.parseInt(m.group(1)), first, JvmFlagCheckCli.argfileWords(text));
        }
    }

    static List<Preset> presets() throws IOException {
        List<Preset> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(PRESETS)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".jvmopts")).sorted().toList()) {
                out.add(Preset.read(p));
            }
        }
        return out;
    }

    static String gcLogOption() throws IOException {
        List<String> words = JvmFlagCheckCli.argfileWords(Files.readString(GC_LOG, StandardCharsets.UTF_8));
        assertThat(words).hasSize(1);
        assertThat(words.get(0)).contains(DEBIAN_LOGS);
        return words.get(0);
    }

    /** File name to content, for every preset. */
    static Map<String, String> generate() throws IOException {
        String gcLog = gcLogOption();
        Map<String, String> forms = new TreeMap<>();
        for (Preset p : presets()) {
            String source = "jvm-tuning/presets/" + p.name() + ".jvmopts";
            String generated = "# Generated from " + source + " and jvm-tuning/addons/gc-log.jvmopts by"
                    + " JvmPresetFormsTest:\n# edit those and regenerate (jvm-tuning/README.md), not this file.\n";
            String about = "# Preset " + p.summary() + "\n# JDK " + p.jdk() + " (the JDK it names, where it is"
                    + " start-tested). Check on the server first: bin/mucscale-jvm-check THIS-FILE\n";

            StringBuilder vm = new StringBuilder();
            vm.append("# openfire.vmoptions (Windows/macOS installers, install4j launcher): one option a line.\n")
                    .append("# Copy next to the Openfire launcher as openfire.vmoptions (and openfired.vmoptions for"
                            + " the service).\n").append(about).append(generated);
            p.options().forEach(o -> vm.append(o).append('\n'));
            vm.append("# GC log with rotation: put Openfire's logs folder in file=\"...\" (it must exist, or the JVM"
                    + " does not start;\n# keep the quotes, Windows paths have a ':'), then remove the '#':\n")
                    .append("#").append(gcLog.replace("file=" + DEBIAN_LOGS + "gc.log",
                            "file=\"<Openfire folder>/logs/gc.log\"")).append('\n');
            forms.put(p.name() + ".vmoptions", vm.toString());

            String line = String.join(" ", p.options());
            forms.put(p.name() + ".sysconfig", "# /etc/sysconfig/openfire (RPM): replace its OPENFIRE_OPTS line with"
                    + " the one below.\n" + about + generated + "OPENFIRE_OPTS=\"" + line + " "
                    + gcLog.replace(DEBIAN_LOGS, RPM_LOGS) + "\"\n");
            forms.put(p.name() + ".default", "# /etc/default/openfire (Debian): add the line below. DAEMON_OPTS"
                    + " would not work: the init script puts it after\n# -jar startup.jar, so the JVM never sees it."
                    + " The JVM confirms with \"NOTE: Picked up JDK_JAVA_OPTIONS\" on stderr.\n" + about + generated
                    + "export JDK_JAVA_OPTIONS=\"" + line + " " + gcLog + "\"\n");
        }
        return forms;
    }

    @Test
    void forms_matchTheirPresets_oneSourceForAll() throws IOException {
        Map<String, String> expected = generate();
        if (Boolean.getBoolean("mucscale.jvm.writeForms")) {
            Files.createDirectories(FORMS);
            try (Stream<Path> old = Files.list(FORMS)) {
                for (Path f : old.toList()) {
                    Files.delete(f);
                }
            }
            for (Map.Entry<String, String> e : expected.entrySet()) {
                Files.writeString(FORMS.resolve(e.getKey()), e.getValue(), StandardCharsets.UTF_8);
            }
        }
        Map<String, String> actual = new TreeMap<>();
        try (Stream<Path> files = Files.list(FORMS)) {
            for (Path f : files.toList()) {
                actual.put(f.getFileName().toString(), Files.readString(f, StandardCharsets.UTF_8));
            }
        }
        assertThat(actual.keySet()).as("forms in " + FORMS + " (regenerate: see this test's Javadoc)")
                .isEqualTo(expected.keySet());
        for (Map.Entry<String, String> e : expected.entrySet()) {
            assertThat(actual.get(e.getKey())).as(e.getKey() + " is out of date (regenerate: see this test's Javadoc)")
                    .isEqualTo(e.getValue());
        }
    }

    @Test
    void forms_readBack_giveThePresetsOptionsAndTheGcLog() throws IOException {
        String gcLog = gcLogOption();
        for (Preset p : presets()) {
            JvmFlagCheckCli.Input vm = JvmFlagCheckCli.fromText("x", read(p.name() + ".vmoptions"), FORMS,
                    JvmFlagCheckCli.Kind.VMOPTIONS);
            assertThat(vm.options()).as(p.name() + ".vmoptions").isEqualTo(p.options());
            JvmFlagCheckCli.Input rpm = JvmFlagCheckCli.fromText("x", read(p.name() + ".sysconfig"), FORMS,
                    JvmFlagCheckCli.Kind.ARGFILE);
            List<String> withLog = new ArrayList<>(p.options());
            withLog.add(gcLog.replace(DEBIAN_LOGS, RPM_LOGS));
            assertThat(rpm.options()).as(p.name() + ".sysconfig").isEqualTo(withLog);
            JvmFlagCheckCli.Input deb = JvmFlagCheckCli.fromText("x", read(p.name() + ".default"), FORMS,
                    JvmFlagCheckCli.Kind.ARGFILE);
            withLog.set(withLog.size() - 1, gcLog);
            assertThat(deb.options()).as(p.name() + ".default").isEqualTo(withLog);
        }
    }

    private static String read(String form) throws IOException {
        return Files.readString(FORMS.resolve(form), StandardCharsets.UTF_8);
    }
}
