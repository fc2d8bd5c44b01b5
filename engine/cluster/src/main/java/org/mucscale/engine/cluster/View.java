package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import org.mucscale.engine.stanza.Jid;

/**
 * A view and the owner of each room under it (memoized; replaced with the view, never changed: a new view is a new
 * value). Immutable but for the owner memo, which any thread may fill (the same owner whoever computes it).
 */
record View(List<String> members, boolean clustered, ConcurrentHashMap<Jid, String> owners) {
    static View of(List<String> members) {
        return new View(List.copyOf(members), members.size() > 1, new ConcurrentHashMap<>());
    }

    String owner(Jid room) {
        String o = owners.get(room);
        if (o == null) {
            o = Rendezvous.owner(room.toString(), members);
            if (owners.size() < 100_000) {
                owners.put(room, o);
            }
        }
        return o;
    }

    /** The members but {@code node}, in order (a new list). */
    List<String> without(String node) {
        List<String> rest = new ArrayList<>(members);
        rest.remove(node);
        return rest;
    }
}
