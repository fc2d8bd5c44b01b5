package org.jivesoftware.openfire.cluster;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.cluster.ClusterNodeInfo} (members mucscale uses). */
public interface ClusterNodeInfo {

    NodeID getNodeID();
}
