package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which members of the transport's membership run the engine, as far as this node can tell, and this engine's own
 * start mark in the replicated map {@code starts} (node id to the run, 8 bytes). The view a node places rooms over is
 * the membership less the members not known to run the engine (docs/cluster-protocol.md, rule J): inside Openfire a
 * node is a cluster member before MUC Scale starts on it (or without it at all), and a room handed to it then was
 * lost with its hand-off and every stanza forwarded after it.
 *
 * <p>A member is known to run the engine once its start mark was read here or a message from it arrived; it stays
 * known until it leaves the membership (its mark may vanish meanwhile: Openfire empties caches as a node joins). A
 * read of the marks that fails counts the members it asked about in, as every member counted before rule J. The
 * members not known are <i>silent</i>: their marks are looked for once a second, and a message from one counts it in
 * at once; either way the caller applies the membership again, which for the rooms is a join.
 *
 * <p>Threads: {@link #filter}, {@link #lookForSilent}, {@link #keepMark}, {@link #markStarted} and {@link #withdraw}
 * on the cluster thread ({@link #markStarted} also once from start, before that thread places anything); {@link #heard}
 * on transport threads; {@link #runsEngine} from any thread. Both sets are concurrent; the check times are the cluster
 * thread's.
 */
final class EngineMembers {
    private static final Logger LOG = LoggerFactory.getLogger(EngineMembers.class);
    private static final long CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String local;
    private final ClusterMap starts;
    private final NodeVersions versions;
    private final byte[] mark;
    /** Members known to run the engine (never this node). */
    private final Set<String> known = ConcurrentHashMap.newKeySet();
    /** Members of the last membership filtered that are not known to run the engine. */
    private final Set<String> silent = ConcurrentHashMap.newKeySet();
    private long nextSilentCheckNanos = System.nanoTime(); // nanoTime may be negative: not 0
    private long nextMarkCheckNanos = System.nanoTime();

    EngineMembers(String local, ClusterMap starts, NodeVersions versions, long run) {
        this.local = local;
        this.starts = starts;
        this.versions = versions;
        this.mark = java.nio.ByteBuffer.allocate(Long.BYTES).putLong(run).array();
    }

    /**
     * {@code members} without those not known to run the engine (this node stays), in their order; reads the marks
     * of the members not known yet. Forgets what it knew of nodes that left the membership.
     */
    List<String> filter(List<String> members) {
        known.retainAll(members);
        List<String> unknown = new ArrayList<>();
        for (String m : members) {
            if (!m.equals(local) && !known.contains(m)) {
                unknown.add(m);
            }
        }
        if (!unknown.isEmpty()) {
            known.addAll(readMarks(unknown));
        }
        List<String> out = new ArrayList<>(members.size());
        silent.clear();
        for (String m : members) {
            if (m.equals(local) || known.contains(m)) {
                out.add(m);
            } else {
                silent.add(m);
            }
        }
        if (!silent.isEmpty()) {
            LOG.info("cluster members {} run no MUC Scale engine yet (no start mark, nothing heard); no room is "
                    + "placed there until they do", silent);
        }
        return out;
    }

    /** The marks found among {@code nodes}; all of them if the read fails (presumed to run the engine). */
    private Set<String> readMarks(List<String> nodes) {
        try {
            return Set.copyOf(starts.getAll(nodes).keySet());
        } catch (RuntimeException e) {
            LOG.debug("could not read the start marks of {}; counting them in: {}", nodes, e.toString());
            return Set.copyOf(nodes);
        }
    }

    /** A message from {@code node} arrived: true if it was silent until now (the caller applies the membership). */
    boolean heard(String node) {
        if (silent.isEmpty() || !silent.remove(node)) {
            return false;
        }
        known.add(node);
        return true;
    }

    boolean runsEngine(String node) {
        return known.contains(node);
    }

    /** Once a second while members are silent: true if one of them has written its mark since (counted in). */
    boolean lookForSilent(long nowNanos) {
        if (silent.isEmpty() || nowNanos - nextSilentCheckNanos < 0) {
            return false;
        }
        nextSilentCheckNanos = nowNanos + CHECK_NANOS;
        Map<String, byte[]> found;
        try {
            found = starts.getAll(List.copyOf(silent));
        } catch (RuntimeException e) {
            return false; // next time
        }
        if (found.isEmpty()) {
            return false;
        }
        LOG.info("cluster members {} started the MUC Scale engine; counting them in", found.keySet());
        known.addAll(found.keySet());
        silent.removeAll(found.keySet());
        return true;
    }

    /** This engine's start mark (and its versions) in the maps: a node that saw an earlier run leave compares runs. */
    void markStarted() {
        try {
            versions.publish();
            starts.putAll(Map.of(local, mark));
        } catch (RuntimeException e) {
            LOG.warn("could not write this node's start mark; a node that saw an earlier run of it leave keeps routing "
                    + "around it until the membership changes: {}", e.toString());
        }
    }

    /**
     * Every second: the mark is in the map, so that a node joining later knows this one runs the engine even if it has
     * never been clustered. Written again when missing: inside Openfire the plugin starts before the cluster does, and
     * Openfire empties the caches as the node joins it.
     */
    void keepMark(long nowNanos) {
        if (nowNanos - nextMarkCheckNanos < 0) {
            return;
        }
        nextMarkCheckNanos = nowNanos + CHECK_NANOS;
        try {
            if (!Arrays.equals(starts.get(local), mark)) {
                markStarted();
            }
        } catch (RuntimeException e) {
            // next time
        }
    }

    /** As the engine stops: a node joining later must not wait for rooms of an engine that is gone. */
    void withdraw() {
        starts.removeAll(List.of(local));
        versions.withdraw();
    }
}
