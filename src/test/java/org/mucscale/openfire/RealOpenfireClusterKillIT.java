package org.mucscale.openfire;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.openfire.RealOpenfireClusterIT.SERVICE;
import static org.mucscale.openfire.RealOpenfireClusterIT.connect;
import static org.mucscale.openfire.RealOpenfireClusterIT.node1;
import static org.mucscale.openfire.RealOpenfireClusterIT.node2;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.jivesoftware.smack.filter.AndFilter;
import org.jivesoftware.smack.filter.FromMatchesFilter;
import org.jivesoftware.smack.filter.StanzaTypeFilter;
import org.jivesoftware.smack.packet.Presence;
import org.jivesoftware.smack.tcp.XMPPTCPConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.jxmpp.jid.impl.JidCreate;

/**
 * Issue 42, item 1, inside a live two-node Openfire 5.1.1 cluster (the set-up of {@link RealOpenfireClusterIT}, same
 * system properties): a room with {@value #PER_NODE} occupants on each node, node 2 killed with SIGKILL. Each of node
 * 1's occupants must get exactly one unavailable presence with status 333 per occupant of node 2, and neither log may
 * hold a WARN or ERROR from mucscale's paths, nor Openfire's "Primary packet routing failed" (a packet routed to the
 * dead node). Before the one-step removal, each departed occupant's unavailable presence went to the others still
 * waiting to be removed, through Openfire's routing to the dead node: about PER_NODE²/2 such ERROR lines.
 */
class RealOpenfireClusterKillIT {
    static final int PER_NODE = 100;
    private static final Pattern STATUS_333 = Pattern.compile("code=['\"]333['\"]");

    @BeforeAll
    static void startCluster() throws Exception {
        RealOpenfireClusterIT.startCluster();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        RealOpenfireClusterIT.stopCluster();
    }

    /** Without an Openfire cluster each test is reported skipped with the reason (RealOpenfireSkipReportTest). */
    @BeforeEach
    void needsOpenfireCluster() {
        assumeTrue(RealOpenfireClusterIT.skipReason == null, RealOpenfireClusterIT.skipReason);
    }

    @Test
    void node2Killed_roomWithHundredOccupantsOnEachNode_oneStatus333PerDepartedOccupantAndNoRoutingErrors()
            throws Exception {
        // one user per node joins with many resources: its per-user join budgets must allow that
        for (String key : List.of("mucscale.muc.occupant-join-burst", "mucscale.muc.user-join-burst")) {
            node1.get("/server-properties.jsp?searchPlugin=" + RealOpenfireIT.enc(MucScaleProperties.PLUGIN_NAME));
            node1.post("/server-properties.jsp", Map.of("csrf", node1.cookie("csrf"), "action", "save", "key", key,
                    "value", "1000", "searchName", ""));
            for (RealOpenfireClusterIT.Node n : List.of(node1, node2)) {
                n.waitUntil(key + " applied on " + n.nodeId, Duration.ofSeconds(30),
                        () -> n.countInLog(key + " set to 1000") >= 1);
            }
        }
        String room = "kill-100@" + SERVICE;
        XMPPTCPConnection alice = connect(node1, "alice");
        RealOpenfireClusterIT.Occupant.create(alice, room, "alice");
        List<Map<String, Integer>> seenBySurvivors = new ArrayList<>();
        for (int i = 0; i < PER_NODE; i++) {
            XMPPTCPConnection c = connect(node1, "carol");
            Map<String, Integer> seen = new ConcurrentHashMap<>();
            c.addAsyncStanzaListener(stanza -> {
                Presence p = (Presence) stanza;
                if (p.getType() == Presence.Type.unavailable && STATUS_333.matcher(p.toXML().toString()).find()) {
                    seen.merge(p.getFrom().getResourceOrEmpty().toString(), 1, Integer::sum);
                }
            }, new AndFilter(FromMatchesFilter.create(JidCreate.entityBareFrom(room)), StanzaTypeFilter.PRESENCE));
            RealOpenfireClusterIT.Occupant.join(c, room, "west" + i);
            seenBySurvivors.add(seen);
        }
        for (int i = 0; i < PER_NODE; i++) {
            RealOpenfireClusterIT.Occupant.join(connect(node2, "bob"), room, "east" + i);
        }
        int routingFailuresBefore = node1.countInLog("Primary packet routing failed");
        int notFoundBefore = node1.countInLog("not found in cluster");

        long t0 = System.nanoTime();
        node2.process.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL: no goodbye
        node1.waitUntil("node 1 to see node 2 leave", Duration.ofSeconds(60),
                () -> node1.countInLog("Firing left cluster event for another node:" + node2.nodeId) >= 1);
        node1.waitUntil("every survivor told of every departure", Duration.ofSeconds(60),
                () -> seenBySurvivors.stream().allMatch(s -> s.size() >= PER_NODE));
        long removedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        Thread.sleep(3_000); // anything more would have arrived by now
        int routingFailures = node1.countInLog("Primary packet routing failed") - routingFailuresBefore;
        int notFound = node1.countInLog("not found in cluster") - notFoundBefore;
        System.out.println("RealOpenfireClusterKillIT: every survivor saw " + PER_NODE + " departures " + removedMs
                + " ms after the kill; node 1 logged " + routingFailures + " routing failures and " + notFound
                + " 'not found in cluster' lines since the kill");

        for (int i = 0; i < PER_NODE; i++) {
            Map<String, Integer> seen = seenBySurvivors.get(i);
            assertThat(seen).as("west%d: one 333 per occupant of node 2", i).hasSize(PER_NODE)
                    .allSatisfy((nick, count) -> assertThat(count).as(nick).isEqualTo(1));
            assertThat(seen.keySet()).allMatch(nick -> nick.startsWith("east"));
        }
        assertThat(routingFailures).as("packets Openfire tried to route to the dead node").isZero();
        assertThat(node1.ourWarningsAndErrors()).isEmpty();
        assertThat(node2.ourWarningsAndErrors()).isEmpty();
    }
}
