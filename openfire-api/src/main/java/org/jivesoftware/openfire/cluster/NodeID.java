package org.jivesoftware.openfire.cluster;

/**
 * Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.cluster.NodeID} (members mucscale uses).
 * In Openfire the bytes are a UUID's text in UTF-8, or the {@code clustering.nodeid} XML property when it is set.
 */
public class NodeID {

    public byte[] toByteArray() { return null; }
}
