package org.jivesoftware.openfire.cluster;

/**
 * Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.cluster.ClusteredCacheEntryListener}.
 * Openfire calls it asynchronously, possibly in another order than the changes were made.
 */
public interface ClusteredCacheEntryListener<K, V> {

    void entryAdded(K key, V newValue, NodeID nodeID);

    void entryRemoved(K key, V oldValue, NodeID nodeID);

    void entryUpdated(K key, V oldValue, V newValue, NodeID nodeID);

    void entryEvicted(K key, V oldValue, NodeID nodeID);

    void mapCleared(NodeID nodeID);

    void mapEvicted(NodeID nodeID);
}
