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
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.runtime.MucScaleEngine;
import org.mucscale.testkit.FreePort;

/**
 * At most once (docs/cluster-protocol.md, I5) for what a dead owner accepted but never confirmed. The entry node resends
 * everything unconfirmed (up to {@code unconfirmed-limit}); the new owner recognises a resend it must not accept again
 * only by the (sender, id) pairs of the replicated tail it took the room over with, which holds the newest
 * {@code max(log-tail, history-size)} messages. So when more messages than that were accepted since the owner's last
 * confirmation, the older ones are accepted a second time, with a new stanza-id, and every occupant gets them twice.
 * Here the tail is 5 (a valid setting: log-tail 0, history-size 5) and the sender sends every 2 ms, so the 100 ms
 * between confirmations hold about 50. With the default 500 it takes a confirmation stall (finding F4: no node confirms
 * anything while any room on it waits for a hand-off).
 */
class ResendBeyondTailTest {
    static final String SERVICE = "muc.example.org";
    private static final Pattern BODY = Pattern.compile("<body>t\\|(\\d+)</body>");
    private static final Pattern STANZA_ID = Pattern.compile("<stanza-id [^>]*id=\"([^\"]+)\"");

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

    private ClusterEnginesTest.Node startNode(String name, List<Integer> ports, int port) {
        ClusterEnginesTest.Node node = new ClusterEnginesTest.Node(name);
        Map<String, String> text = ClusterEnginesTest.nodeSettings(name, ports, port);
        text.put("mucscale.cluster.log-tail", "0");
        text.put("mucscale.muc.history-size", "5");
        Settings settings = Settings.fromText(StandaloneServer.catalog(), text);
        node.transport = HazelcastClusterTransport.create(settings);
        node.engine = MucScaleEngine.builder(SERVICE, settings, node).cluster(node.transport).build();
        node.engine.start();
        nodes.add(node);
        return node;
    }

    @Test
    void ownerDiesWithMoreUnconfirmedThanItsTail_eachMessageStillDeliveredOnce() throws Exception {
        List<Integer> ports = List.of(FreePort.next(), FreePort.next(), FreePort.next());
        for (int i = 0; i < 3; i++) {
            startNode("n" + i, ports, ports.get(i));
        }
        await(() -> nodes.stream().allMatch(n -> n.engine.cluster().members().size() == 3), "three members");
        ClusterEnginesTest.awaitPartitionsSafe(nodes);

        SuccessorRoom roles = SuccessorRoom.find(nodes, "tail", SERVICE);
        String room = roles.room();
        int oi = roles.owner();
        int ai = roles.third();
        int ni = roles.successor();
        ClusterEnginesTest.Node a = nodes.get(ai);
        ClusterEnginesTest.Node n = nodes.get(ni);
        ClusterEnginesTest.Node o = nodes.get(oi);
        String sender = "sender@example.org/r";
        String onN = "listener-n@example.org/r";
        String r = room;
        a.engine.process(join(sender, room, "sender"));
        await(() -> a.of(sender).stream().anyMatch(x -> x.contains("code=\"201\"")), "room created");
        a.engine.process(instantRoom(sender, room));
        await(() -> a.of(sender).stream().anyMatch(x -> x.contains("type=\"result\"")), "room unlocked");
        n.engine.process(join(onN, room, "on-n"));
        await(() -> n.of(onN).stream().anyMatch(x -> x.contains("code=\"110\"")), "listener on N joined");

        int killAt = 300;
        int sent = 0;
        long switchedAt = 0;
        // bounded: at most 5,000 messages about 2 ms apart; until 1 s after A saw the crash
        for (int m = 0; m < 5000; m++) {
            if (m == killAt) {
                o.transport.terminate();
                nodes.remove(o);
            }
            a.engine.process(groupchat(sender, r, "t|" + m, "t" + m));
            sent = m + 1;
            if (m > killAt && switchedAt == 0 && a.engine.cluster().members().size() == 2) {
                switchedAt = System.nanoTime();
            }
            if (switchedAt != 0 && System.nanoTime() - switchedAt > 1_000_000_000L) {
                break;
            }
            Thread.sleep(2);
        }
        assertThat(switchedAt).as("A saw the crash").isNotZero();
        int last = sent - 1;
        try {
            await(() -> numbers(n, onN).contains(last), "the last message on N");
        } catch (AssertionError timedOut) {
            // the comparison below shows what arrived
        }
        Map<Integer, Integer> copies = new HashMap<>();
        for (int x : numbers(n, onN)) {
            copies.merge(x, 1, Integer::sum);
        }
        copies.values().removeIf(c -> c == 1);
        // each copy's room-assigned stanza-id: two ids mean the room accepted the message twice
        List<String> copyIds = new ArrayList<>();
        for (String x : n.of(onN)) {
            Matcher m = BODY.matcher(x);
            Matcher sid = STANZA_ID.matcher(x);
            if (x.startsWith("<message") && m.find() && copies.containsKey(Integer.parseInt(m.group(1)))) {
                copyIds.add(m.group(1) + " as " + (sid.find() ? sid.group(1) : "?"));
            }
        }
        assertThat(copies).as("messages the listener on N got more than once (message: copies); copies %s", copyIds)
                .isEmpty();
    }

    private static List<Integer> numbers(ClusterEnginesTest.Node node, String jid) {
        List<Integer> out = new ArrayList<>();
        for (String x : node.of(jid)) {
            Matcher m = BODY.matcher(x);
            if (x.startsWith("<message") && m.find()) {
                out.add(Integer.parseInt(m.group(1)));
            }
        }
        return out;
    }
}
