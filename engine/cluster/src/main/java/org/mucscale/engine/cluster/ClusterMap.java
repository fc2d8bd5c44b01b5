package org.mucscale.engine.cluster;

import java.util.Collection;
import java.util.Map;
import java.util.Set;

/**
 * A map replicated across the cluster (string keys, opaque byte values), surviving the loss of any one member.
 * Writes return once the adapter's backup is written. Keys are small (room addresses plus a suffix); values are the
 * engine's own encodings ({@link RoomImages}), so no engine class is ever put into the host's cluster.
 */
public interface ClusterMap {

    /** Writes every entry (one round of network calls for all of them where the host allows). */
    void putAll(Map<String, byte[]> entries);

    /** The values of those keys that exist. */
    Map<String, byte[]> getAll(Collection<String> keys);

    byte[] get(String key);

    void removeAll(Collection<String> keys);

    /** Every key in the map (across the cluster). */
    Set<String> keys();
}
