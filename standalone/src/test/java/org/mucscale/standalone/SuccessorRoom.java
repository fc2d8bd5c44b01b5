package org.mucscale.standalone;

import java.util.List;
import org.mucscale.engine.cluster.Rendezvous;

/**
 * Roles for a three-node cluster test: a room that node {@code owner} holds now and node {@code successor} holds once
 * {@code owner} is gone (by the same rendezvous hashing the engine places rooms with), {@code third} being the node
 * left over. Indexes are into the list of nodes the room was found for.
 */
record SuccessorRoom(String room, int owner, int third, int successor) {

    /** The first room named {@code prefix + k + "@" + service} (k from 0) with these roles among {@code nodes}. */
    static SuccessorRoom find(List<ClusterEnginesTest.Node> nodes, String prefix, String service) {
        List<String> ids = nodes.stream().map(n -> n.engine.cluster().localNode()).toList();
        for (int k = 0; k < 1000; k++) {
            String candidate = prefix + k + "@" + service;
            int owner = ids.indexOf(Rendezvous.owner(candidate, ids));
            for (int third = 0; third < 3; third++) {
                int successor = 3 - owner - third;
                if (third != owner && successor != owner && successor != third
                        && Rendezvous.owner(candidate, List.of(ids.get(third), ids.get(successor)))
                        .equals(ids.get(successor))) {
                    return new SuccessorRoom(candidate, owner, third, successor);
                }
            }
        }
        throw new AssertionError("no room among 1,000 candidates '" + prefix + "…' has an owner and a successor");
    }
}
