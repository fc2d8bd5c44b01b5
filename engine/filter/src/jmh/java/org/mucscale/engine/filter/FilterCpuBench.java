package org.mucscale.engine.filter;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Companion of {@link FilterBenchmark} for oversubscribed machines: the same workloads, timed by this thread's CPU
 * time (ThreadMXBean) instead of wall time, so that other processes competing for the cores inflate the result far
 * less. Prints one table row per approach and list size. Run:
 *
 * <pre>
 * java -cp "$T/test-classes:$T/classes:$(cat $T/test-classpath.txt)" org.mucscale.engine.filter.FilterCpuBench
 * </pre>
 */
public final class FilterCpuBench {

    private FilterCpuBench() {
    }

    public static void main(String[] args) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        com.sun.management.ThreadMXBean alloc = (com.sun.management.ThreadMXBean) mx;
        System.out.println("| entries | approach | ns CPU per message | MB/s per core | bytes allocated per message | speed-up of mucscale |");
        System.out.println("|---|---|---|---|---|---|");
        for (int size : new int[]{100, 1_000, 10_000}) {
            List<ListEntry> entries = FilterBenchmark.list(size);
            ContentFilter filter = ContentFilter.start(FilterConfig.builder().builtinLists(false).entries(entries)
                    .languages("en").build(), FilterListener.NONE);
            String[] all = FilterBenchmark.chatLines(4096, 11);
            String[] msgs = java.util.Arrays.stream(all).filter(m -> filter.inspect("room@muc", m, null).clean())
                    .toArray(String[]::new);
            long bytes = 0;
            for (String m : msgs) {
                bytes += m.getBytes(StandardCharsets.UTF_8).length;
            }
            double avgBytes = (double) bytes / msgs.length;
            Pattern[] perEntry = new Pattern[entries.size()];
            StringBuilder alt = new StringBuilder();
            for (int i = 0; i < entries.size(); i++) {
                String q = Pattern.quote(entries.get(i).text());
                perEntry[i] = Pattern.compile(q, Pattern.CASE_INSENSITIVE);
                alt.append(i == 0 ? "" : "|").append(q);
            }
            Pattern alternation = Pattern.compile(alt.toString(), Pattern.CASE_INSENSITIVE);

            double[] ours = measure(mx, alloc, msgs, 2_000_000, m -> filter.inspect("room@muc", m, null).clean() ? 1 : 0);
            double[] perRegex = measure(mx, alloc, msgs, Math.max(200, 2_000_000 / size), m -> {
                for (Pattern p : perEntry) {
                    if (p.matcher(m).find()) {
                        return 1;
                    }
                }
                return 0;
            });
            double[] altRegex = measure(mx, alloc, msgs, Math.max(200, 200_000 / size), m -> alternation.matcher(m).find() ? 1 : 0);
            row(size, "mucscale (full evasion handling)", ours, avgBytes, ours[0]);
            row(size, "one regex per entry (stock)", perRegex, avgBytes, ours[0]);
            row(size, "one alternation regex", altRegex, avgBytes, ours[0]);
            filter.close();
        }
        compileTime(mx);
    }

    /**
     * Thread CPU time of compiling 10,000 pseudo-word entries plus the built-in English list with the common-word
     * guard on (what ListCompilerTest used to assert as a timed test): five compiles after two warm-up ones.
     */
    private static void compileTime(ThreadMXBean mx) {
        List<ListEntry> entries = ListCompilerTest.syntheticEntries(10_000, 2);
        entries.addAll(WordLists.builtin("en"));
        long[] ms = new long[5];
        for (int round = -2; round < ms.length; round++) {
            long t0 = mx.getCurrentThreadCpuTime();
            CompiledLists lists = ListCompiler.compile(entries);
            long t = (mx.getCurrentThreadCpuTime() - t0) / 1_000_000;
            if (lists.entryCount() < 9_000) {
                throw new AssertionError("compile kept only " + lists.entryCount() + " entries");
            }
            if (round >= 0) {
                ms[round] = t;
            }
        }
        java.util.Arrays.sort(ms);
        System.out.printf(Locale.ROOT, "%ncompile %,d entries (10,000 pseudo-words + built-in en, common-word guard on): "
                + "ms CPU min %d, median %d, max %d (5 runs after 2 warm-up)%n", entries.size(), ms[0], ms[2], ms[4]);
    }

    private static void row(int size, String name, double[] r, double avgBytes, double oursNs) {
        System.out.printf(Locale.ROOT, "| %,d | %s | %,.0f | %,.1f | %.2f | %s |%n", size, name, r[0], avgBytes * 1e3 / r[0], r[1],
                r[0] == oursNs ? "1x" : String.format(Locale.ROOT, "%,.0fx", r[0] / oursNs));
    }

    /** {ns CPU per message, bytes allocated per message}, after a warm-up of the same length. */
    static double[] measure(ThreadMXBean mx, com.sun.management.ThreadMXBean alloc, String[] msgs, int count,
                                    java.util.function.ToIntFunction<String> op) {
        long tid = Thread.currentThread().getId();
        int sink = 0;
        for (int round = 0; round < 2; round++) {
            long cpu0 = mx.getCurrentThreadCpuTime();
            long a0 = alloc.getThreadAllocatedBytes(tid);
            for (int i = 0; i < count; i++) {
                sink += op.applyAsInt(msgs[i % msgs.length]);
            }
            long cpu = mx.getCurrentThreadCpuTime() - cpu0;
            long bytes = alloc.getThreadAllocatedBytes(tid) - a0;
            if (round == 1) {
                if (sink == 42) {
                    System.out.print("");
                }
                return new double[]{(double) cpu / count, (double) bytes / count};
            }
        }
        throw new AssertionError();
    }
}
