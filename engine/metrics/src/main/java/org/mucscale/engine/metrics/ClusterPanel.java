package org.mucscale.engine.metrics;

import java.util.Map;
import java.util.function.ObjDoubleConsumer;

/**
 * The dashboard's cluster panel: this node's cluster rates over each sample interval (relays, their bytes and
 * deliveries, forwards, replication writes) and the {@code cluster} object of the dashboard JSON, which adds the
 * view's nodes, the relay and replication latencies and this node's cluster counters since start.
 *
 * <p>Threads: its rates and baselines are guarded by the monitor of the {@link DashboardData} that owns it, which
 * calls it only from its sample and JSON methods, holding that monitor (the sampler thread and HTTP threads).
 */
final class ClusterPanel {
    private final MucScaleMetrics metrics;

    private long lastRelaysSent;
    private long lastRelayBytes;
    private long lastRelayDeliveries;
    private long lastRelaysReceived;
    private long lastForwards;
    private long lastReplicationWrites;
    private double relaysSentPerSecond;
    private double relayBytesPerSecond;
    private double relayDeliveriesPerSecond;
    private double relaysReceivedPerSecond;
    private double forwardsPerSecond;
    private double replicationWritesPerSecond;

    ClusterPanel(MucScaleMetrics metrics) {
        this.metrics = metrics;
    }

    /**
     * The cluster's rates over this sample interval, put into the dashboard's series (null while not clustered). The
     * counters' baselines move on even when not clustered, so a node that joins later does not show its whole
     * history as one sample's rate.
     */
    void sample(double seconds, boolean clustered, ObjDoubleConsumer<String> series) {
        long sent = metrics.cluster.relaysSent.getCount();
        long bytes = metrics.cluster.relayBytes.getCount();
        long relayed = metrics.cluster.relayDeliveries.getCount();
        long received = metrics.cluster.relaysReceived.getCount();
        long forwarded = metrics.cluster.forwards.getCount();
        long replicated = metrics.cluster.replicationWrites.getCount();
        relaysSentPerSecond = (sent - lastRelaysSent) / seconds;
        relayBytesPerSecond = (bytes - lastRelayBytes) / seconds;
        relayDeliveriesPerSecond = (relayed - lastRelayDeliveries) / seconds;
        relaysReceivedPerSecond = (received - lastRelaysReceived) / seconds;
        forwardsPerSecond = (forwarded - lastForwards) / seconds;
        replicationWritesPerSecond = (replicated - lastReplicationWrites) / seconds;
        lastRelaysSent = sent;
        lastRelayBytes = bytes;
        lastRelayDeliveries = relayed;
        lastRelaysReceived = received;
        lastForwards = forwarded;
        lastReplicationWrites = replicated;
        series.accept("clusterRelaysSentPerSec", clustered ? relaysSentPerSecond : Double.NaN);
        series.accept("clusterRelaysReceivedPerSec", clustered ? relaysReceivedPerSecond : Double.NaN);
        series.accept("clusterForwardsPerSec", clustered ? forwardsPerSecond : Double.NaN);
        series.accept("clusterReplicationWritesPerSec", clustered ? replicationWritesPerSecond : Double.NaN);
    }

    /**
     * The {@code cluster} object. Not clustered (no view): {@code {"enabled":false}}. Clustered:
     * <pre>
     * { "enabled": true, "localNode", "nodes": [{"node", "rooms" (owned, by rendezvous hashing), "local"}] (by name),
     *   "relaysSentPerSec", "relayBytesPerSec", "relayDeliveriesPerSec", "relaysReceivedPerSec", "forwardsPerSec",
     *   "replicationWritesPerSec"            (over the last sample interval, like summary.messagesPerSec),
     *   "relayLatencyP50Ms", "relayLatencyP99Ms", "relayLatencyMaxMs", "replicationP99Ms", "replicationMaxMs"
     *                                        (milliseconds, over the summary's window; null when nothing recorded),
     *   "relaysSent", "relaysReceived", "forwards", "replicationWrites", "replicationLate", "handoffs", "linkGaps",
     *   "resent", "resentDuplicates",
     *   "redelivered", "redeliveredAlreadyHad", "stateReadFailures", "stateReadGivenUp" (this node's counters since
     *   start),
     *   "failovers" (rooms this node took over from departed nodes), "lastFailoverMs" (null: none yet) }
     * </pre>
     * Relay latency is the sender's flush to this node's receipt by the two nodes' wall clocks, so clock skew adds in.
     */
    void writeJson(StringBuilder sb, MucScaleMetrics.ClusterView view) {
        if (view == null) {
            sb.append("{\"enabled\":false}");
            return;
        }
        sb.append("{\"enabled\":true,\"localNode\":");
        Json.string(sb, view.localNode());
        sb.append(",\"nodes\":[");
        Map<String, Integer> nodes = new java.util.TreeMap<>();
        if (view.roomsPerNode() != null) {
            view.roomsPerNode().forEach((node, rooms) -> {
                if (node != null) {
                    nodes.put(node, rooms);
                }
            });
        }
        if (view.localNode() != null && !nodes.containsKey(view.localNode())) {
            nodes.put(view.localNode(), null); // a member by definition, even if the view missed it
        }
        boolean first = true;
        for (Map.Entry<String, Integer> e : nodes.entrySet()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            sb.append("{\"node\":");
            Json.string(sb, e.getKey());
            sb.append(",\"rooms\":");
            Json.number(sb, e.getValue() == null ? Double.NaN : e.getValue());
            sb.append(",\"local\":").append(e.getKey().equals(view.localNode()));
            String version = view.versionsPerNode() == null ? null : view.versionsPerNode().get(e.getKey());
            if (version != null) {
                sb.append(",\"version\":");
                Json.string(sb, version);
            }
            sb.append('}');
        }
        sb.append(']');
        field(sb, "relaysSentPerSec", relaysSentPerSecond);
        field(sb, "relayBytesPerSec", relayBytesPerSecond);
        field(sb, "relayDeliveriesPerSec", relayDeliveriesPerSecond);
        field(sb, "relaysReceivedPerSec", relaysReceivedPerSecond);
        field(sb, "forwardsPerSec", forwardsPerSecond);
        field(sb, "replicationWritesPerSec", replicationWritesPerSecond);
        com.codahale.metrics.Snapshot relay = metrics.cluster.relayLatency.getSnapshot();
        com.codahale.metrics.Snapshot replication = metrics.cluster.replicationTime.getSnapshot();
        field(sb, "relayLatencyP50Ms", relay.size() == 0 ? Double.NaN : relay.getMedian() / 1e6);
        field(sb, "relayLatencyP99Ms", relay.size() == 0 ? Double.NaN : relay.get99thPercentile() / 1e6);
        field(sb, "relayLatencyMaxMs", relay.size() == 0 ? Double.NaN : relay.getMax() / 1e6);
        field(sb, "replicationP99Ms", replication.size() == 0 ? Double.NaN : replication.get99thPercentile() / 1e6);
        field(sb, "replicationMaxMs", replication.size() == 0 ? Double.NaN : replication.getMax() / 1e6);
        sb.append(",\"relaysSent\":").append(metrics.cluster.relaysSent.getCount());
        sb.append(",\"relaysReceived\":").append(metrics.cluster.relaysReceived.getCount());
        sb.append(",\"forwards\":").append(metrics.cluster.forwards.getCount());
        sb.append(",\"replicationWrites\":").append(metrics.cluster.replicationWrites.getCount());
        sb.append(",\"replicationLate\":").append(metrics.cluster.replicationLate.getCount());
        sb.append(",\"handoffs\":").append(metrics.cluster.handoffs.getCount());
        sb.append(",\"linkGaps\":").append(metrics.cluster.linkGaps.getCount());
        sb.append(",\"resent\":").append(metrics.cluster.resent.getCount());
        sb.append(",\"resentDuplicates\":").append(metrics.cluster.resentDuplicates.getCount());
        sb.append(",\"redelivered\":").append(metrics.cluster.redelivered.getCount());
        sb.append(",\"redeliveredAlreadyHad\":").append(metrics.cluster.redeliveredAlreadyHad.getCount());
        sb.append(",\"stateReadFailures\":").append(metrics.cluster.stateReadFailures.getCount());
        sb.append(",\"stateReadGivenUp\":").append(metrics.cluster.stateReadGivenUp.getCount());
        sb.append(",\"failovers\":").append(view.failovers());
        field(sb, "lastFailoverMs", view.lastFailoverMillis() < 0 ? Double.NaN : view.lastFailoverMillis());
        sb.append('}');
    }

    private static void field(StringBuilder sb, String name, double value) {
        sb.append(',');
        Json.string(sb, name);
        sb.append(':');
        Json.number(sb, value);
    }
}
