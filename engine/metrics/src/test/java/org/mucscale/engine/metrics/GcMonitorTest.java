package org.mucscale.engine.metrics;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GcMonitorTest {

    @Test
    void isPause_stopTheWorldCollectors_arePauses() {
        assertThat(GcMonitor.isPause("G1 Young Generation", "end of minor GC")).isTrue();
        assertThat(GcMonitor.isPause("G1 Old Generation", "end of major GC")).isTrue();
        assertThat(GcMonitor.isPause("G1 Concurrent GC", "end of concurrent GC pause")).isTrue();
        assertThat(GcMonitor.isPause("PS Scavenge", "end of minor GC")).isTrue();
        assertThat(GcMonitor.isPause("MarkSweepCompact", "end of major GC")).isTrue();
        assertThat(GcMonitor.isPause("ZGC Pauses", "end of GC pause")).isTrue();
        assertThat(GcMonitor.isPause("Shenandoah Pauses", "end of GC pause")).isTrue();
    }

    @Test
    void isPause_concurrentCycles_areNotPauses() {
        assertThat(GcMonitor.isPause("ZGC Cycles", "end of GC cycle")).isFalse();
        assertThat(GcMonitor.isPause("Shenandoah Cycles", "end of GC cycle")).isFalse();
        assertThat(GcMonitor.isPause("ZGC Major Cycles", "end of GC major cycle")).isFalse();
    }

    @Test
    void forcedGc_isReportedWithCollectorCauseAndHeap_andCloseStopsReporting() throws Exception {
        CopyOnWriteArrayList<GcMonitor.GcEvent> events = new CopyOnWriteArrayList<>();
        GcMonitor monitor = new GcMonitor(events::add, 16);
        monitor.start();
        try {
            System.gc();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (events.stream().noneMatch(e -> "System.gc()".equals(e.cause())) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            GcMonitor.GcEvent gc = events.stream().filter(e -> "System.gc()".equals(e.cause())).findFirst().orElseThrow();
            assertThat(gc.pause()).isTrue();
            assertThat(gc.collector()).isNotBlank();
            assertThat(gc.durationMs()).isGreaterThanOrEqualTo(0);
            assertThat(gc.wallTimeMs()).isCloseTo(System.currentTimeMillis(), org.assertj.core.data.Offset.offset(60_000L));
            assertThat(monitor.recentPauses()).contains(gc);
            assertThat(monitor.lastHeapByPool()).isNotEmpty();
        } finally {
            monitor.close();
        }
        assertThat(monitor.listenerCount()).isZero();
        int seen = events.size();
        System.gc();
        Thread.sleep(300);
        assertThat(events).hasSize(seen);
    }

    @Test
    void constructor_withEmptyRing_isRefused() {
        assertThatThrownBy(() -> new GcMonitor(e -> { }, 0)).hasMessageContaining("ringCapacity must be at least 1, was 0");
    }
}
