package org.mucscale.openfire;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.jivesoftware.openfire.XMPPServer;
import org.jivesoftware.openfire.cluster.ClusterEventListener;
import org.jivesoftware.openfire.cluster.ClusterManager;
import org.jivesoftware.openfire.cluster.ClusterNodeInfo;
import org.jivesoftware.openfire.cluster.ClusteredCacheEntryListener;
import org.jivesoftware.openfire.cluster.NodeID;
import org.jivesoftware.util.cache.Cache;
import org.jivesoftware.util.cache.CacheFactory;

/**
 * The part of Openfire's clustering API that {@link OpenfireClusterTransport} uses, as one seam: {@link #LIVE} calls
 * Openfire (core classes only; Hazelcast stays inside Openfire's hazelcast plugin), tests pass a fake. Node ids are
 * Openfire's bytes here; {@link NodeIds} turns them into the engine's text.
 */
interface OpenfireClusterHost {

    /** This node's id: {@code XMPPServer.getNodeID()}, fixed for the life of the process since Openfire 4.4. */
    byte[] localNodeId();

    /** Whether this node is in a cluster now ({@code ClusterManager.isClusteringStarted()}). */
    boolean clusteringStarted();

    /** The members Openfire knows ({@code ClusterManager.getNodesInfo()}; empty when not clustered). */
    List<byte[]> clusterNodeIds();

    /**
     * Whether this Openfire is stopping: {@code XMPPServer.isShuttingDown()}, or the JVM running its shutdown hooks
     * (Hazelcast's own hook can take the member down before Openfire's hook has set that flag).
     */
    boolean shuttingDown();

    void addListener(ClusterEventListener listener);

    void removeListener(ClusterEventListener listener);

    /**
     * The cache {@code name} with Openfire's default limits ({@code CacheFactory.createCache(name)}, no properties
     * written): the cluster mailbox's inboxes, whose entries may expire (6 hours) and which must not leave a system
     * property per node id in the database.
     */
    Map<String, byte[]> plainCache(String name);

    /**
     * Registers {@code written} for every entry written to {@code cache} (a {@link #plainCache}) by any node, with its
     * value ({@code Cache.addClusteredCacheEntryListener(listener, true, true)}); removals, evictions and clears are
     * not reported. Returns the registration's id. Throws UnsupportedOperationException when the cache is not
     * clustered (Openfire's {@code DefaultCache}).
     */
    String listen(Map<String, byte[]> cache, BiConsumer<String, byte[]> written);

    /** Removes the registration {@code id} from {@code cache}. */
    void unlisten(Map<String, byte[]> cache, String id);

    /**
     * The clustered cache {@code name}, configured never to evict or expire an entry before it is created (see
     * {@link #LIVE}). The same object serves before, while and after this node is clustered: Openfire swaps what is
     * behind it when the node joins or leaves a cluster, emptying it each time.
     */
    Map<String, byte[]> cache(String name);

    /**
     * Empties {@code caches} if this node is not clustered, atomically with respect to Openfire switching them to
     * clustered ones; returns whether they were emptied. In a cluster other nodes may still use them: left alone.
     */
    boolean clearIfNotClustered(Collection<Map<String, byte[]>> caches);

    /**
     * Openfire 5.1.1 itself. About the caches ({@code docs/openfire.md}, "Clustering inside Openfire", has the
     * source references):
     * <ul>
     *   <li>Without a {@code cache.<name>.size} / {@code .maxLifetime} property or a plugin {@code cache-config.xml}
     *       entry, a cache gets Openfire's defaults, 256 KiB and 6 hours ({@code CacheFactory.DEFAULT_MAX_CACHE_SIZE},
     *       {@code DEFAULT_MAX_CACHE_LIFETIME}). Alone, {@code DefaultCache} then culls least recently used entries
     *       past the size and refuses any value above 90 % of it; clustered, the hazelcast plugin's
     *       {@code ClusteredCacheFactory.createCache} turns the lifetime into the Hazelcast map's time-to-live, so
     *       entries would vanish after 6 hours.</li>
     *   <li>-1 means "no limit" to both ({@code DefaultCache}: no culling below 0, no expiry at or below 0;
     *       {@code ClusteredCacheFactory}: size below 0 becomes Integer.MAX_VALUE MB, lifetime below 0 a time-to-live
     *       of 0 = forever). {@link CacheFactory#setMaxSizeProperty} and {@link CacheFactory#setMaxLifetimeProperty}
     *       store exactly these properties (what a {@code cache-config.xml} with {@code back-size-high} and
     *       {@code back-expiry} 0 would do, but for any name, and without that file's destroy-on-unload), before
     *       the cache is created; they write only when the stored value differs, and Openfire shares them with
     *       every node.</li>
     *   <li>The hazelcast plugin's {@code hazelcast-cache-config.xml} has no map config matching {@code mucscale-*},
     *       so {@code createCache} adds a dynamic {@code MapConfig(name)}: Hazelcast's defaults, one synchronous
     *       backup and no eviction, with only time-to-live and size taken from the properties above. The XML's
     *       {@code <map name="default">} (LRU at 100,000 per node) does not apply to it.</li>
     * </ul>
     */
    OpenfireClusterHost LIVE = new OpenfireClusterHost() {
        private static final long NO_LIMIT = -1L;

        @Override
        public byte[] localNodeId() {
            return XMPPServer.getInstance().getNodeID().toByteArray();
        }

        @Override
        public boolean clusteringStarted() {
            return ClusterManager.isClusteringStarted();
        }

        @Override
        public List<byte[]> clusterNodeIds() {
            List<byte[]> ids = new ArrayList<>();
            for (ClusterNodeInfo info : ClusterManager.getNodesInfo()) {
                ids.add(info.getNodeID().toByteArray());
            }
            return ids;
        }

        @Override
        public boolean shuttingDown() {
            XMPPServer server = XMPPServer.getInstance();
            if (server != null && server.isShuttingDown()) {
                return true;
            }
            // the JVM refuses new shutdown hooks once it runs them: the one way to ask whether it is stopping
            Thread probe = new Thread(() -> { });
            try {
                Runtime.getRuntime().addShutdownHook(probe);
                Runtime.getRuntime().removeShutdownHook(probe);
                return false;
            } catch (IllegalStateException stopping) {
                return true;
            }
        }

        @Override
        public void addListener(ClusterEventListener listener) {
            ClusterManager.addListener(listener);
        }

        @Override
        public void removeListener(ClusterEventListener listener) {
            ClusterManager.removeListener(listener);
        }

        @Override
        public Map<String, byte[]> plainCache(String name) {
            Cache<String, byte[]> cache = CacheFactory.createCache(name);
            return cache;
        }

        @Override
        public String listen(Map<String, byte[]> cache, BiConsumer<String, byte[]> written) {
            @SuppressWarnings("unchecked")
            Cache<String, byte[]> c = (Cache<String, byte[]>) cache;
            return c.addClusteredCacheEntryListener(new ClusteredCacheEntryListener<>() {
                @Override
                public void entryAdded(String key, byte[] newValue, NodeID nodeID) {
                    written.accept(key, newValue);
                }

                @Override
                public void entryUpdated(String key, byte[] oldValue, byte[] newValue, NodeID nodeID) {
                    written.accept(key, newValue);
                }

                @Override
                public void entryRemoved(String key, byte[] oldValue, NodeID nodeID) {
                    // a slot expiring or a cache emptied: nothing arrives
                }

                @Override
                public void entryEvicted(String key, byte[] oldValue, NodeID nodeID) {
                    // as above
                }

                @Override
                public void mapCleared(NodeID nodeID) {
                    // as above
                }

                @Override
                public void mapEvicted(NodeID nodeID) {
                    // as above
                }
            }, true, true);
        }

        @Override
        public void unlisten(Map<String, byte[]> cache, String id) {
            @SuppressWarnings("unchecked")
            Cache<String, byte[]> c = (Cache<String, byte[]>) cache;
            c.removeClusteredCacheEntryListener(id);
        }

        @Override
        public Map<String, byte[]> cache(String name) {
            CacheFactory.setMaxSizeProperty(name, NO_LIMIT);
            CacheFactory.setMaxLifetimeProperty(name, NO_LIMIT);
            Cache<String, byte[]> cache = CacheFactory.createCache(name);
            return cache;
        }

        @Override
        public boolean clearIfNotClustered(Collection<Map<String, byte[]>> caches) {
            // CacheFactory.joinedCluster()/leftCluster() are static synchronized: they swap every cache's content
            // and flip isClusteringStarted() while holding CacheFactory.class. Holding it here, a cache cannot turn
            // clustered between the check and clear() (which would empty the map for every node).
            synchronized (CacheFactory.class) {
                if (CacheFactory.isClusteringStarted()) {
                    return false;
                }
                caches.forEach(Map::clear);
                return true;
            }
        }
    };
}
