package org.mucscale.engine.filter.cli;

import org.mucscale.engine.filter.Action;
import org.mucscale.engine.filter.CompileReport;
import org.mucscale.engine.filter.ContentFilter;
import org.mucscale.engine.filter.FilterConfig;
import org.mucscale.engine.filter.FilterListener;
import org.mucscale.engine.filter.FilterMatch;
import org.mucscale.engine.filter.FilterVerdict;
import org.mucscale.engine.filter.ListEntry;
import org.mucscale.engine.filter.Severity;
import org.mucscale.engine.filter.WordLists;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code bin/mucscale-filter}: tests word lists against chat logs before going live. Reads messages one per line
 * from standard input and prints, per line, the verdict, the matched entries with severity and the masked text,
 * then a summary. Exit status: 0 done, 2 bad arguments or lists.
 */
public final class FilterCli {

    private static final String USAGE = """
            usage: mucscale-filter [--list FILE]... [--allow FILE]... [--lang en[,de...]] [--no-builtin]
                                   [--action MASK|REJECT|DROP|FLAG] [--min-severity LOW|MEDIUM|HIGH] [--force]
                                   [--only-flagged] < messages.txt
                  mucscale-filter [same list options] --eval labelled.tsv
              --list FILE        a word list (one entry per line; word, word*, *word, *word*; ;severity=HIGH ...)
              --allow FILE       an allow-list: its entries beat matches they contain
              --lang CODES       languages of the built-in lists and of --list files (default en; built-in: %s)
              --no-builtin       use only the given lists (the built-in allow-list is still used)
              --action A         the action shown for matching lines (default MASK)
              --min-severity S   ignore entries below S (default LOW)
              --force            keep every entry's match mode even if it matches common words (by default such an
                                 entry becomes a whole-word match, with a warning, and is refused only when it
                                 is a common word of another --lang language)
              --only-flagged     print only lines that matched
              --eval FILE        recall and false positives over a labelled TSV instead: one 'label<TAB>text' per
                                 line, label 'clean' or the evasion class; prints recall per class and the
                                 false positives (see docs/benchmarks/filter.md)
            Output: one line per message: <line>\\t<verdict>\\t<entries>\\t<masked text>, then a summary.
            """;

    private FilterCli() {
    }

    public static void main(String[] args) throws IOException {
        System.exit(run(args, new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)),
                new PrintStream(System.out, false, StandardCharsets.UTF_8), System.err));
    }

    /** Runs the CLI; returns the exit status. */
    public static int run(String[] args, BufferedReader in, PrintStream out, PrintStream err) throws IOException {
        List<Path> lists = new ArrayList<>();
        List<Path> allows = new ArrayList<>();
        Set<String> languages = new LinkedHashSet<>();
        boolean builtin = true;
        boolean force = false;
        boolean onlyFlagged = false;
        Path eval = null;
        Action action = Action.MASK;
        Severity minSeverity = Severity.LOW;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--list" -> lists.add(Path.of(value(args, ++i, a)));
                    case "--allow" -> allows.add(Path.of(value(args, ++i, a)));
                    case "--lang" -> {
                        for (String l : value(args, ++i, a).split(",")) {
                            if (!l.isBlank()) {
                                languages.add(l.strip().toLowerCase(Locale.ROOT));
                            }
                        }
                    }
                    case "--no-builtin" -> builtin = false;
                    case "--force" -> force = true;
                    case "--only-flagged" -> onlyFlagged = true;
                    case "--eval" -> eval = Path.of(value(args, ++i, a));
                    case "--action" -> action = Action.valueOf(value(args, ++i, a).toUpperCase(Locale.ROOT));
                    case "--min-severity" -> minSeverity = Severity.valueOf(value(args, ++i, a).toUpperCase(Locale.ROOT));
                    case "-h", "--help" -> {
                        out.printf(USAGE, WordLists.BUILTIN_LANGUAGES);
                        out.flush();
                        return 0;
                    }
                    default -> throw new IllegalArgumentException("unknown argument '" + a + "'");
                }
            }
            if (languages.isEmpty()) {
                languages.add("en");
            }
            if (!builtin && lists.isEmpty()) {
                throw new IllegalArgumentException("--no-builtin needs at least one --list");
            }
        } catch (IllegalArgumentException e) {
            err.println("mucscale-filter: " + e.getMessage());
            err.printf(USAGE, WordLists.BUILTIN_LANGUAGES);
            return 2;
        }

        ContentFilter filter;
        try {
            String listLanguage = languages.iterator().next();
            List<ListEntry> entries = new ArrayList<>();
            for (Path p : lists) {
                WordLists.OperatorList list = WordLists.readList(p, listLanguage, false);
                entries.addAll(list.entries());
                err.println("list: " + list.describe());
            }
            for (Path p : allows) {
                WordLists.OperatorList list = WordLists.readList(p, "*", true);
                entries.addAll(list.entries());
                err.println("allow-list: " + list.describe());
            }
            if (!builtin) {
                entries.addAll(WordLists.builtinAllow());
            }
            FilterConfig config = FilterConfig.builder().builtinLists(builtin).languages(languages.toArray(new String[0]))
                    .defaultAction(action).minSeverity(minSeverity).guardCommonWords(!force).entries(entries).build();
            filter = ContentFilter.start(config, FilterListener.NONE);
        } catch (RuntimeException e) {
            err.println("mucscale-filter: " + e.getMessage());
            return 2;
        }
        CompileReport report = filter.report();
        for (String r : report.refused()) {
            err.println("refused: " + r);
        }
        for (String w : report.warnings()) {
            err.println("warning: " + w);
        }
        err.printf("compiled %d entries (%d given) in %.1f ms%n", report.entriesKept(), report.entriesIn(),
                report.compileNs() / 1e6);
        if (eval != null) {
            try (BufferedReader tsv = java.nio.file.Files.newBufferedReader(eval, StandardCharsets.UTF_8)) {
                FilterEval.print(FilterEval.evaluate(filter, tsv, eval.toString()), out);
                return 0;
            } catch (IOException | IllegalArgumentException e) {
                err.println("mucscale-filter: " + (e instanceof IOException ? "cannot read " + eval + ": " : "")
                        + e.getMessage());
                return 2;
            } finally {
                filter.close();
            }
        }

        Map<Action, Integer> actions = new EnumMap<>(Action.class);
        Map<String, Integer> byEntry = new LinkedHashMap<>();
        long lines = 0;
        long flagged = 0;
        long chars = 0;
        long scanNs = 0;
        String line;
        StringBuilder sb = new StringBuilder();
        while ((line = in.readLine()) != null) {
            lines++;
            chars += line.length();
            long t0 = System.nanoTime();
            FilterVerdict v = filter.inspect(null, line, null);
            scanNs += System.nanoTime() - t0;
            if (v.clean()) {
                if (!onlyFlagged) {
                    out.append(Long.toString(lines)).append("\tCLEAN\n");
                }
                continue;
            }
            flagged++;
            actions.merge(v.action(), 1, Integer::sum);
            sb.setLength(0);
            for (FilterMatch m : v.matches()) {
                if (sb.length() > 0) {
                    sb.append(", ");
                }
                sb.append(m.entry()).append(" (").append(m.severity()).append(", ").append(m.language()).append(", ")
                        .append(m.list()).append(") \"").append(line, m.start(), m.end()).append('"');
                byEntry.merge(m.entry() + " (" + m.severity() + ")", 1, Integer::sum);
            }
            out.append(Long.toString(lines)).append('\t').append(v.action().name()).append('\t').append(sb).append('\t')
                    .append(v.maskedBody() != null ? v.maskedBody() : line).append('\n');
        }
        out.append("--- summary\n");
        out.append(String.format(Locale.ROOT, "lines: %d, matched: %d (%.3f%%), clean: %d%n", lines, flagged,
                lines == 0 ? 0.0 : 100.0 * flagged / lines, lines - flagged));
        actions.forEach((a, n) -> out.append("action ").append(a.name()).append(": ").append(Integer.toString(n)).append('\n'));
        byEntry.entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue()).limit(20)
                .forEach(e -> out.append("  ").append(e.getKey()).append(": ").append(Integer.toString(e.getValue())).append('\n'));
        out.append(String.format(Locale.ROOT, "scanned %d chars in %.1f ms (%.1f MB/s, cold JVM)%n", chars, scanNs / 1e6,
                scanNs == 0 ? 0.0 : chars * 1e3 / scanNs));
        out.flush();
        filter.close();
        return 0;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }
}
