package org.mucscale.engine.filter;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What room terms (issue 16) cost per clean message, by thread CPU time like {@link FilterCpuBench}: the same 1,000
 * entries and chat lines in a room of a filter (a) without any room rule, (b) with 200 rules that have terms, the room
 * itself having none, (b2) as (b) plus a glob rule with terms that does not match the room, (c) in a room with its own
 * 5 terms. Rounds alternate a, b, b2, c so that load from other processes
 * hits all three alike; prints the median of 7 rounds and the ratios to (a). Run as FilterCpuBench.
 */
public final class RoomTermsCpuBench {

    private RoomTermsCpuBench() {
    }

    public static void main(String[] args) throws Exception {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        com.sun.management.ThreadMXBean alloc = (com.sun.management.ThreadMXBean) mx;
        List<ListEntry> entries = FilterBenchmark.list(1_000);
        FilterConfig config = FilterConfig.builder().builtinLists(false).entries(entries).languages("en").build();
        ContentFilter plain = ContentFilter.start(config, FilterListener.NONE);
        ContentFilter withTerms = ContentFilter.start(config, FilterListener.NONE);
        List<RoomRule> rules = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            rules.add(new RoomRule("r" + i + "@muc", true, null, Set.of(), null, null,
                    List.of("zorblax" + (i % 7), "plonk" + (char) ('a' + i % 26) + "*")));
        }
        withTerms.setRoomRules(rules).get();
        ContentFilter globTerms = ContentFilter.start(config, FilterListener.NONE);
        List<RoomRule> withGlob = new ArrayList<>(rules);
        withGlob.add(new RoomRule("*@games.example.org", true, null, Set.of(), null, null, List.of("frobnitz")));
        globTerms.setRoomRules(withGlob).get();
        withTerms.addRoomTerms("termed@muc", List.of("wibblex", "quuxo*", "*glorp", "blarg", "snorkel")).get();
        String[] msgs = Arrays.stream(FilterBenchmark.chatLines(4096, 11))
                .filter(m -> plain.inspect("room@muc", m, null).clean() && withTerms.inspect("termed@muc", m, null).clean())
                .toArray(String[]::new);
        int n = 1_000_000;
        double[][] a = new double[7][];
        double[][] b = new double[7][];
        double[][] c = new double[7][];
        double[][] b2 = new double[7][];
        for (int round = 0; round < 7; round++) {
            a[round] = FilterCpuBench.measure(mx, alloc, msgs, n, m -> plain.inspect("room@muc", m, null).clean() ? 1 : 0);
            b[round] = FilterCpuBench.measure(mx, alloc, msgs, n, m -> withTerms.inspect("room@muc", m, null).clean() ? 1 : 0);
            b2[round] = FilterCpuBench.measure(mx, alloc, msgs, n, m -> globTerms.inspect("room@muc", m, null).clean() ? 1 : 0);
            c[round] = FilterCpuBench.measure(mx, alloc, msgs, n, m -> withTerms.inspect("termed@muc", m, null).clean() ? 1 : 0);
        }
        double am = median(a, 0);
        System.out.println("| case | ns CPU per clean message (median of 7) | bytes per message | ratio to (a) |");
        System.out.println("|---|---|---|---|");
        row("(a) no room rules", a, am);
        row("(b) 200 exact rules with terms, this room none", b, am);
        row("(b2) as (b) + a glob rule with terms (no match)", b2, am);
        row("(c) this room has 5 terms", c, am);
        plain.close();
        withTerms.close();
        globTerms.close();
    }

    private static void row(String name, double[][] r, double base) {
        double m = median(r, 0);
        System.out.printf(Locale.ROOT, "| %s | %,.0f | %.2f | %.2f |%n", name, m, median(r, 1), m / base);
    }

    private static double median(double[][] r, int k) {
        double[] v = new double[r.length];
        for (int i = 0; i < r.length; i++) {
            v[i] = r[i][k];
        }
        Arrays.sort(v);
        return v[v.length / 2];
    }
}
