package org.jivesoftware.openfire.cluster;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.cluster.ClusterEventListener}. */
public interface ClusterEventListener {

    void joinedCluster();

    void joinedCluster(byte[] nodeID);

    void leftCluster();

    void leftCluster(byte[] nodeID);

    void markedAsSeniorClusterMember();
}
