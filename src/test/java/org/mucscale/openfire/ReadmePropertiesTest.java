package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Setting;
import org.mucscale.standalone.StandaloneSettings;

/**
 * The README's property table is generated from the settings the code declares, so it cannot drift: this test fails
 * with the table it expects whenever a setting is added, removed or changed. {@code -Dmucscale.readme.update=true}
 * rewrites the table in place.
 */
class ReadmePropertiesTest {
    static final String BEGIN = "<!-- properties:begin -->";
    static final String END = "<!-- properties:end -->";

    @Test
    void readmeTable_matchesEveryDeclaredSetting() throws IOException {
        Path readme = Path.of(System.getProperty("maven.multiModuleProjectDirectory", ".."), "README.md");
        if (!Files.exists(readme)) {
            readme = Path.of("..", "README.md");
        }
        String text = Files.readString(readme, StandardCharsets.UTF_8);
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        assertThat(begin).as("README has the " + BEGIN + " marker").isPositive();
        assertThat(end).as("README has the " + END + " marker").isGreaterThan(begin);
        String expected = table();
        String actual = text.substring(begin + BEGIN.length(), end);
        if (Boolean.getBoolean("mucscale.readme.update") && !actual.equals(expected)) {
            Files.writeString(readme, text.substring(0, begin + BEGIN.length()) + expected + text.substring(end),
                    StandardCharsets.UTF_8);
            actual = expected;
        }
        assertThat(actual).as("README property table (regenerate with -Dmucscale.readme.update=true)")
                .isEqualTo(expected);
    }

    static String table() {
        List<Setting<?>> all = new ArrayList<>(SettingsCatalog.all());
        all.addAll(StandaloneSettings.ALL);
        StringBuilder sb = new StringBuilder("\n| property | what it does | default | allowed | change applies | where |\n"
                + "|---|---|---|---|---|---|\n");
        for (Setting<?> s : all) {
            sb.append("| `").append(s.key()).append("` | ").append(cell(s.description())).append(" | ")
                    .append(cell(defaultText(s))).append(" | ").append(cell(s.allowed())).append(" | ")
                    .append(s.dynamic() ? "at once" : "on reload").append(" | ").append(where(s)).append(" |\n");
        }
        return sb.toString();
    }

    private static String where(Setting<?> s) {
        if (s.key().startsWith("mucscale.openfire.")) {
            return "Openfire";
        }
        return SettingsCatalog.appliesToOpenfire(s) ? "both" : "standalone";
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static String defaultText(Setting s) {
        Object v = s.defaultValue();
        if (v instanceof Duration d) {
            return d.toMillis() + " ms";
        }
        String text = s.format(v);
        return text.isEmpty() ? "(empty)" : "`" + text + "`";
    }

    private static String cell(String s) {
        return s.replace("|", "\\|").replace("\n", " ");
    }
}
