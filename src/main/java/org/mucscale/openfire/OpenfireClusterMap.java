package org.mucscale.openfire;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.mucscale.engine.cluster.ClusterMap;

/**
 * A {@link ClusterMap} over one Openfire cache ({@code CacheFactory.createCache("mucscale-" + name)}), clustered
 * through Openfire's hazelcast plugin when this node is in a cluster, a local {@code DefaultCache} otherwise.
 *
 * <ul>
 *   <li>Backups: the cache is a Hazelcast map with one synchronous backup ({@link OpenfireClusterHost#LIVE} says
 *       why), so {@code put}/{@code putAll}/{@code remove} return once the backup is written and the map survives
 *       the loss of any one member.</li>
 *   <li>Round trips: Openfire's {@code Cache} is a {@code java.util.Map} and has no bulk read, so {@link #getAll}
 *       and {@link #removeAll} make one call per key; {@link #putAll} is Hazelcast's {@code putAll}, or one
 *       {@code put} for a single entry (a flush's usual write, one tail record): {@code putAll} goes through one
 *       operation per member that fans out to the partition threads there, two hand-offs more than a {@code put}.</li>
 *   <li>Values are copied in and out: the local {@code DefaultCache} keeps the caller's array itself, Hazelcast a
 *       serialized copy, and the engine gets the same behaviour from both.</li>
 *   <li>Joining or leaving a cluster empties the map on this node (Openfire swaps the cache behind the same object:
 *       {@code CacheFactory.joinedCluster()/leftCluster()}); the engine hears of it as a change of members.</li>
 * </ul>
 *
 * <p>Concurrency: thread-safe as the Openfire caches are (DefaultCache is synchronized, Hazelcast maps are concurrent).
 */
final class OpenfireClusterMap implements ClusterMap {

    private final String name;
    private final Map<String, byte[]> cache;

    OpenfireClusterMap(String name, Map<String, byte[]> cache) {
        this.name = name;
        this.cache = cache;
    }

    @Override
    public void putAll(Map<String, byte[]> entries) {
        if (entries.isEmpty()) {
            return;
        }
        if (entries.size() == 1) {
            Map.Entry<String, byte[]> e = entries.entrySet().iterator().next();
            cache.put(Objects.requireNonNull(e.getKey(), "key"), copyIn(e.getKey(), e.getValue()));
            return;
        }
        Map<String, byte[]> copies = new HashMap<>(entries.size() * 2);
        entries.forEach((k, v) -> copies.put(Objects.requireNonNull(k, "key"), copyIn(k, v)));
        cache.putAll(copies);
    }

    /** The value to store for {@code key}: a copy, so the caller's array stays the caller's; null refused by name. */
    private byte[] copyIn(String key, byte[] value) {
        return Objects.requireNonNull(value, () -> "value of " + key + " in cluster map " + name).clone();
    }

    @Override
    public Map<String, byte[]> getAll(Collection<String> keys) {
        Map<String, byte[]> found = new HashMap<>();
        for (String key : keys) {
            byte[] v = cache.get(key);
            if (v != null) {
                found.put(key, v.clone());
            }
        }
        return found;
    }

    @Override
    public byte[] get(String key) {
        byte[] v = cache.get(key);
        return v == null ? null : v.clone();
    }

    @Override
    public void removeAll(Collection<String> keys) {
        for (String key : keys) {
            cache.remove(key);
        }
    }

    @Override
    public Set<String> keys() {
        return Set.copyOf(cache.keySet());
    }

    Map<String, byte[]> cache() {
        return cache;
    }

    @Override
    public String toString() {
        return "cluster map " + name;
    }
}
