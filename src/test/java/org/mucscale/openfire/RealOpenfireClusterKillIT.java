package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.mucscale.openfire.RealOpenfireClusterIT.SERVICE;
import static org.mucscale.openfire.RealOpenfireClusterIT.connect;
import static org.mucscale.openfire.RealOpenfireClusterIT.node1;
import static org.mucscale.openfire.RealOpenfireClusterIT.node2;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
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
import org.mucscale.openfire.RealOpenfireClusterIT.Occupant;

/**
 * Issue 42, item 1, inside a live two-node Openfire 5.1.1 cluster (the set-up of {@link RealOpenfireClusterIT}, same
 * system properties; a class of its own so that its cluster is fresh and node 2 needs no restart): one room with
 * {@value #PER_NODE} users on each node, each its own account, then node 2's Openfire killed with SIGKILL. Checks:
 * <ul>
 *   <li>each of node 1's occupants gets exactly one unavailable presence per occupant of node 2, carrying status 333,
 *       and none for anybody else: Openfire's own clean-up on node 1 also sends the room an unavailable presence from
 *       each dead user (PresenceUpdateHandler's directed presences), which must not show up as a second departure;</li>
 *   <li>no WARN or ERROR of ours in either log (node 2's ends at the kill), and none from Openfire's routing on node 1
 *       since the kill: "Primary packet routing failed" (RoutingTableImpl) and the hazelcast plugin's "Requested node
 *       … not found in cluster" are what a packet addressed to a session of the dead node produces. Before the
 *       one-step removal each departed occupant's presence went to the others still waiting to be removed, about
 *       PER_NODE²/2 such lines;</li>
 *   <li>the room still works: a message of one survivor reaches the other {@value #PER_NODE} - 1 once.</li>
 * </ul>
 */
class RealOpenfireClusterKillIT {
    static final int PER_NODE = 100;
    private static final Pattern STATUS_CODE = Pattern.compile("<status code=['\"](\\d+)['\"]");
    /** What Openfire and its hazelcast plugin log when a packet is routed to a node that is gone. */
    private static final List<String> DEAD_NODE_ROUTING = List.of("RoutingTableImpl", "ClusterPacketRouter",
            "not found in cluster", "Primary packet routing failed");

    @BeforeAll
    static void startCluster() throws Exception {
        List<String> users = new ArrayList<>();
        for (int i = 0; i < PER_NODE; i++) {
            users.add("w" + i);
            users.add("e" + i);
        }
        RealOpenfireClusterIT.startCluster(users);
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

    /** One occupant on node 1: its room, and every unavailable presence from the room, as status codes by nick. */
    record Survivor(Occupant occupant, Map<String, List<String>> leaves, AtomicLong lastLeaveNanos) {
        static Survivor join(XMPPTCPConnection c, String room, String nick, boolean create) throws Exception {
            Map<String, List<String>> leaves = new ConcurrentHashMap<>();
            AtomicLong last = new AtomicLong();
            c.addStanzaListener(stanza -> {
                Presence p = (Presence) stanza;
                if (p.getType() == Presence.Type.unavailable) {
                    List<String> codes = new ArrayList<>();
                    Matcher m = STATUS_CODE.matcher(p.toXML().toString());
                    while (m.find()) {
                        codes.add(m.group(1));
                    }
                    leaves.computeIfAbsent(p.getFrom().getResourceOrEmpty().toString(),
                            k -> new CopyOnWriteArrayList<>()).add(String.join(",", codes));
                    last.set(System.nanoTime());
                }
            }, new AndFilter(FromMatchesFilter.create(JidCreate.entityBareFrom(room)), StanzaTypeFilter.PRESENCE));
            Occupant o = create ? Occupant.create(c, room, nick) : Occupant.join(c, room, nick);
            return new Survivor(o, leaves, last);
        }
    }

    @Test
    void node2Killed_roomWithHundredUsersOnEachNode_oneStatus333PerDepartedOccupant_noRoutingErrors_roomWorks()
            throws Exception {
        String room = "kill-100@" + SERVICE;
        List<Survivor> west = new ArrayList<>();
        west.add(Survivor.join(connect(node1, "w0"), room, "west0", true));
        // a few threads connect and join in parallel: 200 logins one after the other take minutes on 2 cores
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            west.addAll(all(pool, IntStream.range(1, PER_NODE).mapToObj(i -> (Callable<Survivor>) () ->
                    Survivor.join(connect(node1, "w" + i), room, "west" + i, false)).toList()));
            all(pool, IntStream.range(0, PER_NODE).mapToObj(i -> (Callable<Occupant>) () ->
                    Occupant.join(connect(node2, "e" + i), room, "east" + i)).toList());
        } finally {
            pool.shutdownNow();
        }
        node1.waitUntil("every occupant of node 1 to see all " + 2 * PER_NODE, Duration.ofSeconds(60),
                () -> west.stream().allMatch(s -> s.occupant().muc().getOccupantsCount() == 2 * PER_NODE));
        assertThat(west).allSatisfy(s -> assertThat(s.leaves()).as("nobody left before the kill").isEmpty());
        int node1LinesAtKill = node1.logLines().size();

        long killedAt = System.nanoTime();
        assertThat(node2.process.destroyForcibly().waitFor(30, TimeUnit.SECONDS)).isTrue(); // SIGKILL: no goodbye
        node1.waitUntil("node 1 to see node 2 leave", Duration.ofSeconds(60),
                () -> node1.countInLog("Firing left cluster event for another node:" + node2.nodeId) >= 1);
        long leftAt = System.nanoTime();
        node1.waitUntil("every survivor told of every departure", Duration.ofSeconds(60),
                () -> west.stream().allMatch(s -> s.leaves().size() >= PER_NODE));
        Thread.sleep(3_000); // a second presence for a nick, or one for a survivor, would have arrived by now
        long firstDone = west.stream().mapToLong(s -> s.lastLeaveNanos().get()).min().orElseThrow();
        long lastDone = west.stream().mapToLong(s -> s.lastLeaveNanos().get()).max().orElseThrow();
        List<String> node1Log = node1.logLines();
        List<String> sinceKill = node1Log.subList(node1LinesAtKill, node1Log.size());
        List<String> warnings = sinceKill.stream().filter(l -> l.contains(" WARN ") || l.contains(" ERROR "))
                .toList();
        List<String> deadNodeRouting = warnings.stream()
                .filter(l -> DEAD_NODE_ROUTING.stream().anyMatch(l::contains)).toList();
        System.out.println("RealOpenfireClusterKillIT: node 1 saw node 2 leave " + ms(leftAt - killedAt)
                + " ms after the kill; the last of its " + PER_NODE + " occupants had all " + PER_NODE
                + " departures after " + ms(lastDone - killedAt) + " ms (the first after " + ms(firstDone - killedAt)
                + " ms); presences per survivor " + west.stream().map(s -> s.leaves().values().stream()
                .mapToInt(List::size).sum()).distinct().toList() + "; node 1's WARN/ERROR lines since the kill ("
                + warnings.size() + "):\n  " + String.join("\n  ", warnings) + "\nour lines in the view change:\n  "
                + String.join("\n  ", sinceKill.stream().filter(l -> l.contains("org.mucscale.")).toList()));

        for (Survivor s : west) {
            String me = s.occupant().muc().getNickname().toString();
            assertThat(s.leaves().keySet()).as("%s: one departure per occupant of node 2, nobody else", me)
                    .containsExactlyInAnyOrderElementsOf(IntStream.range(0, PER_NODE).mapToObj(i -> "east" + i)
                            .toList());
            assertThat(s.leaves()).as("%s: each departure once, as removed by a technical problem (333)", me)
                    .allSatisfy((nick, codes) -> assertThat(codes).as(nick).containsExactly("333"));
        }
        assertThat(deadNodeRouting).as("packets Openfire tried to route to the dead node").isEmpty();

        long sentAt = System.nanoTime();
        west.get(0).occupant().muc().sendMessage("after the kill 0");
        for (Survivor s : west.subList(1, west.size())) {
            s.occupant().expectInOrder("west0", "after the kill ", 1);
        }
        System.out.println("RealOpenfireClusterKillIT: a message after the kill reached the other " + (PER_NODE - 1)
                + " in " + ms(System.nanoTime() - sentAt) + " ms");
        Thread.sleep(1_000);
        for (Survivor s : west.subList(1, west.size())) {
            assertThat(s.occupant().inbox()).as("nothing twice").isEmpty();
        }
        // both whole logs last, so that one run reports every check above (node 2's ends at the kill)
        List<String> ours = new ArrayList<>();
        node1.ourWarningsAndErrors().forEach(l -> ours.add("node 1: " + l));
        node2.ourWarningsAndErrors().forEach(l -> ours.add("node 2: " + l));
        assertThat(ours).as("WARN/ERROR lines of ours").isEmpty();
    }

    private static <T> List<T> all(ExecutorService pool, List<Callable<T>> tasks) throws Exception {
        List<T> out = new ArrayList<>();
        for (Future<T> f : pool.invokeAll(tasks, 5, TimeUnit.MINUTES)) {
            out.add(f.get());
        }
        return out;
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
