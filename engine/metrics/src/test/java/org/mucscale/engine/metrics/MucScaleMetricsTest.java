package org.mucscale.engine.metrics;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.port.Clock;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class MucScaleMetricsTest {

    @Test
    void forcedGc_showsUpAsPauseInDashboardJson() throws Exception {
        try (MucScaleMetrics metrics = new MucScaleMetrics(MetricsConfig.defaults(), Clock.SYSTEM)) {
            metrics.start();
            long before = metrics.gcPauses.getCount();

            System.gc();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (metrics.gcPauses.getCount() == before && System.nanoTime() < deadline) {
                Thread.sleep(20); // notifications arrive on the JVM's own thread, shortly after the collection
            }
            metrics.dashboard().sampleNow();
            String json = metrics.dashboard().json(900);

            assertThat(metrics.gcPauses.getCount()).isGreaterThan(before);
            assertThat(json).contains("\"cause\":\"System.gc()\"");
            assertThat(JsonProbe.number(json, "\"summary\"", "gcPauses")).isGreaterThan(0);
            assertThat(json).contains("\"heapPools\":[{\"pool\":").doesNotContain("Metaspace").doesNotContain("CodeHeap");
            assertThat(metrics.registry().getHistograms().get("mucscale.jvm.gc.pause.ns").getCount()).isGreaterThan(0);
        }
    }

    @Test
    void slowConsumer_showsUpInLatencyPercentiles() throws Exception {
        // Not started: the sampler thread would otherwise drain the histograms between this test's own samples.
        try (MucScaleMetrics metrics = new MucScaleMetrics(MetricsConfig.defaults(), Clock.SYSTEM)) {
            runConsumer(metrics, 0);
            metrics.dashboard().sampleNow();
            double fastP99 = JsonProbe.lastInColumn(metrics.dashboard().json(900), "latencyP99Ms");

            runConsumer(metrics, 25);
            metrics.dashboard().sampleNow();
            String json = metrics.dashboard().json(900);
            double slowP99 = JsonProbe.lastInColumn(json, "latencyP99Ms");

            assertThat(slowP99).isGreaterThanOrEqualTo(25.0);
            // Relative, not absolute: on a loaded machine the fast path can take milliseconds too, but the slow
            // consumer's queue builds up to about 40 x 25 ms.
            assertThat(fastP99).isLessThan(slowP99 / 4);
            assertThat(JsonProbe.number(json, "\"summary\"", "latencyMaxMs")).isGreaterThanOrEqualTo(25.0);
        }
    }

    /**
     * A producer hands 40 messages stamped with their arrival time to a consumer thread over a bounded queue; the
     * consumer takes {@code delayMs} per message, then records arrival to "delivery written".
     */
    private static void runConsumer(MucScaleMetrics metrics, long delayMs) throws Exception {
        BlockingQueue<Long> queue = new ArrayBlockingQueue<>(64);
        Thread consumer = new Thread(() -> {
            try {
                for (int i = 0; i < 40; i++) {
                    long arrivalNs = queue.take();
                    if (delayMs > 0) {
                        Thread.sleep(delayMs);
                    }
                    metrics.recordMessage("room@conference.example", 3, System.nanoTime() - arrivalNs);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "test-consumer");
        consumer.start();
        for (int i = 0; i < 40; i++) {
            queue.put(System.nanoTime());
            Thread.sleep(2);
        }
        consumer.join(20_000);
    }

    @Test
    void recordDeliveryLatency_allocatesNothing() {
        try (MucScaleMetrics metrics = new MucScaleMetrics(MetricsConfig.defaults(), Clock.SYSTEM)) {
            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long id = Thread.currentThread().getId();
            for (int i = 0; i < 20_000; i++) { // warm up every call measured below: classes loaded, lazy parts built
                metrics.recordDeliveryLatencyNs(1_000 + i);
                metrics.recordMessage("lobby@conference.example", 3, 1_000 + i);
                metrics.recordStoreCommitLatencyNs(5_000 + i);
                metrics.storeCommitted(10, 100_000);
            }
            long before = threads.getThreadAllocatedBytes(id);
            for (int i = 0; i < 200_000; i++) {
                metrics.recordDeliveryLatencyNs(1_000 + i);
                metrics.recordMessage("lobby@conference.example", 3, 1_000 + i);
                metrics.recordStoreCommitLatencyNs(5_000 + i);
                metrics.storeCommitted(10, 100_000);
            }
            long allocated = threads.getThreadAllocatedBytes(id) - before;
            // One allocation per round, even of 16 bytes, would be 3.2 MB here. The bound leaves room for what the JVM
            // itself charges to this thread now and then (a deoptimization re-materializing scalar-replaced objects
            // measured 1,072 B once), which is not per-call garbage.
            assertThat(allocated).isLessThan(16 * 1_024);
        }
    }

    @Test
    void close_leavesNoListenerThreadOrMBean() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        MucScaleMetrics metrics = new MucScaleMetrics(MetricsConfig.defaults(), Clock.SYSTEM);
        metrics.start();
        metrics.recordDeliveryLatencyNs(1_000_000);
        assertThat(metrics.gcMonitor().listenerCount()).isGreaterThan(0);
        assertThat(server.queryNames(new ObjectName("org.mucscale:*"), null)).isNotEmpty();
        assertThat(samplerThreadAlive()).isTrue();

        metrics.close();

        assertThat(metrics.gcMonitor().listenerCount()).isZero();
        assertThat(server.queryNames(new ObjectName("org.mucscale:*"), null)).isEmpty();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (samplerThreadAlive() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(samplerThreadAlive()).isFalse();
        long pauses = metrics.gcPauses.getCount();
        System.gc();
        Thread.sleep(200);
        assertThat(metrics.gcPauses.getCount()).isEqualTo(pauses);
    }

    private static boolean samplerThreadAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("mucscale-metrics-sampler") && t.isAlive());
    }

    @Test
    void filterAction_manyDistinctLists_staysBounded() {
        try (MucScaleMetrics metrics = new MucScaleMetrics(MetricsConfig.defaults(), Clock.SYSTEM)) {
            for (int i = 0; i < 200; i++) {
                metrics.filterAction("room" + i, "list" + i, "mask");
            }
            metrics.filterAction("r", "list.with dots", "re ject");
            assertThat(metrics.filterActionsByKey.size()).isLessThanOrEqualTo(MucScaleMetrics.MAX_FILTER_ACTION_PAIRS + 2);
            assertThat(metrics.registry().getCounters().get("mucscale.filter.acted").getCount()).isEqualTo(201);
            assertThat(metrics.registry().getCounters()).containsKey("mucscale.filter.actions.other.mask");
        }
    }

    @Test
    void gaugeQueueDepth_withDotInName_isRefused() {
        try (MucScaleMetrics metrics = new MucScaleMetrics(MetricsConfig.defaults(), Clock.SYSTEM)) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> metrics.gaugeQueueDepth("store.queue", () -> 1))
                    .hasMessageContaining("queue names are letters, digits, '-' and '_', was 'store.queue'");
        }
    }
}
