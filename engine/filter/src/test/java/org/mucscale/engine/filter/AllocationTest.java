package org.mucscale.engine.filter;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A clean message allocates nothing (measured with the JVM's per-thread allocation counter). */
class AllocationTest {

    @Test
    void inspect_cleanMessages_allocatesNothing() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        List<String> lines = CleanCorpus.generate(2_000, 7);
        try (ContentFilter f = ContentFilter.start(FilterConfig.builder().languages("en").build(), FilterListener.NONE)) {
            List<String> clean = lines.stream().filter(l -> f.inspect("room@muc", l, null).clean()).toList();
            String[] msgs = clean.toArray(new String[0]);
            int sink = 0;
            for (int warm = 0; warm < 30; warm++) {
                for (String m : msgs) {
                    sink += f.inspect("room@muc", m, "subject line").clean() ? 1 : 0;
                }
            }
            long tid = Thread.currentThread().getId();
            long before = mx.getThreadAllocatedBytes(tid);
            for (int round = 0; round < 10; round++) {
                for (String m : msgs) {
                    sink += f.inspect("room@muc", m, "subject line").clean() ? 1 : 0;
                }
            }
            long allocated = mx.getThreadAllocatedBytes(tid) - before;
            assertThat(sink).isPositive();
            // The measurement itself may allocate a little; 20,000 messages must not.
            assertThat(allocated).as("bytes allocated for %d clean messages", msgs.length * 10L).isLessThan(4_096);
        }
    }
}
