package org.mucscale.engine.runtime;

import org.mucscale.engine.cluster.ClusterListener;
import org.mucscale.engine.filter.Action;
import org.mucscale.engine.filter.FilterListener;
import org.mucscale.engine.metrics.MucScaleMetrics;
import org.mucscale.engine.muc.MessageInspector;
import org.mucscale.engine.muc.MucListener;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.store.StoreListener;

/**
 * Adapts the capabilities' listener ports to the metrics registry, so that no capability depends on another. Called
 * on message paths from many threads: everything here forwards to lock-free, allocation-free recorders.
 */
final class MetricsBridge {
    private MetricsBridge() {
    }

    static MucListener muc(MucScaleMetrics m) {
        return new MucListener() {
            @Override
            public void messageDelivered(Jid room, long arrivalNs, long deliveredNs, int fanOut) {
                m.recordMessage(room.toString(), fanOut, deliveredNs - arrivalNs);
            }

            @Override
            public void floodRejected(Jid room, FloodLimit limit) {
                m.floodRejected(room.toString(), limit.name());
            }

            @Override
            public void errorWithheld(Jid room) {
                m.registry().counter("mucscale.muc.errors-withheld").inc();
            }

            @Override
            public void filtered(Jid room, MessageInspector.Action action) {
                // counted per list by the filter listener below, which knows the list
            }

            @Override
            public void messageModerated(Jid room) {
                m.messageModerated(room.toString());
            }

            @Override
            public void roomStoreOverdue(Jid room) {
                m.registry().counter("mucscale.muc.room-store.overdue").inc();
            }

            @Override
            public void roomStoreFailed(Jid room) {
                m.registry().counter("mucscale.muc.room-store.failed").inc();
            }
        };
    }

    static ClusterListener cluster(MucScaleMetrics m) {
        return new ClusterListener() {
            @Override
            public void relaySent(int deliveries, int bytes) {
                m.clusterRelaySent(deliveries, bytes);
            }

            @Override
            public void relayReceived(int deliveries, long latencyMicros) {
                m.clusterRelayReceived(latencyMicros * 1_000L);
            }

            @Override
            public void forwarded(int bytes) {
                m.clusterForwarded();
            }

            @Override
            public void replicated(int entries, int bytes, long nanos, boolean late) {
                m.clusterReplicated(nanos, late);
            }

            @Override
            public void adopted(boolean failover) {
                m.clusterAdopted(failover);
            }

            @Override
            public void handedOff() {
                m.clusterHandedOff();
            }

            @Override
            public void lateFromDeparted(int kept) {
                m.clusterLateFromDeparted();
            }

            @Override
            public void unreadable() {
                m.clusterUnreadable();
            }

            @Override
            public void unreadableAnswered() {
                m.clusterUnreadableAnswered();
            }

            @Override
            public void departedSessionDropped() {
                m.clusterDepartedSessionDropped();
            }

            @Override
            public void stateReadFailed() {
                m.clusterStateReadFailed();
            }

            @Override
            public void stateReadGivenUp(int rooms) {
                m.clusterStateReadGivenUp(rooms);
            }

            @Override
            public void replicationRound(int flushes) {
                m.clusterReplicationRound();
            }

            @Override
            public void sent(int messages) {
                m.clusterSent(messages);
            }

            @Override
            public void linkGapSkipped(String fromNode) {
                m.clusterLinkGap();
            }

            @Override
            public void resent(int resent, long letGo) {
                m.clusterResent(resent, letGo);
            }

            @Override
            public void resentDuplicateSkipped() {
                m.clusterResentDuplicate();
            }

            @Override
            public void stragglerHoldGivenUp(int forwards) {
                m.clusterStragglerHoldGivenUp(forwards);
            }

            @Override
            public void redelivered(int deliveries) {
                m.clusterRedelivered(true);
            }

            @Override
            public void redeliveredAlreadyHad() {
                m.clusterRedelivered(false);
            }
        };
    }

    static FilterListener filter(MucScaleMetrics m) {
        return new FilterListener() {
            @Override
            public void onAction(String roomJid, String list, Action action) {
                m.filterAction(roomJid, list, action.name());
            }

            @Override
            public void onScan(long scanNs) {
                m.recordFilterNs(scanNs);
            }

            @Override
            public void onCompiled(org.mucscale.engine.filter.CompileReport report) {
                m.filterListsCompiled(report.lists());
            }

            @Override
            public boolean timed() {
                return true;
            }
        };
    }

    static StoreListener store(MucScaleMetrics m) {
        return new StoreListener() {
            @Override
            public void spilled(int records) {
                m.storeSpilled(records);
            }

            @Override
            public void batchCommitted(int rows, long batchNanos) {
                m.storeCommitted(rows, batchNanos);
            }

            @Override
            public void committedLatency(long enqueueToCommitNanos) {
                m.recordStoreCommitLatencyNs(enqueueToCommitNanos);
            }

            @Override
            public void deadLettered(String stanzaId, String reason) {
                m.storeDeadLettered(1);
            }
        };
    }
}
