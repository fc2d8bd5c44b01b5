package org.mucscale.engine.filter.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class FilterCliTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String input, String... args) throws Exception {
        return FilterCli.run(args, new BufferedReader(new StringReader(input)), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void run_operatorLists_printsVerdictsEntriesMaskAndSummary(@TempDir Path dir) throws Exception {
        Path list = dir.resolve("list.txt");
        Files.writeString(list, "zorg*;severity=HIGH\nchat\n");
        Path allow = dir.resolve("allow.txt");
        Files.writeString(allow, "zorgon\n");
        int status = run("hello\nyou z0rgface\nthe zorgon fleet\nlet's chat\n", "--list", list.toString(), "--allow",
                allow.toString(), "--no-builtin", "--action", "reject");
        String o = out.toString(StandardCharsets.UTF_8);
        assertThat(status).isZero();
        assertThat(o).contains("1\tCLEAN\n").contains("2\tREJECT\tzorg (HIGH, en, " + list + ") \"z0rgface\"\tyou z0rgface\n")
                .contains("3\tCLEAN\n").contains("4\tREJECT\tchat (MEDIUM, en, " + list + ") \"chat\"")
                .contains("lines: 4, matched: 2 (50.000%), clean: 2").contains("action REJECT: 2").contains("zorg (HIGH): 1");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("warning: 'chat'").contains("common en word 'chat'")
                .contains("kept as a whole-word match").doesNotContain("refused");
    }

    @Test
    void run_builtinEnglish_masks() throws Exception {
        assertThat(run("what the f.u.c.k\n", "--lang", "en", "--only-flagged")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("1\tMASK\tfuck (").contains("what the *******");
    }

    @Test
    void run_badArguments_exit2WithUsage(@TempDir Path dir) throws Exception {
        assertThat(run("", "--what")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown argument '--what'").contains("usage:");
        assertThat(run("", "--list", dir.resolve("missing.txt").toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("cannot read word list");
        assertThat(run("", "--action", "explode")).isEqualTo(2);
    }
}
