package org.mucscale.engine.cluster;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Which node owns a room: rendezvous (highest-random-weight) hashing over the current member list. Every node computes
 * the same owner from the same view with no coordination and no shared table; when a node leaves, only its rooms move
 * (each to the node that ranked second for it, which is also where it is the cheapest to rebuild); when a node joins,
 * only the rooms it now ranks first for move to it (about 1/n of them).
 *
 * <p>Why not Hazelcast's partition table: inside Openfire the partition table belongs to Openfire's hazelcast plugin and
 * is not reachable through Openfire's clustering API, and the same rule must hold for both hosts. Member lists are all
 * this needs.
 */
public final class Rendezvous {
    private Rendezvous() {
    }

    /** The owner of {@code room} among {@code members} (null when there are none). */
    public static String owner(String room, List<String> members) {
        long roomHash = hash(room);
        String best = null;
        long bestScore = 0;
        for (String m : members) {
            long score = mix(roomHash ^ hash(m));
            if (best == null || Long.compareUnsigned(score, bestScore) > 0
                    || (score == bestScore && m.compareTo(best) < 0)) {
                best = m;
                bestScore = score;
            }
        }
        return best;
    }

    /** 64-bit FNV-1a over the UTF-8 bytes: stable across JVMs and versions (String.hashCode is only 32 bits). */
    static long hash(String s) {
        long h = 0xcbf29ce484222325L;
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        for (byte x : b) {
            h ^= x & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** SplitMix64's finalizer: spreads the combined hash so every bit of both inputs matters. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
