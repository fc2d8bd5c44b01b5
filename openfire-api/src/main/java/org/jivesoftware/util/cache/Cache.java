package org.jivesoftware.util.cache;

import java.io.Serializable;
import java.util.Map;
import org.jivesoftware.openfire.cluster.ClusteredCacheEntryListener;

/**
 * Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.util.cache.Cache}: mucscale uses the
 * {@link Map} methods it inherits and the clustered entry listener (the cluster mailbox).
 */
public interface Cache<K extends Serializable, V extends Serializable> extends Map<K, V> {

    String addClusteredCacheEntryListener(ClusteredCacheEntryListener<K, V> listener, boolean includeValues,
            boolean includeEventsFromLocalNode);

    void removeClusteredCacheEntryListener(String listenerId);
}
