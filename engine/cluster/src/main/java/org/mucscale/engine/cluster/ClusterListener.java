package org.mucscale.engine.cluster;

import java.util.List;

/**
 * What the cluster layer reports (to metrics). Called from room threads and the cluster's own threads; implementations
 * must be thread-safe and quick. Every method defaults to nothing.
 */
public interface ClusterListener {

    /** One relay went to another node: {@code deliveries} recipients, {@code bytes} on the wire. */
    default void relaySent(int deliveries, int bytes) {
    }

    /** A relay arrived; {@code latencyMicros}: wall clock from the sender's flush to its arrival here. */
    default void relayReceived(int deliveries, long latencyMicros) {
    }

    /** A stanza for a room owned elsewhere was forwarded to its owner. */
    default void forwarded(int bytes) {
    }

    /** Room state written to the replicated maps from one room-thread flush. */
    default void replicated(int entries, int bytes, long nanos, boolean late) {
    }

    /** A room came here: handed over by a live owner ({@code failover} false) or taken over from a dead one. */
    default void adopted(boolean failover) {
    }

    /** A room left this node for another owner. */
    default void handedOff() {
    }

    /**
     * A message from a crashed node's run arrived after that node had left the view ({@code kept}: groupchat messages
     * of it handed on as re-deliveries; the rest was dropped).
     */
    default void lateFromDeparted(int kept) {
    }

    /** A delivery to a session that was on a crashed node was dropped: nobody can deliver it (docs/cluster.md). */
    default void departedSessionDropped() {
    }

    /** A message from another node could not be read (a node of another version, see NodeVersions): dropped. */
    default void unreadable() {
    }

    /**
     * An unreadable message carried a client's stanza, and its sender was answered service-unavailable (counted in
     * {@link #unreadable} too).
     */
    default void unreadableAnswered() {
    }

    /** One round of replicated-map writes, for {@code flushes} room-thread flushes gathered into it. */
    default void replicationRound(int flushes) {
    }

    /** One send to another node through the host, carrying {@code messages} messages (more than one: a batch). */
    default void sent(int messages) {
    }

    /** A gap in a link's sequence was given up on (a message lost between nodes). */
    default void linkGapSkipped(String fromNode) {
    }

    /**
     * Messages this node had forwarded to a node that left before confirming them were sent again to the rooms' new
     * owners ({@code resent}); {@code letGo}: unconfirmed ones dropped earlier because the limit was reached.
     */
    default void resent(int resent, long letGo) {
    }

    /** A resent message had already been accepted by the room's previous owner (it is in the tail): skipped. */
    default void resentDuplicateSkipped() {
    }

    /**
     * A message a departed owner had accepted was re-delivered by its room's new owner and written to
     * {@code deliveries} of this node's sessions: this node had not delivered it.
     */
    default void redelivered(int deliveries) {
    }

    /** A re-delivered message this node had delivered already was dropped. */
    default void redeliveredAlreadyHad() {
    }

    /** A read of the replicated room state failed (it is tried again until the state-read timeout). */
    default void stateReadFailed() {
    }

    /** {@code rooms} came here without their replicated state: it could not be read within the state-read timeout. */
    default void stateReadGivenUp(int rooms) {
    }

    /**
     * {@code forwards} held for a leaving node's word that it passed on an entry node's stanzas went on without it
     * (it did not come within the hand-off timeout, or a node left the membership): see {@code StragglerHold}.
     */
    default void stragglerHoldGivenUp(int forwards) {
    }

    /** The cluster's view as this node sees it now. */
    default void view(List<String> members, String localNode) {
    }
}
