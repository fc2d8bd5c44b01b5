package org.jivesoftware.openfire.cluster;

import java.util.Collection;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.cluster.ClusterManager} (members mucscale uses). */
public class ClusterManager {

    public static void addListener(ClusterEventListener listener) { }

    public static void removeListener(ClusterEventListener listener) { }

    public static boolean isClusteringStarted() { return false; }

    public static Collection<ClusterNodeInfo> getNodesInfo() { return null; }
}
