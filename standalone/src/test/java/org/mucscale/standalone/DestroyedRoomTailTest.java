package org.mucscale.standalone;

import static org.mucscale.standalone.ClusterEnginesTest.await;
import static org.mucscale.standalone.ClusterEnginesTest.groupchat;
import static org.mucscale.standalone.ClusterEnginesTest.instantRoom;
import static org.mucscale.standalone.ClusterEnginesTest.join;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.cluster.ClusterMap;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.runtime.MucScaleEngine;
import org.mucscale.engine.stanza.XmlElement;
import org.mucscale.testkit.FreePort;

/**
 * A destroyed room leaves nothing in the replicated tail ring (docs/cluster-protocol.md, finding F5). Tail records are
 * numbered from 1 and kept at slot {@code seq mod slots}; the removal used to free slots 0 to
 * {@code min(seq, slots) - 1}, so for a room with fewer messages than the ring its newest record stayed: memory per
 * destroyed room, and a room created again under the same address and then taken over would show it as history.
 */
class DestroyedRoomTailTest {
    static final String SERVICE = "muc.example.org";

    private final List<ClusterEnginesTest.Node> nodes = new ArrayList<>();

    @AfterEach
    void stopAll() {
        for (ClusterEnginesTest.Node n : nodes) {
            try {
                n.engine.close();
            } catch (RuntimeException ignored) {
                // already stopped
            }
        }
    }

    @Test
    void roomWithFewerMessagesThanTheRingIsDestroyed_noneOfItsTailRecordsStay() throws Exception {
        List<Integer> ports = List.of(FreePort.next(), FreePort.next());
        for (int i = 0; i < 2; i++) {
            ClusterEnginesTest.Node node = new ClusterEnginesTest.Node("n" + i);
            Map<String, String> text = ClusterEnginesTest.nodeSettings("n" + i, ports, ports.get(i));
            Settings settings = Settings.fromText(StandaloneServer.catalog(), text);
            node.transport = HazelcastClusterTransport.create(settings);
            node.engine = MucScaleEngine.builder(SERVICE, settings, node).cluster(node.transport).build();
            node.engine.start();
            nodes.add(node);
        }
        await(() -> nodes.stream().allMatch(n -> n.engine.cluster().members().size() == 2), "two members");
        ClusterEnginesTest.Node home = nodes.get(0);
        ClusterMap tails = home.transport.map("tails");
        ClusterMap rooms = home.transport.map("rooms");
        String owner = "owner@example.org/r";
        String room = "doomed@" + SERVICE;
        home.engine.process(join(owner, room, "owner"));
        await(() -> home.of(owner).stream().anyMatch(x -> x.contains("code=\"201\"")), "room created");
        home.engine.process(instantRoom(owner, room));
        await(() -> home.of(owner).stream().anyMatch(x -> x.contains("type=\"result\"")), "room unlocked");
        for (int m = 1; m <= 3; m++) {
            home.engine.process(groupchat(owner, room, "m" + m, "m" + m));
        }
        // not counting the room's accepted mark (room#a), which goes with the room too (asserted below)
        await(() -> tails.keys().stream().filter(k -> k.startsWith(room + "#") && !k.endsWith("#a")).count() == 3,
                "three tail records");

        home.engine.process(XmlElement.builder("iq").attribute("type", "set").attribute("id", "destroy")
                .attribute("from", owner).attribute("to", room)
                .child(XmlElement.builder("query", "http://jabber.org/protocol/muc#owner")
                        .child(XmlElement.builder("destroy").build()).build())
                .build());
        await(() -> rooms.get(room) == null, "the room's image removed");
        // the writer removes images before tail records in the same round (ReplicationWriter), so the image going
        // first is no sign the round is over; with the old slot arithmetic the newest record stays for good
        await(() -> tails.keys().stream().noneMatch(k -> k.startsWith(room + "#")),
                "no tail record of the destroyed room left");
    }
}
