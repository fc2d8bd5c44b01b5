package org.mucscale.engine.metrics;

import org.HdrHistogram.Histogram;
import org.mucscale.engine.port.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The dashboard's data: a bounded one-hour time series sampled every {@code sample-interval}, plus recent GC pauses and
 * the top rooms and, on a cluster node, this node's cluster figures and the cluster's view, written as JSON by
 * {@link #writeJson}. Host-neutral: the Openfire servlet and the standalone HTTP server both call it.
 *
 * <p><b>Concurrency.</b> One daemon thread ({@code mucscale-metrics-sampler}) calls {@link #sampleNow()}; HTTP threads
 * call {@link #writeJson}. Both take this object's monitor: a sample is a few histogram merges every few seconds and a
 * JSON write a few hundred kilobytes at most, never on the message path. The cluster view is asked for before the
 * monitor is taken, since it may read the cluster's shared map. The ring holds
 * {@code ceil(3600 s / interval) + 1} samples; the oldest is overwritten (that is what a one-hour view means).
 * The cluster figures are {@link ClusterPanel}'s, under the same monitor.
 */
public final class DashboardData implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DashboardData.class);

    /** Fixed series, in JSON order. Latencies in milliseconds, rates per second, memory in MiB. */
    static final String[] SERIES = {
            "latencyP50Ms", "latencyP99Ms", "latencyP999Ms", "latencyMaxMs",
            "probeP50Ms", "probeP99Ms", "probeMaxMs",
            "storeCommitP99Ms", "storeCommitMaxMs", "filterP99Us", "fanoutP99",
            "gcPauseMaxMs", "gcPauses",
            "messagesPerSec", "deliveriesPerSec", "floodRejectionsPerSec", "storeCommitsPerSec", "storeSpilledPerSec",
            "storeDeadLettersPerSec", "heapUsedMiB", "allocationMiBPerSec", "threads", "rooms", "occupants",
            // Slow consumers: what the host adapter shed, and recipients it removed from their rooms (issue 18).
            "outboundDroppedPerSec", "slowRecipientsRemovedPerSec",
            // Messages retracted by moderators (XEP-0425, issue 16).
            "moderationsPerSec",
            // Cluster: null (a gap) while no cluster view is set, so a single server's charts show nothing there.
            "clusterRelaysSentPerSec", "clusterRelaysReceivedPerSec", "clusterForwardsPerSec",
            "clusterReplicationWritesPerSec", "clusterRelayLatencyP99Ms"};

    private static final int MAX_DYNAMIC_SERIES = 96;

    private final MucScaleMetrics metrics;
    private final GcMonitor gc;
    private final Clock clock;
    private final long sampleIntervalMs;
    private final int capacity;
    private final int topRoomsShown;

    // Guarded by this.
    private final long[] timeMs;
    private final double[][] series;
    private final Map<String, double[]> queueSeries = new LinkedHashMap<>();
    private final Map<String, double[]> filterSeries = new LinkedHashMap<>();
    private final List<List<TopRooms.Entry>> recentTopRooms = new ArrayList<>();
    private final List<List<TopRooms.Entry>> recentTopFilterRooms = new ArrayList<>();
    private final int topRoomsSamples;
    private int next;
    private long count;
    private final Histogram scratch;
    private final Histogram scratchCounts;
    private long lastSampleNs;
    private long lastMessages;
    private long lastDeliveries;
    private long lastFlood;
    private long lastCommitted;
    private long lastSpilled;
    private long lastDeadLetters;
    private long lastModerations;
    private long lastOutboundDropped;
    private long lastSlowRemoved;
    private long lastGcPauses;
    private long lastAllocated;
    private final Map<String, Long> lastFilterCounts = new HashMap<>();
    // Cluster counters at the previous sample, and the rates over the last sample interval.
    private volatile double messagesPerSecond;
    private volatile double deliveriesPerSecond;
    private volatile double allocationBytesPerSecond;

    private final ClusterPanel clusterPanel;
    private PeriodicTask sampler;

    DashboardData(MucScaleMetrics metrics, GcMonitor gc, MetricsConfig config, Clock clock) {
        this.metrics = metrics;
        this.gc = gc;
        this.clock = clock;
        this.sampleIntervalMs = config.sampleInterval().toMillis();
        this.capacity = (int) ((3_600_000L + sampleIntervalMs - 1) / sampleIntervalMs) + 1;
        this.topRoomsShown = config.topRooms();
        this.topRoomsSamples = (int) Math.max(1, (60_000L + sampleIntervalMs - 1) / sampleIntervalMs);
        this.timeMs = new long[capacity];
        this.series = new double[SERIES.length][capacity];
        this.scratch = metrics.deliveryLatency.newCompatibleHistogram();
        this.scratchCounts = metrics.fanout.newCompatibleHistogram();
        this.lastSampleNs = clock.nanoTime();
        this.clusterPanel = new ClusterPanel(metrics);
    }

    synchronized void start() {
        if (sampler != null) {
            return;
        }
        lastSampleNs = clock.nanoTime();
        lastAllocated = gc.allocatedBytesEstimate();
        sampler = new PeriodicTask("mucscale-metrics-sampler", this::sampleSafely,
                TimeUnit.MILLISECONDS.toNanos(sampleIntervalMs));
    }

    @Override
    public void close() {
        PeriodicTask s;
        synchronized (this) {
            s = sampler;
            sampler = null;
        }
        if (s != null) {
            s.close();
        }
    }

    private void sampleSafely() {
        try {
            sampleNow();
        } catch (RuntimeException e) {
            // The sampler keeps running; one bad sample is logged, not fatal.
            LOG.warn("dashboard sample failed", e);
        }
    }

    /** Takes one sample now (the sampler thread does this every interval; tests call it directly). */
    public synchronized void sampleNow() {
        long nowNs = clock.nanoTime();
        double seconds = Math.max(0.001, (nowNs - lastSampleNs) / 1e9);
        lastSampleNs = nowNs;
        int i = next;
        timeMs[i] = clock.currentTimeMillis();

        metrics.deliveryLatency.drainSinceLastDrain(scratch);
        put(i, "latencyP50Ms", percentileMs(scratch, 50));
        put(i, "latencyP99Ms", percentileMs(scratch, 99));
        put(i, "latencyP999Ms", percentileMs(scratch, 99.9));
        put(i, "latencyMaxMs", maxMs(scratch));
        metrics.probeLatency.drainSinceLastDrain(scratch);
        put(i, "probeP50Ms", percentileMs(scratch, 50));
        put(i, "probeP99Ms", percentileMs(scratch, 99));
        put(i, "probeMaxMs", maxMs(scratch));
        metrics.storeCommitLatency.drainSinceLastDrain(scratch);
        put(i, "storeCommitP99Ms", percentileMs(scratch, 99));
        put(i, "storeCommitMaxMs", maxMs(scratch));
        metrics.filterTime.drainSinceLastDrain(scratch);
        put(i, "filterP99Us", scratch.getTotalCount() == 0 ? Double.NaN : scratch.getValueAtPercentile(99) / 1e3);
        metrics.gcPause.drainSinceLastDrain(scratch);
        put(i, "gcPauseMaxMs", scratch.getTotalCount() == 0 ? 0 : maxMs(scratch));
        metrics.fanout.drainSinceLastDrain(scratchCounts);
        put(i, "fanoutP99", scratchCounts.getTotalCount() == 0 ? Double.NaN : scratchCounts.getValueAtPercentile(99));
        boolean clustered = metrics.clustered();
        metrics.cluster.relayLatency.drainSinceLastDrain(scratch);
        put(i, "clusterRelayLatencyP99Ms", clustered ? percentileMs(scratch, 99) : Double.NaN);
        metrics.cluster.replicationTime.drainSinceLastDrain(scratch);
        clusterPanel.sample(seconds, clustered, (name, value) -> put(i, name, value));

        long m = metrics.messages.getCount();
        long d = metrics.deliveries.getCount();
        messagesPerSecond = (m - lastMessages) / seconds;
        deliveriesPerSecond = (d - lastDeliveries) / seconds;
        put(i, "messagesPerSec", messagesPerSecond);
        put(i, "deliveriesPerSec", deliveriesPerSecond);
        lastMessages = m;
        lastDeliveries = d;
        long pauses = metrics.gcPauses.getCount();
        put(i, "gcPauses", pauses - lastGcPauses);
        lastGcPauses = pauses;
        put(i, "floodRejectionsPerSec", (metrics.floodRejections.getCount() - lastFlood) / seconds);
        lastFlood = metrics.floodRejections.getCount();
        put(i, "storeCommitsPerSec", (metrics.storeCommitted.getCount() - lastCommitted) / seconds);
        lastCommitted = metrics.storeCommitted.getCount();
        put(i, "storeSpilledPerSec", (metrics.storeSpilled.getCount() - lastSpilled) / seconds);
        lastSpilled = metrics.storeSpilled.getCount();
        put(i, "storeDeadLettersPerSec", (metrics.storeDeadLetters.getCount() - lastDeadLetters) / seconds);
        lastDeadLetters = metrics.storeDeadLetters.getCount();
        put(i, "outboundDroppedPerSec", (metrics.outboundDropped.getCount() - lastOutboundDropped) / seconds);
        lastOutboundDropped = metrics.outboundDropped.getCount();
        put(i, "slowRecipientsRemovedPerSec", (metrics.slowRecipientsRemoved.getCount() - lastSlowRemoved) / seconds);
        lastSlowRemoved = metrics.slowRecipientsRemoved.getCount();
        put(i, "moderationsPerSec", (metrics.moderations.getCount() - lastModerations) / seconds);
        lastModerations = metrics.moderations.getCount();

        long allocated = gc.allocatedBytesEstimate();
        allocationBytesPerSecond = Math.max(0, allocated - lastAllocated) / seconds;
        lastAllocated = allocated;
        put(i, "allocationMiBPerSec", allocationBytesPerSecond / (1024.0 * 1024.0));
        put(i, "heapUsedMiB", ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / (1024.0 * 1024.0));
        put(i, "threads", ManagementFactory.getThreadMXBean().getThreadCount());
        put(i, "rooms", gaugeValue("mucscale.muc.rooms"));
        put(i, "occupants", gaugeValue("mucscale.muc.occupants"));

        for (Map.Entry<String, java.util.function.LongSupplier> q : metrics.queueDepths.entrySet()) {
            double depth;
            try {
                depth = q.getValue().getAsLong();
            } catch (RuntimeException e) {
                depth = Double.NaN; // the queue's owner failed to answer: a gap in the chart
            }
            dynamic(queueSeries, q.getKey())[i] = depth;
        }
        for (Map.Entry<String, com.codahale.metrics.Counter> f : metrics.filterActions.byKey.entrySet()) {
            long c = f.getValue().getCount();
            long before = lastFilterCounts.getOrDefault(f.getKey(), 0L);
            lastFilterCounts.put(f.getKey(), c);
            dynamic(filterSeries, f.getKey())[i] = (c - before) / seconds;
        }
        // A series whose source went away (queue unregistered) shows a gap, not a stale value.
        for (Map.Entry<String, double[]> q : queueSeries.entrySet()) {
            if (!metrics.queueDepths.containsKey(q.getKey())) {
                q.getValue()[i] = Double.NaN;
            }
        }

        addBounded(recentTopRooms, metrics.topRooms.snapshotAndReset(topRoomsShown * 4));
        addBounded(recentTopFilterRooms, metrics.topFilterRooms.snapshotAndReset(topRoomsShown * 4));

        next = (next + 1) % capacity;
        count++;
    }

    private void addBounded(List<List<TopRooms.Entry>> recent, List<TopRooms.Entry> entries) {
        recent.add(entries);
        while (recent.size() > topRoomsSamples) {
            recent.remove(0);
        }
    }

    private double[] dynamic(Map<String, double[]> map, String key) {
        double[] values = map.get(key);
        if (values == null) {
            if (queueSeries.size() + filterSeries.size() >= MAX_DYNAMIC_SERIES) {
                return new double[capacity]; // beyond the bound: computed, not kept (the metric itself still counts)
            }
            values = new double[capacity];
            java.util.Arrays.fill(values, Double.NaN);
            map.put(key, values);
        }
        return values;
    }

    private void put(int index, String name, double value) {
        for (int s = 0; s < SERIES.length; s++) {
            if (SERIES[s].equals(name)) {
                series[s][index] = value;
                return;
            }
        }
        throw new IllegalArgumentException("no series " + name);
    }

    private double gaugeValue(String name) {
        com.codahale.metrics.Gauge<?> gauge = metrics.registry().getGauges().get(name);
        try {
            return gauge != null && gauge.getValue() instanceof Number n ? n.doubleValue() : Double.NaN;
        } catch (RuntimeException e) {
            return Double.NaN; // a supplier from another capability failed; show a gap, not a broken page
        }
    }

    private static double percentileMs(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1e6;
    }

    private static double maxMs(Histogram h) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getMaxValue() / 1e6;
    }

    double messagesPerSecond() {
        return messagesPerSecond;
    }

    double deliveriesPerSecond() {
        return deliveriesPerSecond;
    }

    double allocationBytesPerSecond() {
        return allocationBytesPerSecond;
    }

    public long sampleIntervalMs() {
        return sampleIntervalMs;
    }

    /** The JSON document for the last {@code rangeSeconds} (clamped to 60..3600), as a string. */
    public String json(int rangeSeconds) {
        // Asked outside this object's monitor: the view may read the cluster's shared map, which can take a while,
        // and the sampler must not wait for it.
        MucScaleMetrics.ClusterView cluster = metrics.clusterView();
        StringBuilder sb = new StringBuilder(64 * 1024);
        buildJson(sb, rangeSeconds, cluster);
        return sb.toString();
    }

    /**
     * Writes the dashboard JSON for the last {@code rangeSeconds} (clamped to 60..3600):
     * <pre>
     * { "nowMs", "sampleIntervalMs", "rangeSeconds",
     *   "t": [unix seconds...], "series": {name: [values or null...]},
     *   "queues": {queue: [depth...]}, "filterActions": {"list.action": [per second...]},
     *   "gcPauses": [{"t": unix ms, "ms", "collector", "cause", "action"}],
     *   "topRooms": [{"room", "messages", "error"}], "topFilterRooms": [...],
     *   "filterLists": [one line per operator word list: its format and how its plain entries match],
     *   "heapPools": [{"pool", "beforeBytes", "afterBytes"}], "summary": {...},
     *   "jvm": {version, collector, heap limits, GC options, the flag checker's verdict; see {@link JvmFacts#json}},
     *   "cluster": {"enabled": false} or {"enabled": true, "localNode", "nodes": [{"node", "rooms", "local"}],
     *               rates per second over the last sample interval, latencies in ms over the summary's window,
     *               totals since start; see {@link ClusterPanel#writeJson}} }
     * </pre>
     */
    public void writeJson(Writer out, int rangeSeconds) throws IOException {
        out.write(json(rangeSeconds));
    }

    private synchronized void buildJson(StringBuilder sb, int rangeSeconds, MucScaleMetrics.ClusterView cluster) {
        int range = Math.max(60, Math.min(3600, rangeSeconds));
        long nowMs = clock.currentTimeMillis();
        long fromMs = nowMs - range * 1000L;
        int n = (int) Math.min(count, capacity);
        int start = (int) ((next - n + capacity) % capacity);
        List<Integer> rows = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            int idx = (start + k) % capacity;
            if (timeMs[idx] >= fromMs) {
                rows.add(idx);
            }
        }
        sb.append("{\"nowMs\":").append(nowMs)
                .append(",\"sampleIntervalMs\":").append(sampleIntervalMs)
                .append(",\"rangeSeconds\":").append(range)
                .append(",\"t\":[");
        for (int k = 0; k < rows.size(); k++) {
            if (k > 0) {
                sb.append(',');
            }
            Json.number(sb, timeMs[rows.get(k)] / 1000.0);
        }
        sb.append("],\"series\":{");
        for (int s = 0; s < SERIES.length; s++) {
            if (s > 0) {
                sb.append(',');
            }
            Json.string(sb, SERIES[s]);
            sb.append(':');
            column(sb, series[s], rows);
        }
        sb.append("},\"queues\":");
        columns(sb, queueSeries, rows);
        sb.append(",\"filterActions\":");
        columns(sb, filterSeries, rows);
        sb.append(",\"gcPauses\":[");
        boolean first = true;
        for (GcMonitor.GcEvent e : gc.recentPauses()) {
            if (e.wallTimeMs() < fromMs) {
                continue;
            }
            if (!first) {
                sb.append(',');
            }
            first = false;
            sb.append("{\"t\":").append(e.wallTimeMs()).append(",\"ms\":").append(e.durationMs())
                    .append(",\"collector\":");
            Json.string(sb, e.collector());
            sb.append(",\"cause\":");
            Json.string(sb, e.cause());
            sb.append(",\"action\":");
            Json.string(sb, e.action());
            sb.append('}');
        }
        sb.append("],\"topRooms\":");
        topList(sb, recentTopRooms);
        sb.append(",\"topFilterRooms\":");
        topList(sb, recentTopFilterRooms);
        sb.append(",\"filterLists\":[");
        List<String> lists = metrics.filterLists();
        for (int k = 0; k < lists.size(); k++) {
            if (k > 0) {
                sb.append(',');
            }
            Json.string(sb, lists.get(k));
        }
        sb.append(']');
        sb.append(",\"heapPools\":[");
        first = true;
        for (Map.Entry<String, GcMonitor.PoolUsage> p : gc.lastHeapByPool().entrySet()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            sb.append("{\"pool\":");
            Json.string(sb, p.getKey());
            sb.append(",\"beforeBytes\":").append(p.getValue().beforeBytes())
                    .append(",\"afterBytes\":").append(p.getValue().afterBytes()).append('}');
        }
        sb.append("],\"summary\":{");
        com.codahale.metrics.Snapshot latency = metrics.deliveryLatency.getSnapshot();
        com.codahale.metrics.Snapshot pause = metrics.gcPause.getSnapshot();
        sb.append("\"windowSeconds\":").append(metrics.config().window().toSeconds());
        sb.append(",\"latencyP50Ms\":");
        Json.number(sb, latency.size() == 0 ? Double.NaN : latency.getMedian() / 1e6);
        sb.append(",\"latencyP99Ms\":");
        Json.number(sb, latency.size() == 0 ? Double.NaN : latency.get99thPercentile() / 1e6);
        sb.append(",\"latencyP999Ms\":");
        Json.number(sb, latency.size() == 0 ? Double.NaN : latency.get999thPercentile() / 1e6);
        sb.append(",\"latencyMaxMs\":");
        Json.number(sb, latency.size() == 0 ? Double.NaN : latency.getMax() / 1e6);
        com.codahale.metrics.Snapshot write = metrics.writeLatency.getSnapshot();
        sb.append(",\"writeLatencyP50Ms\":");
        Json.number(sb, write.size() == 0 ? Double.NaN : write.getMedian() / 1e6);
        sb.append(",\"writeLatencyP99Ms\":");
        Json.number(sb, write.size() == 0 ? Double.NaN : write.get99thPercentile() / 1e6);
        sb.append(",\"gcPauseMaxMs\":");
        Json.number(sb, pause.size() == 0 ? 0 : pause.getMax() / 1e6);
        sb.append(",\"messages\":").append(metrics.messages.getCount());
        sb.append(",\"deliveries\":").append(metrics.deliveries.getCount());
        sb.append(",\"gcPauses\":").append(metrics.gcPauses.getCount());
        sb.append(",\"topRoomsUnattributed\":").append(metrics.topRooms.unattributed());
        sb.append(",\"probesSent\":").append(metrics.probesSent.getCount());
        sb.append(",\"probesReceived\":").append(metrics.probesReceived.getCount());
        sb.append(",\"adminChanges\":").append(metrics.adminChanges.getCount());
        sb.append(",\"adminRefusals\":").append(metrics.adminRefusals.getCount());
        sb.append(",\"rooms\":");
        Json.number(sb, gaugeValue("mucscale.muc.rooms"));
        sb.append(",\"occupants\":");
        Json.number(sb, gaugeValue("mucscale.muc.occupants"));
        sb.append(",\"messagesPerSec\":");
        Json.number(sb, messagesPerSecond);
        sb.append(",\"deliveriesPerSec\":");
        Json.number(sb, deliveriesPerSecond);
        sb.append("},\"jvm\":");
        JvmFacts.json(sb, gaugeValue("mucscale.muc.occupants"));
        sb.append(",\"cluster\":");
        clusterPanel.writeJson(sb, cluster);
        sb.append('}');
    }

    private static void column(StringBuilder sb, double[] values, List<Integer> rows) {
        sb.append('[');
        for (int k = 0; k < rows.size(); k++) {
            if (k > 0) {
                sb.append(',');
            }
            Json.number(sb, values[rows.get(k)]);
        }
        sb.append(']');
    }

    private static void columns(StringBuilder sb, Map<String, double[]> map, List<Integer> rows) {
        sb.append('{');
        boolean first = true;
        for (Map.Entry<String, double[]> e : map.entrySet()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            Json.string(sb, e.getKey());
            sb.append(':');
            column(sb, e.getValue(), rows);
        }
        sb.append('}');
    }

    private void topList(StringBuilder sb, List<List<TopRooms.Entry>> recent) {
        Map<String, long[]> merged = new HashMap<>();
        for (List<TopRooms.Entry> sample : recent) {
            for (TopRooms.Entry e : sample) {
                long[] v = merged.computeIfAbsent(e.room(), k -> new long[2]);
                v[0] += e.count();
                v[1] += e.error();
            }
        }
        List<Map.Entry<String, long[]>> sorted = new ArrayList<>(merged.entrySet());
        sorted.sort((a, b) -> a.getValue()[0] != b.getValue()[0]
                ? Long.compare(b.getValue()[0], a.getValue()[0]) : a.getKey().compareTo(b.getKey()));
        sb.append('[');
        for (int k = 0; k < Math.min(topRoomsShown, sorted.size()); k++) {
            if (k > 0) {
                sb.append(',');
            }
            sb.append("{\"room\":");
            Json.string(sb, sorted.get(k).getKey());
            sb.append(",\"messages\":").append(sorted.get(k).getValue()[0])
                    .append(",\"error\":").append(sorted.get(k).getValue()[1]).append('}');
        }
        sb.append(']');
    }
}
