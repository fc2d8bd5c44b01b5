package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's Layout section names every module of the root pom.xml (issue 39: engine/cluster was missing), each at
 * the start of a line of its code block, and every folder it names exists.
 */
class ReadmeLayoutTest {

    @Test
    void layout_namesEveryModuleOfTheBuild_andOnlyFoldersThatExist() throws IOException {
        Path root = Path.of(System.getProperty("maven.multiModuleProjectDirectory", ".."));
        if (!Files.exists(root.resolve("README.md"))) {
            root = Path.of("..");
        }
        String readme = Files.readString(root.resolve("README.md"), StandardCharsets.UTF_8);
        int section = readme.indexOf("\n## Layout\n");
        assertThat(section).as("README has a Layout section").isPositive();
        int open = readme.indexOf("```", section);
        int close = readme.indexOf("```", open + 3);
        List<String> named = new ArrayList<>();
        for (String line : readme.substring(open + 3, close).split("\n")) {
            if (!line.isEmpty() && !line.startsWith(" ")) {
                named.add(line.split("\\s+")[0]);
            }
        }

        String pom = Files.readString(root.resolve("pom.xml"), StandardCharsets.UTF_8);
        List<String> modules = new ArrayList<>();
        Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(pom);
        while (m.find()) {
            modules.add(m.group(1));
        }
        assertThat(modules).as("modules of the root pom.xml").isNotEmpty();
        for (String module : modules) {
            assertThat(named).as("README Layout entries naming module " + module)
                    .anyMatch(n -> n.equals(module) || n.startsWith(module + "/"));
        }
        for (String n : named) {
            if (n.endsWith("/") || !n.contains(".")) {
                assertThat(root.resolve(n)).as("folder named in the README's Layout").isDirectory();
            }
        }
    }
}
