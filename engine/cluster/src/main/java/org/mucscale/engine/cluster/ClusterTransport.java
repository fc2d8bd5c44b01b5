package org.mucscale.engine.cluster;

import java.util.List;

/**
 * The port to the cluster: membership, messages between nodes, and replicated maps. One adapter per host, each on a
 * real distributed engine: Hazelcast 5.5 embedded (standalone) or Openfire's clustering API (inside Openfire, where
 * Openfire's hazelcast plugin owns Hazelcast). The engine never sees Hazelcast or Openfire types.
 *
 * <p>Contract the engine relies on (and nothing more):
 * <ul>
 *   <li>{@link #members()} is this node's current view of the cluster, this node included; every change of it is
 *       reported to {@link Listener#membersChanged} on one thread at a time, in the order the views happened.</li>
 *   <li>{@link #send} is asynchronous and at most once; messages may arrive in any order and on any thread, so the
 *       engine numbers them per link and restores order itself ({@link OrderedLinks}). A message to a node that has
 *       left is dropped.</li>
 *   <li>{@link ClusterMap}s survive the loss of any one member (the adapter keeps at least one backup), and a write
 *       has returned only once its backup is written.</li>
 * </ul>
 */
public interface ClusterTransport {

    /** This node's id: stable while the node runs, unique in the cluster, printable (letters, digits, '-', ':'). */
    String localNode();

    /** This node's current view: every member's id, this node's included, in no particular order. */
    List<String> members();

    /** Sends {@code message} to {@code node}, asynchronously; never blocks for long and never throws for a dead node. */
    void send(String node, byte[] message);

    /** A replicated map named {@code name} (the same name is the same map on every node). */
    ClusterMap map(String name);

    /**
     * Starts delivering messages and membership changes to {@code listener}. Called once, after which
     * {@link #members()} is valid; {@link Listener#membersChanged} is called once at start with the current view.
     */
    void start(Listener listener);

    /**
     * Leaves the cluster (gracefully when the host allows) and stops calling the listener. Idempotent. Standalone this
     * shuts the embedded member down; inside Openfire it only unregisters (Openfire owns its cluster membership).
     */
    void stop();

    /**
     * False once this node's own member is gone for good (stopped, terminated, or shut down by its host or by
     * itself): no map read or write can succeed on it again, so the engine stops retrying them (a take-over's reads
     * would otherwise retry for {@code mucscale.cluster.state-read-timeout}, and a close wait behind them). Hosts
     * that cannot tell keep the default.
     */
    default boolean running() {
        return true;
    }

    /** What the transport reports. Calls must return quickly: the engine only enqueues work from them. */
    interface Listener {
        /** A message another node sent with {@link #send}. */
        void received(String fromNode, byte[] message);

        /** The view changed (or the first view at start): every member, this node included. */
        void membersChanged(List<String> members);

    }
}
