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

/** The recall / false-positive harness ({@code mucscale-filter --eval}) over the committed sample and bad input. */
class FilterEvalTest {

    /** The committed sample and its operator list (tests run in engine/filter). */
    private static final Path SAMPLE = Path.of("../../docs/benchmarks/filter-eval-sample.tsv");
    private static final Path LIST = Path.of("../../docs/benchmarks/filter-eval-list.txt");

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) throws Exception {
        return FilterCli.run(args, new BufferedReader(new StringReader("")), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void eval_committedSample_everyClassCaughtNoFalsePositive() throws Exception {
        assertThat(run("--list", LIST.toString(), "--eval", SAMPLE.toString())).isZero();
        String o = out.toString(StandardCharsets.UTF_8);
        for (String cls : new String[]{"asterisk-separated", "lookalike", "common-word", "separator", "self-censored",
                "leet", "confusable", "stretched", "zero-width",
                // issue 40: one class per escape
                "bidi-override", "bidi-unbalanced", "upside-down", "small-capitals", "circled", "squared",
                "parenthesized", "math-alphanumeric", "regional-indicator", "fullwidth", "uts39-confusable"}) {
            assertThat(o).as(o).containsPattern("(?m)^" + cls + "\t\\d+\t\\d+\t100\\.0%$");
        }
        assertThat(o).as(o).contains("false positives: 0 of ").doesNotContain("missed ");
    }

    @Test
    void eval_countsRecallPerClassAndListsMissesAndFalsePositives(@TempDir Path dir) throws Exception {
        Path tsv = dir.resolve("labelled.tsv");
        Files.writeString(tsv, "# comment\nleet\tsh1t\nleet\thello\nclean\tnice day\nclean\tshit happens\n\n");
        assertThat(run("--eval", tsv.toString())).isZero();
        String o = out.toString(StandardCharsets.UTF_8);
        assertThat(o).contains("leet\t2\t1\t50.0%").contains("all evasion classes\t2\t1\t50.0%")
                .contains("false positives: 1 of 2 clean lines (50.000%)")
                .contains("missed leet\t3\thello").contains("false positive\t5\tshit happens\tshit");
    }

    @Test
    void eval_lineWithoutLabel_exit2NamingTheLine(@TempDir Path dir) throws Exception {
        Path tsv = dir.resolve("bad.tsv");
        Files.writeString(tsv, "clean\tok\njust text without a tab\n");
        assertThat(run("--eval", tsv.toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains(tsv + ":2").contains("label<TAB>text");
        assertThat(run("--eval", dir.resolve("missing.tsv").toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("cannot read");
    }
}
