package org.mucscale.engine.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Which build and which wire version of the engine each node runs, in the replicated map {@code versions} (node id to
 * bytes), so that a node can say which versions it could not read, and an operator can see them during a rolling
 * upgrade (the dashboard's cluster view). A map rather than a message: a node that cannot read the other's messages
 * can still read this. The value, in {@link Codec}'s format:
 *
 * <pre>
 *   value := u8 format (1), varint wireVersion, string build
 * </pre>
 *
 * A later build may append fields after {@code build}; readers ignore what follows. A node with no entry runs a build
 * from before this map (wire version 1, build unknown). Threads: {@link #publish} on the cluster thread; the rest from
 * any thread (the map is the host's, thread-safe; the once-only record is a concurrent set).
 */
final class NodeVersions {
    /**
     * The version of the messages between nodes ({@link Wire}). Rule: a change that an older node cannot read raises it,
     * and a node never sends a message of a kind or layout newer than the version the receiving node published. 1 is
     * the format of every build before this map existed. 2 adds ADMIN_CALL and ADMIN_ANSWER ({@link AdminCalls}) and a
     * FORWARD's origin (flag 2, {@link Wire#ORIGIN}), each sent only to nodes that published 2 or more. 3: the same
     * messages, and the reader ignores fields appended after those it knows (so a later version's appended field
     * needs no downgrade for it; see {@link Wire}). 4 adds PASSED ({@link StragglerHold}), sent only to nodes that
     * published 4 or more.
     */
    static final int WIRE_VERSION = 4;
    /** The replicated map's name. */
    static final String MAP = "versions";
    /** This build, from the filtered {@code version.properties} ("unknown" when run from classes without it). */
    static final String BUILD = readBuild();

    /** One node's versions. */
    record Version(int wire, String build) {
        @Override
        public String toString() {
            return build + " (wire version " + wire + ")";
        }
    }

    /** What a node without an entry runs. */
    static final Version BEFORE_VERSIONS = new Version(1, "a build older than the versions map");

    private final ClusterMap map;
    private final String local;
    private final Version own;
    /** Node and version pairs already reported as unreadable: each is said once. */
    private final java.util.Set<String> reported = ConcurrentHashMap.newKeySet();
    private final LongAdder unreadable = new LongAdder();

    NodeVersions(ClusterMap map, String local, Version own) {
        this.map = map;
        this.local = local;
        this.own = own;
    }

    Version own() {
        return own;
    }

    /** Writes this node's entry (again: inside Openfire the caches are emptied as the node joins the cluster). */
    void publish() {
        map.putAll(Map.of(local, encode(own)));
    }

    /** Removes this node's entry (the engine stops). */
    void withdraw() {
        map.removeAll(List.of(local));
    }

    /** The versions {@code node} published, {@link #BEFORE_VERSIONS} if none; null if the map cannot be read. */
    Version of(String node) {
        try {
            byte[] b = map.get(node);
            return b == null ? BEFORE_VERSIONS : decode(b);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** Every member's versions, in node order (the dashboard's cluster view); unreadable entries as "unknown". */
    Map<String, String> of(List<String> members) {
        Map<String, String> out = new TreeMap<>();
        for (String m : members) {
            Version v = m.equals(local) ? own : of(m);
            out.put(m, v == null ? "unknown" : v.toString());
        }
        return out;
    }

    /**
     * A message from {@code fromNode} could not be read ({@code why}) and {@code dropped} says what it carried and what
     * became of it: counted, and described for the log the first time for that node and its wire version (null after
     * that), with both nodes' versions, so an operator sees a mixed-version cluster at once and the log is not flooded
     * (one line per peer and version however many messages it sends).
     */
    String unreadable(String fromNode, String why, String dropped) {
        unreadable.increment();
        Version theirs = of(fromNode);
        String key = fromNode + " " + (theirs == null ? "unknown" : theirs.wire());
        if (!reported.add(key)) {
            return null;
        }
        return "cannot read cluster messages from node " + fromNode + ", which runs "
                + (theirs == null ? "an unknown version" : theirs.toString()) + "; this node " + local + " runs " + own
                + ": " + why + ". Not handled: " + dropped + ". Such messages are not handled and are counted "
                + "(mucscale.cluster.unreadable; those whose stanza's sender was answered also in "
                + "mucscale.cluster.unreadable.answered), said once per node and wire version; finish the rolling "
                + "upgrade (README, Clustering)";
    }

    long unreadableCount() {
        return unreadable.sum();
    }

    static byte[] encode(Version v) {
        return new Codec.Out(32).u8(1).varint(v.wire()).string(v.build()).toBytes();
    }

    static Version decode(byte[] b) {
        Codec.In in = new Codec.In(b);
        int format = in.u8();
        if (format < 1) {
            throw new IllegalArgumentException("unknown versions format " + format);
        }
        return new Version((int) in.varint(), in.string()); // what a later format appends is ignored
    }

    private static String readBuild() {
        try (InputStream in = NodeVersions.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "unknown");
            return v.startsWith("${") ? "unknown" : v;
        } catch (IOException e) {
            return "unknown";
        }
    }
}
