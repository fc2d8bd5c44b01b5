package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule that keeps a sender's order across a graceful leave (F1), on one node's {@link StragglerHold} with the
 * messages as {@link Wire} decodes them: as the new owner N (a room moved from leaving L to N; E is the entry node),
 * as the leaving node and as the entry node. The three-engine case is {@code GracefulLeaveStragglerOrderTest}.
 */
class StragglerHoldTest {
    private static final String L = "node-l";
    private static final String E = "node-e";
    private static final String N = "node-n";
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(2);
    private static final long RUN = 77;

    private final AtomicLong clock = new AtomicLong(1_000);
    private final List<String> members = new ArrayList<>(List.of(E, N)); // N's view once L announced its leave
    private final Set<String> readsPassed = new HashSet<>(Set.of(L, E, N));
    private final List<String> handedOn = new ArrayList<>();
    private final List<String> sent = new ArrayList<>();
    private final CompletableFuture<Void> roomThreads = new CompletableFuture<>();
    private final AtomicInteger givenUp = new AtomicInteger();
    private long seq;

    private StragglerHold hold(String local) {
        return new StragglerHold(local, TIMEOUT, clock::get, () -> List.copyOf(members), readsPassed::contains,
                h -> handedOn.add(h.fromNode() + ":" + h.message().stanza().attribute("id")),
                (node, entry) -> sent.add("PASSED(" + entry + ") to " + node), () -> roomThreads,
                new ClusterListener() {
                    @Override
                    public void stragglerHoldGivenUp(int forwards) {
                        givenUp.addAndGet(forwards);
                    }
                });
    }

    /** A room that rendezvous gives to {@code with} among E, N, L and to {@code without} among the rest. */
    private static Jid room(String with, String without) {
        for (int i = 0; ; i++) {
            String r = "room-" + i + "@conference.example.org";
            if (with.equals(Rendezvous.owner(r, List.of(E, N, L)))
                    && without.equals(Rendezvous.owner(r, List.of(E, N)))) {
                return Jid.parse(r);
            }
        }
    }

    private Wire.Message forward(Jid room, String id, boolean resent) {
        XmlElement stanza = XmlElement.builder("message", "jabber:client").attribute("id", id)
                .attribute("type", "groupchat").build();
        return Wire.decode(Wire.forward(5, ++seq, room, E, 0, resent, stanza));
    }

    @Test
    void newOwner_holdsTheEntryNodesForwardsForARoomFromTheLeavingNode_untilItsPassed_thenInArrivalOrder() {
        StragglerHold h = hold(N);
        Jid moved = room(L, N);
        h.leaving(L, RUN);
        assertThat(h.hold(E, forward(moved, "e1", false))).isTrue();
        assertThat(h.hold(E, forward(moved, "e2", false))).isTrue();
        assertThat(h.hold(L, forward(moved, "straggler", false))).as("the leaving node's own").isFalse();
        assertThat(handedOn).isEmpty();

        h.passed(L, RUN, E);
        assertThat(handedOn).containsExactly(E + ":e1", E + ":e2");
        assertThat(h.hold(E, forward(moved, "e3", false))).as("after the word").isFalse();
        assertThat(givenUp).hasValue(0);
    }

    @Test
    void newOwner_holdsNothingElse() {
        StragglerHold h = hold(N);
        assertThat(h.hold(E, forward(room(L, N), "before", false))).as("before the leave").isFalse();
        h.leaving(L, RUN);
        assertThat(h.hold(E, forward(room(E, E), "stayed", false))).as("a room that did not move").isFalse();
        assertThat(h.hold(E, forward(room(L, E), "elsewhere", false))).as("a room that moved elsewhere").isFalse();
        assertThat(h.hold(E, forward(room(L, N), "resent", true))).as("a resend (the resend gate's)").isFalse();
        h.passed(L, RUN + 1, E); // another run's word
        assertThat(h.hold(E, forward(room(L, N), "other run", false))).isTrue();
    }

    @Test
    void newOwner_holdsNothingWhenTheLeavingNodeOrTheEntryNodeWouldNeverTell() {
        readsPassed.remove(L);
        StragglerHold h = hold(N);
        h.leaving(L, RUN);
        assertThat(h.hold(E, forward(room(L, N), "a", false))).isFalse();

        readsPassed.add(L);
        readsPassed.remove(E);
        StragglerHold h2 = hold(N);
        h2.leaving(L, RUN);
        assertThat(h2.hold(E, forward(room(L, N), "b", false))).isFalse();
    }

    @Test
    void newOwner_theWordBeforeTheLeaveIsHandled_isKept() {
        StragglerHold h = hold(N);
        h.passed(L, RUN, E); // on L's link after its LEAVING, which the cluster thread has not handled yet
        h.leaving(L, RUN);
        assertThat(h.hold(E, forward(room(L, N), "a", false))).isFalse();
    }

    @Test
    void newOwner_withoutTheWord_letsGoAfterTheTimeout_counted() {
        StragglerHold h = hold(N);
        h.leaving(L, RUN);
        Jid moved = room(L, N);
        h.hold(E, forward(moved, "e1", false));
        clock.addAndGet(TIMEOUT - 1);
        h.hold(E, forward(moved, "e2", false));
        h.releaseOverdue(clock.get());
        assertThat(handedOn).isEmpty();
        clock.addAndGet(1);
        h.releaseOverdue(clock.get());
        assertThat(handedOn).containsExactly(E + ":e1", E + ":e2");
        assertThat(givenUp).hasValue(2);
        assertThat(h.hold(E, forward(moved, "e3", false))).as("not waited for again in this leave").isFalse();
    }

    @Test
    void newOwner_letsGoWhenTheLeavingNodeIsNoLongerAMember() {
        StragglerHold h = hold(N);
        h.leaving(L, RUN);
        Jid moved = room(L, N);
        h.hold(E, forward(moved, "e1", false));
        h.retain(Set.of(L), List.of(L, E, N));
        assertThat(handedOn).isEmpty();
        h.retain(Set.of(), List.of(E, N));
        assertThat(handedOn).containsExactly(E + ":e1");
        assertThat(givenUp).hasValue(1);
        h.leaving(L, RUN + 1); // it comes back and leaves again: a new record
        assertThat(h.hold(E, forward(moved, "e2", false))).isTrue();
    }

    @Test
    void newOwner_confirmsTheEntryNodeOnlyUpToBeforeItsFirstHeldForward() {
        StragglerHold h = hold(N);
        h.leaving(L, RUN);
        Wire.Message first = forward(room(L, N), "e1", false);
        h.hold(E, first);
        h.hold(E, forward(room(L, N), "e2", false));
        Map<String, long[]> upTo = new HashMap<>();
        upTo.put(E, new long[] {5, first.seq() + 1});
        upTo.put(L, new long[] {9, 40});
        h.stopBeforeHeld(upTo);
        assertThat(upTo.get(E)).containsExactly(5, first.seq() - 1);
        assertThat(upTo.get(L)).containsExactly(9, 40);
    }

    @Test
    void leavingNode_passesTheWordOnToTheOthersAndTheEntryNode_onceItsRoomThreadsRanWhatWasQueued() {
        members.clear();
        members.addAll(List.of(L, E, N));
        StragglerHold h = hold(L);
        h.passed(E, 3, E);
        assertThat(sent).as("not before its room threads forwarded what they had").isEmpty();
        roomThreads.complete(null);
        // the entry node too (rule 4): rooms moving to it take its own users' later stanzas
        assertThat(sent).containsExactly("PASSED(" + E + ") to " + E, "PASSED(" + E + ") to " + N);
    }

    /** Rule 4: N is the entry node; what its own users send for a room from L waits for L's PASSED(N). */
    @Test
    void newOwnerAsEntryNode_holdsItsOwnUsersStanzasForARoomFromTheLeavingNode_untilThePassedNamingIt() {
        StragglerHold h = hold(N);
        List<String> placed = new ArrayList<>();
        Jid moved = room(L, N);
        assertThat(h.mayHoldEntering()).as("nothing open yet").isFalse();
        assertThat(h.holdEntering(moved, () -> placed.add("before"))).as("before the leave").isFalse();
        h.leaving(L, RUN);
        assertThat(h.mayHoldEntering()).isTrue();
        assertThat(h.holdEntering(moved, () -> placed.add("n1"))).isTrue();
        assertThat(h.holdEntering(moved, () -> placed.add("n2"))).isTrue();
        assertThat(h.holdEntering(room(E, E), () -> placed.add("stayed"))).as("a room that did not move").isFalse();
        assertThat(h.holdEntering(room(L, E), () -> placed.add("elsewhere"))).as("moved elsewhere").isFalse();
        h.passed(L, RUN, E); // the word for another entry node lets nothing of N's go
        assertThat(placed).isEmpty();

        h.passed(L, RUN, N);
        assertThat(placed).containsExactly("n1", "n2");
        assertThat(h.holdEntering(moved, () -> placed.add("n3"))).as("after the word").isFalse();
        assertThat(givenUp).hasValue(0);
    }

    @Test
    void newOwnerAsEntryNode_letsItsOwnUsersStanzasGoAtTheTimeout_andWhenTheLeaverNeverTells() {
        StragglerHold h = hold(N);
        List<String> placed = new ArrayList<>();
        h.leaving(L, RUN);
        h.holdEntering(room(L, N), () -> placed.add("n1"));
        clock.addAndGet(TIMEOUT - 1);
        h.releaseOverdue(clock.get());
        assertThat(placed).isEmpty();
        clock.addAndGet(1);
        h.releaseOverdue(clock.get());
        assertThat(placed).containsExactly("n1");
        assertThat(givenUp).hasValue(1);

        readsPassed.remove(L);
        StragglerHold silent = hold(N);
        silent.leaving(L, RUN);
        assertThat(silent.holdEntering(room(L, N), () -> placed.add("n2"))).isFalse();
    }

    @Test
    void entryNode_tellsTheLeavingNodeOnceRoutedAround_ifItReads() {
        StragglerHold h = hold(E);
        h.routedAround(L);
        assertThat(sent).containsExactly("PASSED(" + E + ") to " + L);
        readsPassed.remove(N);
        h.routedAround(N);
        assertThat(sent).hasSize(1);
    }
}
