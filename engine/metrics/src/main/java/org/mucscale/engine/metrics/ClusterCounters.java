package org.mucscale.engine.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import org.mucscale.engine.port.Clock;

/**
 * The cluster layer's metrics ({@code mucscale.cluster.*}): relays, forwards, sends, replication writes and rounds,
 * hand-offs, failovers, link gaps, unreadable messages (and those whose stanza's sender was answered), resends and
 * re-deliveries, failed state reads, and the relay latency and replication time histograms. {@link MucScaleMetrics}'s
 * {@code cluster...} methods record into them; the dashboard's {@link ClusterPanel} reads them.
 *
 * <p>Threads: no mutable state of its own; counters are LongAdders and the reservoirs lock-free recorders, written by
 * any thread (room threads, the cluster transport's threads) and read by the sampler, HTTP and JMX threads.
 */
final class ClusterCounters {
    final HdrWindowReservoir relayLatency;
    final HdrWindowReservoir replicationTime;
    final Histogram relayLatencyHistogram;
    final Histogram replicationTimeHistogram;

    final Counter relaysSent;
    final Counter relayBytes;
    final Counter relayDeliveries;
    final Counter relaysReceived;
    final Counter forwards;
    final Counter clusterSends;
    final Counter replicationRounds;
    final Counter lateFromDeparted;
    final Counter departedSessionsDropped;
    final Counter clusterUnreadable;
    final Counter clusterUnreadableAnswered;
    final Counter stateReadFailures;
    final Counter stateReadGivenUp;
    final Counter clusterSentMessages;
    final Counter replicationWrites;
    final Counter replicationLate;
    final Counter failovers;
    final Counter handoffs;
    final Counter linkGaps;
    final Counter resent;
    final Counter resentLetGo;
    final Counter resentDuplicates;
    /** Forwards held for a leaving node's stragglers that went on without its word (timeout, or it left). */
    final Counter stragglerHoldGivenUp;
    final Counter redelivered;
    final Counter redeliveredAlreadyHad;

    ClusterCounters(MetricRegistry registry, long windowNs, long intervalNs, Clock clock) {
        relayLatency = HdrWindowReservoir.forNanos(windowNs, intervalNs, clock);
        replicationTime = HdrWindowReservoir.forNanos(windowNs, intervalNs, clock);
        relayLatencyHistogram = registry.register("mucscale.cluster.relay.latency.ns", new WindowHistogram(relayLatency));
        replicationTimeHistogram = registry.register("mucscale.cluster.replication.time.ns",
                new WindowHistogram(replicationTime));
        relaysSent = registry.counter("mucscale.cluster.relays.sent");
        relayBytes = registry.counter("mucscale.cluster.relay.bytes");
        relayDeliveries = registry.counter("mucscale.cluster.relay.deliveries");
        relaysReceived = registry.counter("mucscale.cluster.relays.received");
        forwards = registry.counter("mucscale.cluster.forwards");
        clusterSends = registry.counter("mucscale.cluster.sends");
        replicationRounds = registry.counter("mucscale.cluster.replication.rounds");
        lateFromDeparted = registry.counter("mucscale.cluster.late-from-departed");
        departedSessionsDropped = registry.counter("mucscale.cluster.departed-sessions.dropped");
        clusterUnreadable = registry.counter("mucscale.cluster.unreadable");
        clusterUnreadableAnswered = registry.counter("mucscale.cluster.unreadable.answered");
        stateReadFailures = registry.counter("mucscale.cluster.state-read.failures");
        stateReadGivenUp = registry.counter("mucscale.cluster.state-read.given-up");
        clusterSentMessages = registry.counter("mucscale.cluster.sent.messages");
        replicationWrites = registry.counter("mucscale.cluster.replication.writes");
        replicationLate = registry.counter("mucscale.cluster.replication.late");
        failovers = registry.counter("mucscale.cluster.failovers");
        handoffs = registry.counter("mucscale.cluster.handoffs");
        linkGaps = registry.counter("mucscale.cluster.link.gaps");
        resent = registry.counter("mucscale.cluster.resent");
        resentLetGo = registry.counter("mucscale.cluster.resent.let-go");
        resentDuplicates = registry.counter("mucscale.cluster.resent.duplicates");
        stragglerHoldGivenUp = registry.counter("mucscale.cluster.straggler-hold.given-up");
        redelivered = registry.counter("mucscale.cluster.redelivered");
        redeliveredAlreadyHad = registry.counter("mucscale.cluster.redelivered.already-had");
    }
}
