package org.mucscale.engine.metrics;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.port.Clock;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

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
            assertThat(metrics.filterActions.byKey.size()).isLessThanOrEqualTo(FilterActionCounters.MAX_FILTER_ACTION_PAIRS + 2);
            assertThat(metrics.registry().getCounters().get("mucscale.filter.acted").getCount()).isEqualTo(201);
            assertThat(metrics.registry().getCounters()).containsKey("mucscale.filter.actions.other.mask");
        }
    }

    @Test
    void dashboardJson_filterLists_showHowEachListWasRead() {
        try (MucScaleMetrics metrics = new MucScaleMetrics(MetricsConfig.defaults(), Clock.SYSTEM)) {
            assertThat(metrics.dashboard().json(900)).contains("\"filterLists\":[]");
            metrics.filterListsCompiled(java.util.List.of("ops.txt: 2 entries, content-filter comma format, \"x\""));
            assertThat(metrics.dashboard().json(900)).contains(
                    "\"filterLists\":[\"ops.txt: 2 entries, content-filter comma format, \\\"x\\\"\"]");
        }
    }

    @Test
    void dashboardJson_notClustered_saysDisabledAndLeavesClusterSeriesEmpty() {
        ManualClock clock = new ManualClock();
        try (MucScaleMetrics metrics = new MucScaleMetrics(MetricsConfig.defaults(), clock)) {
            metrics.dashboard().sampleNow();
            clock.advanceMs(5_000);
            metrics.clusterRelaySent(3, 900); // recorded, but no view: a single server shows no cluster
            metrics.dashboard().sampleNow();

            String json = metrics.dashboard().json(900);

            assertThat(metrics.clusterView()).isNull();
            assertThat(json).contains("\"cluster\":{\"enabled\":false}").endsWith("\"cluster\":{\"enabled\":false}}");
            assertThat(JsonProbe.lastInColumn(json, "clusterRelaysSentPerSec")).isNaN();
            assertThat(JsonProbe.lastInColumn(json, "clusterRelayLatencyP99Ms")).isNaN();
        }
    }

    @Test
    void dashboardJson_slowConsumers_showDropsAndRemovalsAsRates() throws Exception {
        ManualClock clock = new ManualClock();
        try (MucScaleMetrics metrics = new MucScaleMetrics(MetricsConfig.defaults(), clock)) {
            metrics.dashboard().sampleNow();
            clock.advanceMs(5_000);
            metrics.outboundDropped(10);
            metrics.outboundDropped(5);
            metrics.slowRecipientRemoved();
            metrics.dashboard().sampleNow();

            String json = metrics.dashboard().json(900);

            assertThat(JsonProbe.lastInColumn(json, "outboundDroppedPerSec")).isEqualTo(3.0);
            assertThat(JsonProbe.lastInColumn(json, "slowRecipientsRemovedPerSec")).isEqualTo(0.2);
            java.io.StringWriter prometheus = new java.io.StringWriter();
            metrics.writePrometheus(prometheus);
            assertThat(prometheus.toString()).contains("mucscale_delivery_dropped").contains("15.0")
                    .contains("mucscale_delivery_slow_recipients_removed");
        }
    }

    @Test
    void dashboardJson_clusteredWithVersions_showsEachNodesBuild() {
        try (MucScaleMetrics metrics = new MucScaleMetrics(MetricsConfig.defaults(), new ManualClock())) {
            metrics.clusterView(() -> new MucScaleMetrics.ClusterView("node-b", Map.of("node-a", 1, "node-b", 2), 0,
                    -1, Map.of("node-a", "1.1.0 (wire version 2)", "node-b", "1.0.0 (wire version 1)")));
            String json = metrics.dashboard().json(900);
            assertThat(json.substring(json.indexOf("\"cluster\":"))).startsWith("\"cluster\":{\"enabled\":true,"
                    + "\"localNode\":\"node-b\",\"nodes\":["
                    + "{\"node\":\"node-a\",\"rooms\":1,\"local\":false,\"version\":\"1.1.0 (wire version 2)\"},"
                    + "{\"node\":\"node-b\",\"rooms\":2,\"local\":true,\"version\":\"1.0.0 (wire version 1)\"}],");
        }
    }

    @Test
    void dashboardJson_clustered_showsViewRatesLatenciesAndTotals() {
        ManualClock clock = new ManualClock();
        try (MucScaleMetrics metrics = new MucScaleMetrics(MetricsConfig.defaults(), clock)) {
            Map<String, Integer> rooms = new HashMap<>(); // unordered on purpose: the JSON lists nodes by name
            rooms.put("node-c", 4);
            rooms.put("node-a", 7);
            rooms.put("node-b", 5);
            metrics.clusterView(() -> new MucScaleMetrics.ClusterView("node-b", rooms, 12, 340));
            metrics.dashboard().sampleNow();
            clock.advanceMs(5_000);
            for (int i = 0; i < 10; i++) {
                metrics.clusterRelaySent(4, 1_000);
            }
            for (int ms = 1; ms <= 5; ms++) {
                metrics.clusterRelayReceived(ms * 1_000_000L);
            }
            for (int i = 0; i < 3; i++) {
                metrics.clusterForwarded();
            }
            for (int i = 0; i < 20; i++) {
                metrics.clusterReplicated(i < 19 ? 200_000 : 8_000_000, i >= 18);
            }
            metrics.clusterHandedOff();
            metrics.clusterLinkGap();
            metrics.clusterStateReadFailed();
            metrics.clusterStateReadFailed();
            metrics.clusterStateReadGivenUp(3);
            metrics.dashboard().sampleNow();

            String json = metrics.dashboard().json(900);
            String cluster = json.substring(json.indexOf("\"cluster\":"));

            assertThat(cluster).startsWith("\"cluster\":{\"enabled\":true,\"localNode\":\"node-b\",\"nodes\":["
                    + "{\"node\":\"node-a\",\"rooms\":7,\"local\":false},"
                    + "{\"node\":\"node-b\",\"rooms\":5,\"local\":true},"
                    + "{\"node\":\"node-c\",\"rooms\":4,\"local\":false}],");
            // Rates over the 5 s sample interval.
            assertThat(JsonProbe.number(cluster, null, "relaysSentPerSec")).isEqualTo(2.0);
            assertThat(JsonProbe.number(cluster, null, "relayBytesPerSec")).isEqualTo(2_000.0);
            assertThat(JsonProbe.number(cluster, null, "relayDeliveriesPerSec")).isEqualTo(8.0);
            assertThat(JsonProbe.number(cluster, null, "relaysReceivedPerSec")).isEqualTo(1.0);
            assertThat(JsonProbe.number(cluster, null, "forwardsPerSec")).isEqualTo(0.6);
            assertThat(JsonProbe.number(cluster, null, "replicationWritesPerSec")).isEqualTo(4.0);
            // Latencies in milliseconds over the window, to HdrHistogram's three digits.
            assertThat(JsonProbe.number(cluster, null, "relayLatencyP50Ms")).isCloseTo(3.0, within(0.01));
            assertThat(JsonProbe.number(cluster, null, "relayLatencyP99Ms")).isCloseTo(5.0, within(0.01));
            assertThat(JsonProbe.number(cluster, null, "relayLatencyMaxMs")).isCloseTo(5.0, within(0.01));
            assertThat(JsonProbe.number(cluster, null, "replicationP99Ms")).isCloseTo(8.0, within(0.01));
            // Totals: this node's counters, and the view's failovers and last failover time.
            assertThat(JsonProbe.number(cluster, null, "relaysSent")).isEqualTo(10);
            assertThat(JsonProbe.number(cluster, null, "replicationLate")).isEqualTo(2);
            assertThat(JsonProbe.number(cluster, null, "handoffs")).isEqualTo(1);
            assertThat(JsonProbe.number(cluster, null, "linkGaps")).isEqualTo(1);
            assertThat(JsonProbe.number(cluster, null, "stateReadFailures")).isEqualTo(2);
            assertThat(JsonProbe.number(cluster, null, "stateReadGivenUp")).isEqualTo(3);
            assertThat(JsonProbe.number(cluster, null, "failovers")).isEqualTo(12);
            assertThat(JsonProbe.number(cluster, null, "lastFailoverMs")).isEqualTo(340);
            // The one-hour series.
            assertThat(JsonProbe.lastInColumn(json, "clusterRelaysSentPerSec")).isEqualTo(2.0);
            assertThat(JsonProbe.lastInColumn(json, "clusterRelaysReceivedPerSec")).isEqualTo(1.0);
            assertThat(JsonProbe.lastInColumn(json, "clusterForwardsPerSec")).isEqualTo(0.6);
            assertThat(JsonProbe.lastInColumn(json, "clusterReplicationWritesPerSec")).isEqualTo(4.0);
            assertThat(JsonProbe.lastInColumn(json, "clusterRelayLatencyP99Ms")).isCloseTo(5.0, within(0.01));
        }
    }

    @Test
    void dashboardJson_clusterViewIncompleteOrFailing_staysReadable() {
        ManualClock clock = new ManualClock();
        try (MucScaleMetrics metrics = new MucScaleMetrics(MetricsConfig.defaults(), clock)) {
            // The local node missing from the view, no failover yet, no relay recorded.
            metrics.clusterView(() -> new MucScaleMetrics.ClusterView("node-<b>", Map.of("node-a", 3), 0, -1));
            metrics.dashboard().sampleNow();
            String json = metrics.dashboard().json(900);
            String cluster = json.substring(json.indexOf("\"cluster\":"));

            assertThat(cluster).contains("\"nodes\":[{\"node\":\"node-\\u003cb\\u003e\",\"rooms\":null,\"local\":true},"
                    + "{\"node\":\"node-a\",\"rooms\":3,\"local\":false}]");
            assertThat(JsonProbe.number(cluster, null, "relayLatencyP99Ms")).isNaN();
            assertThat(JsonProbe.number(cluster, null, "lastFailoverMs")).isNaN();
            assertThat(json).doesNotContain("<b>");

            // A view that throws is shown as not clustered, not as a broken page.
            metrics.clusterView(() -> {
                throw new IllegalStateException("cluster map unreachable");
            });
            assertThat(metrics.dashboard().json(900)).contains("\"cluster\":{\"enabled\":false}");
        }
    }

    @Test
    void prometheus_clusterMembers_listsEachNodeOnceAndMarksThisOne() throws Exception {
        try (MucScaleMetrics metrics = new MucScaleMetrics(MetricsConfig.defaults(), Clock.SYSTEM)) {
            java.io.StringWriter none = new java.io.StringWriter();
            metrics.writePrometheus(none);
            assertThat(none.toString()).as("not clustered: the family without members")
                    .doesNotContain("mucscale_cluster_member{");

            java.util.concurrent.atomic.AtomicReference<java.util.List<String>> view =
                    new java.util.concurrent.atomic.AtomicReference<>(java.util.List.of("node-a", "node-b"));
            metrics.clusterMembers("node-b", view::get);
            java.io.StringWriter two = new java.io.StringWriter();
            metrics.writePrometheus(two);
            assertThat(two.toString().lines().filter(l -> l.startsWith("mucscale_cluster_member{")))
                    .containsExactly("mucscale_cluster_member{node=\"node-a\",local=\"false\",} 1.0",
                            "mucscale_cluster_member{node=\"node-b\",local=\"true\",} 1.0");

            // read at every scrape: a node that left is gone from the next one
            view.set(java.util.List.of("node-b"));
            java.io.StringWriter one = new java.io.StringWriter();
            metrics.writePrometheus(one);
            assertThat(one.toString().lines().filter(l -> l.startsWith("mucscale_cluster_member{")))
                    .containsExactly("mucscale_cluster_member{node=\"node-b\",local=\"true\",} 1.0");

            // a view that throws leaves the family empty and the rest of the scrape intact
            metrics.clusterMembers("node-b", () -> {
                throw new IllegalStateException("cluster unreachable");
            });
            java.io.StringWriter failing = new java.io.StringWriter();
            metrics.writePrometheus(failing);
            assertThat(failing.toString()).doesNotContain("mucscale_cluster_member{").contains("mucscale_jvm_threads");
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
