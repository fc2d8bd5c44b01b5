package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.standalone.ClusterEnginesTest.await;
import static org.mucscale.standalone.ClusterEnginesTest.groupchat;
import static org.mucscale.standalone.ClusterEnginesTest.instantRoom;
import static org.mucscale.standalone.ClusterEnginesTest.join;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.cluster.Rendezvous;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.runtime.MucScaleEngine;
import org.mucscale.standalone.ClusterEnginesTest.Node;

/**
 * The rule of docs/cluster.md, "Occupants of a departed node leave as one step per room", with two engines that are
 * real Hazelcast members on loopback and users' sessions on the node their stanzas enter at (Openfire's shape): two
 * rooms, one owned by each node, each with {@value #PER_NODE} occupants on each node. When one node dies, each
 * survivor gets exactly one unavailable presence with status 333 per departed occupant in each room, and the surviving
 * node's host is never asked to deliver anything to a session of the dead node (inside Openfire, each such delivery
 * was an ERROR from Openfire's routing, quadratic in the dead node's occupants). When a node instead announces its
 * leave (a plugin reload inside Openfire: its sessions are still reachable), each of its sessions is told its own
 * removal, once per room, and nothing of the others'.
 */
class DepartedNodeOccupantsTest {
    private static final int PER_NODE = 100;
    private static final Pattern FROM = Pattern.compile("from=\"([^\"]*)\"");

    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void stopAll() {
        ClusterEnginesTest.stopAfterTest(nodes);
    }

    @Test
    void memberDies_eachSurvivorGetsOne333PerDepartedOccupant_nothingIsAddressedToTheDeadNodesSessions()
            throws Exception {
        List<String> rooms = startTwoNodesWithFullRooms();
        Node survivor = nodes.get(0);
        Node dead = nodes.get(1);
        // a survivor keeps talking while the other node dies: what the rooms broadcast between the survivor's view
        // change and the removal must not be addressed to the dead node's sessions either
        Thread talker = new Thread(() -> {
            for (int m = 0; m < 40; m++) {
                for (String room : rooms) {
                    survivor.engine.process(groupchat(user("a", 0), room, "during|" + m, "d" + m));
                }
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "test-talker");
        talker.start();
        Thread.sleep(50);
        dead.transport.terminate(); // no goodbye: the survivor's failure detector finds out
        nodes.remove(dead);
        talker.join();
        await(() -> survivor.engine.cluster().members().size() == 1, "the survivor alone");
        await(() -> survivor.engine.muc().roomCount() == 2, "the dead node's room taken over");
        for (int i = 0; i < PER_NODE; i++) {
            String u = user("a", i);
            for (String room : rooms) {
                await(() -> departures(survivor, u, room).size() >= PER_NODE, u + " saw " + room + "'s departures");
            }
        }
        // and then the room sends a message, so anything still on its way to a survivor would have arrived first
        for (String room : rooms) {
            survivor.engine.process(groupchat(user("a", 1), room, "after", "after"));
        }
        await(() -> rooms.stream().allMatch(r -> survivor.of(user("a", 0)).stream()
                .anyMatch(x -> x.contains("<body>after</body>") && x.contains("from=\"" + r + "/"))), "the last message");
        for (int i = 0; i < PER_NODE; i++) {
            for (String room : rooms) {
                Map<String, Integer> seen = departures(survivor, user("a", i), room);
                assertThat(seen).as("%s: one 333 per departed occupant of %s", user("a", i), room)
                        .hasSize(PER_NODE).allSatisfy((nick, count) -> assertThat(count).isEqualTo(1));
                assertThat(seen.keySet()).allMatch(nick -> nick.startsWith("east"));
            }
        }
        assertThat(survivor.received.keySet()).as("deliveries the survivor's host was asked to make to sessions of "
                + "the dead node").noneMatch(jid -> jid.startsWith("b"));
        System.out.println("memberDies: deliveries to the dead node's sessions dropped: " + survivor.engine.metrics()
                .registry().counter("mucscale.cluster.departed-sessions.dropped").getCount());
    }

    @Test
    void memberAnnouncesItsLeave_eachOfItsSessionsIsToldOnlyItsOwnRemoval_survivorsOne333Each() throws Exception {
        List<String> rooms = startTwoNodesWithFullRooms();
        Node survivor = nodes.get(0);
        Node leaving = nodes.get(1);
        leaving.engine.close(); // announces its leave and hands its room over
        nodes.remove(leaving);
        await(() -> survivor.engine.cluster().members().size() == 1, "the survivor alone");
        for (int i = 0; i < PER_NODE; i++) {
            String u = user("a", i);
            for (String room : rooms) {
                await(() -> departures(survivor, u, room).size() >= PER_NODE, u + " saw " + room + "'s departures");
            }
        }
        for (int i = 0; i < PER_NODE; i++) {
            String b = user("b", i);
            // still reachable (inside Openfire the node is still in the cluster): its own removal, nothing else
            for (String room : rooms) {
                await(() -> departures(survivor, b, room).size() >= 1, b + " told of its removal from " + room);
                assertThat(departures(survivor, b, room)).as("%s: what it was told of %s", b, room)
                        .isEqualTo(Map.of(nick("b", i), 1));
            }
            assertThat(survivor.of(b)).as("the survivor's deliveries to %s", b)
                    .allMatch(x -> x.contains("code=\"110\"") && x.contains("code=\"333\""));
        }
        for (int i = 0; i < PER_NODE; i++) {
            for (String room : rooms) {
                assertThat(departures(survivor, user("a", i), room)).hasSize(PER_NODE)
                        .allSatisfy((nick, count) -> assertThat(count).isEqualTo(1));
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ set-up

    /**
     * Two engines, two rooms (the first owned by node 0, the second by node 1), each with users a0..a99 (sessions on
     * node 0) and b0..b99 (on node 1) joined; returns the rooms.
     */
    private List<String> startTwoNodesWithFullRooms() throws Exception {
        List<Integer> ports = List.of(org.mucscale.testkit.FreePort.next(), org.mucscale.testkit.FreePort.next());
        for (int i = 0; i < 2; i++) {
            startNode("n" + i, ports, ports.get(i));
        }
        await(() -> nodes.stream().allMatch(n -> n.engine.cluster().members().size() == 2), "two members");
        ClusterEnginesTest.awaitPartitionsSafe(nodes);
        List<String> members = nodes.get(0).engine.cluster().members();
        List<String> rooms = new ArrayList<>();
        for (int owner = 0; owner < 2; owner++) {
            String id = nodes.get(owner).transport.localNode();
            for (int k = 0; ; k++) {
                String room = "r" + owner + "x" + k + "@" + ClusterEnginesTest.SERVICE;
                if (Rendezvous.owner(room, members).equals(id)) {
                    rooms.add(room);
                    break;
                }
            }
        }
        for (String room : rooms) {
            Node first = nodes.get(0);
            String creator = user("a", 0);
            first.engine.process(join(creator, room, nick("a", 0)));
            await(() -> first.of(creator).stream().anyMatch(x -> x.contains("code=\"201\"")
                    && x.contains("from=\"" + room + "/")), room + " created");
            first.engine.process(instantRoom(creator, room));
            await(() -> first.of(creator).stream().anyMatch(x -> x.contains("type=\"result\"")
                    && x.contains("from=\"" + room + "\"")), room + " unlocked");
            for (int i = 0; i < PER_NODE; i++) {
                if (i > 0) {
                    first.engine.process(join(user("a", i), room, nick("a", i)));
                }
                nodes.get(1).engine.process(join(user("b", i), room, nick("b", i)));
            }
        }
        for (int i = 0; i < PER_NODE; i++) {
            for (String side : List.of("a", "b")) {
                Node home = nodes.get(side.equals("a") ? 0 : 1);
                String u = user(side, i);
                await(() -> home.of(u).stream().filter(x -> x.startsWith("<presence") && x.contains("code=\"110\"")
                        && !x.contains("unavailable")).count() >= rooms.size(), u + " joined both rooms, got "
                        + home.of(u).stream().filter(x -> !x.contains("unavailable") && x.contains("110")
                        || x.contains("error")).toList());
            }
        }
        return rooms;
    }

    private void startNode(String name, List<Integer> ports, int port) {
        Node node = new Node(name);
        Map<String, String> text = ClusterEnginesTest.nodeSettings(name, ports, port);
        Settings settings = Settings.fromText(StandaloneServer.catalog(), text);
        node.settings = settings;
        node.transport = HazelcastClusterTransport.create(settings);
        node.withholding = new ClusterEnginesTest.Withholding(node.transport);
        node.engine = MucScaleEngine.builder(ClusterEnginesTest.SERVICE, settings, node).cluster(node.withholding)
                .build();
        node.engine.start();
        nodes.add(node);
    }

    static String user(String side, int i) {
        return side + i + "@example.org/r";
    }

    /** Nicknames of words the content filter passes ("a55" is masked as a word it lists). */
    static String nick(String side, int i) {
        return (side.equals("a") ? "west" : "east") + i;
    }

    /** The unavailable presences with status 333 that {@code jid} got from {@code room}: how many per nickname. */
    static Map<String, Integer> departures(Node n, String jid, String room) {
        Map<String, Integer> out = new HashMap<>();
        for (String x : n.of(jid)) {
            if (!x.startsWith("<presence") || !x.contains("type=\"unavailable\"") || !x.contains("code=\"333\"")) {
                continue;
            }
            Matcher m = FROM.matcher(x);
            if (m.find() && m.group(1).startsWith(room + "/")) {
                out.merge(m.group(1).substring(room.length() + 1), 1, Integer::sum);
            }
        }
        return out;
    }
}
