package org.mucscale.engine.filter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lists swap while threads scan: every verdict must come from exactly one complete list version. Version A blocks
 * 200 words "alphaNNN", version B 200 words "betaNNN"; every message holds one word of each, so a verdict naming
 * both kinds, or only part of a version's words, would be a torn list.
 */
class SwapStressTest {

    private static List<ListEntry> version(String prefix) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            lines.add(prefix + "qz" + (char) ('a' + i % 26) + (char) ('a' + i / 26));
        }
        return Fixtures.entries(lines.toArray(new String[0]));
    }

    @Test
    @Timeout(60)
    void inspect_whileListsSwap_neverSeesPartialList() throws Exception {
        List<ListEntry> a = version("alpha");
        List<ListEntry> b = version("beta");
        // No common-word guard: compiles stay fast, so many swaps happen even on a loaded machine.
        FilterConfig configA = FilterConfig.builder().builtinLists(false).guardCommonWords(false).entries(a).build();
        FilterConfig configB = FilterConfig.builder().builtinLists(false).guardCommonWords(false).entries(b).build();
        try (ContentFilter filter = ContentFilter.start(configA, FilterListener.NONE)) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<String> failure = new AtomicReference<>();
            AtomicLong scans = new AtomicLong();
            Set<String> seenVersions = java.util.concurrent.ConcurrentHashMap.newKeySet();
            List<Thread> scanners = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                int seed = t;
                Thread th = new Thread(() -> {
                    int i = seed;
                    while (!stop.get() && failure.get() == null) {
                        int k = i++ % 200;
                        String msg = "hi " + a.get(k).text() + " and " + b.get((k * 7) % 200).text() + " ok";
                        FilterVerdict v = filter.inspect("room@muc", msg, null);
                        Set<String> kinds = new HashSet<>();
                        for (FilterMatch m : v.matches()) {
                            kinds.add(m.entry().startsWith("alpha") ? "A" : "B");
                        }
                        if (v.matches().size() != 1 || kinds.size() != 1) {
                            failure.set("torn verdict for '" + msg + "': " + v.matches());
                        }
                        seenVersions.addAll(kinds);
                        scans.incrementAndGet();
                    }
                }, "scanner-" + t);
                th.start();
                scanners.add(th);
            }
            long deadline = System.nanoTime() + 5_000_000_000L;
            int swaps = 0;
            while (System.nanoTime() < deadline && swaps < 200 && failure.get() == null) {
                filter.reconfigure(swaps % 2 == 0 ? configB : configA).get();
                swaps++;
            }
            stop.set(true);
            for (Thread th : scanners) {
                th.join(10_000);
            }
            assertThat(failure.get()).isNull();
            assertThat(swaps).isGreaterThanOrEqualTo(4);
            assertThat(scans.get()).isGreaterThan(1_000);
            assertThat(seenVersions).containsExactlyInAnyOrder("A", "B");
        }
    }
}
