package org.mucscale.engine.filter.cli;

import org.mucscale.engine.filter.ContentFilter;
import org.mucscale.engine.filter.FilterVerdict;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The recall / false-positive harness behind {@code mucscale-filter --eval FILE}: reads a labelled TSV, one message
 * per line as {@code label<TAB>text}, where the label {@code clean} marks a line that must not be flagged and any
 * other label names the evasion class of a line that must be (blank lines and lines starting with '#' are skipped).
 * Prints recall per class, false positives on the clean lines, and the lines that went wrong.
 */
final class FilterEval {

    static final String CLEAN = "clean";
    /** Misses and false positives listed per class, at most. */
    static final int MAX_LISTED = 20;

    /** Counts of one label. */
    static final class Tally {
        int lines;
        int flagged;
        final List<String> wrong = new ArrayList<>();
    }

    private FilterEval() {
    }

    /**
     * Inspects every line; returns the tallies per label in order of first appearance.
     *
     * @throws IllegalArgumentException naming the line when it has no tab, an empty label or no text
     */
    static Map<String, Tally> evaluate(ContentFilter filter, BufferedReader in, String source) throws IOException {
        Map<String, Tally> tallies = new LinkedHashMap<>();
        String line;
        int number = 0;
        while ((line = in.readLine()) != null) {
            number++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int tab = line.indexOf('\t');
            if (tab <= 0 || tab == line.length() - 1) {
                throw new IllegalArgumentException(source + ":" + number + ": expected 'label<TAB>text' (label 'clean' "
                        + "or an evasion class), got '" + (line.length() > 60 ? line.substring(0, 60) + "..." : line) + "'");
            }
            String label = line.substring(0, tab).strip().toLowerCase(Locale.ROOT);
            String text = line.substring(tab + 1);
            FilterVerdict v = filter.inspect(null, text, null);
            Tally t = tallies.computeIfAbsent(label, l -> new Tally());
            t.lines++;
            if (!v.clean()) {
                t.flagged++;
            }
            boolean wrong = label.equals(CLEAN) != v.clean();
            if (wrong && t.wrong.size() < MAX_LISTED) {
                t.wrong.add(number + "\t" + text + (v.clean() ? "" : "\t" + v.matches().get(0).entry()));
            }
        }
        return tallies;
    }

    /** Prints the tallies: a table of recall per class, then false positives, then the lines that went wrong. */
    static void print(Map<String, Tally> tallies, PrintStream out) {
        out.println("class\tlines\tcaught\trecall");
        int positives = 0;
        int caught = 0;
        for (Map.Entry<String, Tally> e : tallies.entrySet()) {
            if (e.getKey().equals(CLEAN)) {
                continue;
            }
            Tally t = e.getValue();
            positives += t.lines;
            caught += t.flagged;
            out.printf(Locale.ROOT, "%s\t%d\t%d\t%.1f%%%n", e.getKey(), t.lines, t.flagged, 100.0 * t.flagged / t.lines);
        }
        out.printf(Locale.ROOT, "all evasion classes\t%d\t%d\t%s%n", positives, caught,
                positives == 0 ? "-" : String.format(Locale.ROOT, "%.1f%%", 100.0 * caught / positives));
        Tally clean = tallies.get(CLEAN);
        if (clean == null) {
            out.println("false positives: no 'clean' lines given");
        } else {
            out.printf(Locale.ROOT, "false positives: %d of %d clean lines (%.3f%%)%n", clean.flagged, clean.lines,
                    100.0 * clean.flagged / clean.lines);
        }
        for (Map.Entry<String, Tally> e : tallies.entrySet()) {
            boolean isClean = e.getKey().equals(CLEAN);
            for (String w : e.getValue().wrong) {
                out.println((isClean ? "false positive\t" : "missed " + e.getKey() + "\t") + w);
            }
        }
        out.flush();
    }
}
