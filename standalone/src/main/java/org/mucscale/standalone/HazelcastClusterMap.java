package org.mucscale.standalone;

import com.hazelcast.map.IMap;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.mucscale.engine.cluster.ClusterMap;

/**
 * A {@link ClusterMap} over a Hazelcast {@code IMap<String, byte[]>} configured by {@link HazelcastClusterTransport}:
 * one synchronous backup, no asynchronous one, no eviction, no expiry. Every write returns once the owner and the
 * backup have it (Hazelcast's operation, waited for), so the entry survives the loss of any one member.
 *
 * <p>The engine asks for its maps before the transport has started its member, so the {@code IMap} is looked up at
 * first use. Thread-safe: any thread may call any method.
 */
final class HazelcastClusterMap implements ClusterMap {
    private final Supplier<IMap<String, byte[]>> lookup;
    private volatile IMap<String, byte[]> map;

    HazelcastClusterMap(Supplier<IMap<String, byte[]>> lookup) {
        this.lookup = lookup;
    }

    private IMap<String, byte[]> map() {
        IMap<String, byte[]> m = map;
        if (m == null) {
            m = lookup.get();
            map = m;
        }
        return m;
    }

    /**
     * One entry: one {@code set}, a single operation on the key's partition thread. More: one {@code setAll}, which
     * Hazelcast groups by member (one operation per member, run there on a generic thread that fans out to the
     * partition threads and collects their answers): two more hand-offs, which the common write of a room thread's
     * flush (one tail record) does not need.
     */
    @Override
    public void putAll(Map<String, byte[]> entries) {
        if (entries.size() == 1) {
            Map.Entry<String, byte[]> e = entries.entrySet().iterator().next();
            map().set(e.getKey(), e.getValue());
        } else if (!entries.isEmpty()) {
            map().setAll(entries);
        }
    }

    @Override
    public Map<String, byte[]> getAll(Collection<String> keys) {
        if (keys.isEmpty()) {
            return Map.of();
        }
        return map().getAll(keys instanceof Set<String> set ? set : new HashSet<>(keys));
    }

    @Override
    public byte[] get(String key) {
        return map().get(key);
    }

    /** One {@code delete} per key, all in flight at once; returns when every one (with its backup) is done. */
    @Override
    public void removeAll(Collection<String> keys) {
        if (keys.isEmpty()) {
            return;
        }
        IMap<String, byte[]> m = map();
        List<CompletableFuture<Boolean>> deletes = new ArrayList<>(keys.size());
        for (String key : keys) {
            deletes.add(m.deleteAsync(key).toCompletableFuture());
        }
        try {
            CompletableFuture.allOf(deletes.toArray(new CompletableFuture<?>[0])).join();
        } catch (CompletionException e) {
            // the same exception the synchronous calls throw
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    @Override
    public Set<String> keys() {
        return map().keySet();
    }
}
