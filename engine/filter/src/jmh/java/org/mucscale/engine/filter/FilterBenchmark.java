package org.mucscale.engine.filter;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Per-message cost of the filter against the stock Openfire contentFilter approach, in one run: one
 * java.util.regex per list entry, and one alternation regex of all entries. Messages are realistic short clean chat
 * lines (about 28 bytes on average); lists are the built-in English list topped up with pseudo-words to 100, 1,000
 * and 10,000 entries. Run (see docs/benchmarks/filter.md):
 *
 * <pre>
 * mvn -B -ntp -q -pl engine/filter -am -DskipTests package
 * T=engine/filter/target
 * java -cp "$T/test-classes:$T/classes:$(cat $T/test-classpath.txt)" org.openjdk.jmh.Main FilterBenchmark -prof gc
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class FilterBenchmark {

    @Param({"100", "1000", "10000"})
    public int entries;

    private ContentFilter filter;
    private Pattern[] perEntry;
    private Pattern alternation;
    private String[] messages;

    /** The message cursor, per benchmark thread. */
    @State(Scope.Thread)
    public static class Cursor {
        int next;
    }

    /** Realistic short clean chat lines averaging about 28 bytes (printed at setup). */
    static String[] chatLines(int count, long seed) {
        List<String> words = ListCompiler.commonWords("en").subList(0, 1500);
        String[] slang = {"gg", "wp", "lol", "brb", "afk", "ty", "np", "ez", "mid", "push", "gj", "omw", "xd", ":)", "?",
                "!!", "2v2", "1st", "rekt", "noob", "nerf", "heal", "lag", "ping"};
        Random r = new Random(seed);
        String[] out = new String[count];
        for (int i = 0; i < count; i++) {
            StringBuilder sb = new StringBuilder();
            int tokens = 1 + r.nextInt(10);
            for (int t = 0; t < tokens; t++) {
                if (t > 0) {
                    sb.append(' ');
                }
                sb.append(r.nextInt(5) == 0 ? slang[r.nextInt(slang.length)]
                        : words.get((int) Math.min(words.size() - 1, Math.abs(r.nextGaussian()) * 300)));
            }
            out[i] = sb.toString();
        }
        return out;
    }

    static List<ListEntry> list(int size) {
        List<ListEntry> real = new ArrayList<>(WordLists.builtin("en"));
        List<ListEntry> out = new ArrayList<>(real.subList(0, Math.min(size, real.size())));
        Random r = new Random(size);
        String letters = "abcdefghijklmnopqrstuvwxyz";
        while (out.size() < size) {
            int len = 5 + r.nextInt(6);
            StringBuilder sb = new StringBuilder("q");
            for (int k = 1; k < len; k++) {
                sb.append(letters.charAt(r.nextInt(26)));
            }
            out.add(new ListEntry(sb.toString(), Severity.MEDIUM, "en", r.nextBoolean() ? MatchMode.WHOLE_WORD : MatchMode.PREFIX,
                    false, false, "bench", out.size()));
        }
        return out;
    }

    @Setup(Level.Trial)
    public void setUp() {
        List<ListEntry> entryList = list(entries);
        filter = ContentFilter.start(FilterConfig.builder().builtinLists(false).entries(entryList).languages("en").build(),
                FilterListener.NONE);
        List<String> clean = new ArrayList<>();
        for (String line : chatLines(4096, 11)) {
            if (filter.inspect("room@muc", line, null).clean()) {
                clean.add(line);
            }
        }
        messages = clean.toArray(new String[0]);
        perEntry = new Pattern[entryList.size()];
        StringBuilder alt = new StringBuilder();
        for (int i = 0; i < entryList.size(); i++) {
            String quoted = Pattern.quote(entryList.get(i).text());
            perEntry[i] = Pattern.compile(quoted, Pattern.CASE_INSENSITIVE);
            alt.append(i == 0 ? "" : "|").append(quoted);
        }
        alternation = Pattern.compile(alt.toString(), Pattern.CASE_INSENSITIVE);
        long bytes = 0;
        for (String m : messages) {
            bytes += m.getBytes(StandardCharsets.UTF_8).length;
        }
        System.out.printf("%n[setup] %d entries kept of %d, %d clean messages, %.1f bytes per message on average%n",
                filter.report().entriesKept(), entries, messages.length, (double) bytes / messages.length);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        filter.close();
    }

    private String nextMessage(Cursor c) {
        String m = messages[c.next];
        c.next = c.next + 1 == messages.length ? 0 : c.next + 1;
        return m;
    }

    /** mucscale: one automaton, full evasion handling, body only. */
    @Benchmark
    public FilterVerdict mucscale(Cursor c) {
        return filter.inspect("room@muc", nextMessage(c), null);
    }

    /** Stock approach: one regex per entry, each searched in turn (no evasion handling at all). */
    @Benchmark
    public boolean regexPerEntry(Cursor c) {
        String m = nextMessage(c);
        for (Pattern p : perEntry) {
            if (p.matcher(m).find()) {
                return true;
            }
        }
        return false;
    }

    /** Stock approach, best case: all entries as one alternation regex (no evasion handling). */
    @Benchmark
    public boolean regexAlternation(Cursor c) {
        return alternation.matcher(nextMessage(c)).find();
    }
}
