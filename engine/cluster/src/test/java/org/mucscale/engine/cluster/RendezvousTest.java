package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Room ownership by rendezvous hashing. Invariants pinned here: the owner is a pure function of the room and the
 * member <em>set</em>; rooms spread evenly; removing a node moves only its rooms (each to its second choice); adding
 * one moves only rooms to the new node (about 1/n of them); and the hash is stable across JVMs and versions (golden
 * values computed by an independent implementation of FNV-1a + SplitMix64).
 */
class RendezvousTest {
    private static final int ROOMS = 10_000;

    private static List<String> rooms() {
        List<String> rooms = new ArrayList<>(ROOMS);
        for (int i = 0; i < ROOMS; i++) {
            rooms.add("room-" + i + "@conference.example.org");
        }
        return rooms;
    }

    private static List<String> nodes(int n) {
        List<String> nodes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            nodes.add("node-" + (char) ('a' + i));
        }
        return nodes;
    }

    /** The members ranked for {@code room}, best first: the definition the class documents, scored independently. */
    private static List<String> ranking(String room, List<String> members) {
        List<String> ranked = new ArrayList<>(members);
        ranked.sort((x, y) -> {
            int c = Long.compareUnsigned(score(room, y), score(room, x));
            return c != 0 ? c : x.compareTo(y);
        });
        return ranked;
    }

    private static long score(String room, String member) {
        return Rendezvous.mix(Rendezvous.hash(room) ^ Rendezvous.hash(member));
    }

    @Test
    void owner_emptyMembers_null() {
        assertThat(Rendezvous.owner("room@conference.example.org", List.of())).isNull();
        assertThat(Rendezvous.owner("", List.of())).isNull();
    }

    @Test
    void owner_singleMember_thatMember() {
        for (String room : rooms().subList(0, 500)) {
            assertThat(Rendezvous.owner(room, List.of("only"))).isEqualTo("only");
        }
        assertThat(Rendezvous.owner("", List.of("only"))).isEqualTo("only");
    }

    @Test
    void owner_duplicateMember_sameOwnerAsWithoutDuplicate() {
        List<String> members = nodes(3);
        List<String> doubled = new ArrayList<>(members);
        doubled.addAll(members);
        for (String room : rooms().subList(0, 2_000)) {
            assertThat(Rendezvous.owner(room, doubled)).isEqualTo(Rendezvous.owner(room, members));
        }
    }

    @Test
    void owner_repeatedCallsAndShuffledMemberLists_sameOwner() {
        List<String> members = nodes(5);
        Random random = new Random(42);
        Map<String, String> first = new HashMap<>();
        for (String room : rooms()) {
            first.put(room, Rendezvous.owner(room, members));
        }
        for (int round = 0; round < 10; round++) {
            List<String> shuffled = new ArrayList<>(members);
            Collections.shuffle(shuffled, random);
            for (String room : rooms()) {
                assertThat(Rendezvous.owner(room, shuffled)).as("%s under %s", room, shuffled)
                        .isEqualTo(first.get(room));
            }
        }
        List<String> reversed = new ArrayList<>(members);
        Collections.reverse(reversed);
        for (String room : rooms()) {
            assertThat(Rendezvous.owner(room, reversed)).isEqualTo(first.get(room));
        }
    }

    @Test
    void owner_everyRoom_isTheHighestUnsignedScore() {
        List<String> members = nodes(5);
        for (String room : rooms()) {
            assertThat(Rendezvous.owner(room, members)).isEqualTo(ranking(room, members).get(0));
        }
    }

    /** Golden values from an independent implementation: a change here breaks rolling upgrades (nodes disagree). */
    @Test
    void hash_knownVectors_fnv1a64OverUtf8() {
        assertThat(Rendezvous.hash("")).isEqualTo(0xcbf29ce484222325L);
        assertThat(Rendezvous.hash("a")).isEqualTo(0xaf63dc4c8601ec8cL);
        assertThat(Rendezvous.hash("foobar")).isEqualTo(0x85944171f73967e8L);
        assertThat(Rendezvous.hash("é")).isEqualTo(0x0ac21707b7181e01L);
        assertThat(Rendezvous.hash("😀")).isEqualTo(0xfeff073875020288L);
    }

    @Test
    void mix_knownVectors_splitMix64Finalizer() {
        assertThat(Rendezvous.mix(0)).isZero();
        assertThat(Rendezvous.mix(1)).isEqualTo(0x5692161d100b05e5L);
        assertThat(Rendezvous.mix(Long.MIN_VALUE)).isEqualTo(0x25c26ea579cea98aL);
    }

    @Test
    void owner_knownRooms_goldenOwners() {
        List<String> members = List.of("node-a", "node-b", "node-c");
        assertThat(Rendezvous.owner("lobby@conference.example.org", members)).isEqualTo("node-c");
        assertThat(Rendezvous.owner("room-1@muc.example.com", members)).isEqualTo("node-b");
        assertThat(Rendezvous.owner("café@muc.example.com", members)).isEqualTo("node-b");
        // node-b scores 0xf0f0.. (negative as a signed long) against node-a's 0x708a..: the comparison is unsigned
        assertThat(Rendezvous.owner("x@y", members)).isEqualTo("node-b");
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5})
    void owner_10000Rooms_evenWithinTenPercent(int n) {
        List<String> members = nodes(n);
        Map<String, Integer> counts = new HashMap<>();
        for (String room : rooms()) {
            counts.merge(Rendezvous.owner(room, members), 1, Integer::sum);
        }
        assertThat(counts.keySet()).containsExactlyInAnyOrderElementsOf(members);
        double even = (double) ROOMS / n;
        for (String m : members) {
            assertThat((double) counts.get(m)).as("rooms on %s of %s: %s", m, n, counts)
                    .isCloseTo(even, within(even * 0.10));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5})
    void owner_nodeRemoved_onlyItsRoomsMove_eachToItsSecondRanked(int n) {
        List<String> members = nodes(n);
        for (String leaving : members) {
            List<String> rest = new ArrayList<>(members);
            rest.remove(leaving);
            int moved = 0;
            for (String room : rooms()) {
                String before = Rendezvous.owner(room, members);
                String after = Rendezvous.owner(room, rest);
                if (before.equals(leaving)) {
                    moved++;
                    assertThat(after).as("%s left by %s", room, leaving)
                            .isEqualTo(ranking(room, members).get(1));
                } else {
                    assertThat(after).as("%s owned by %s, %s left", room, before, leaving).isEqualTo(before);
                }
            }
            assertThat(moved).isPositive();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4})
    void owner_nodeAdded_onlyRoomsToTheNewNodeMove_aboutOneInN(int n) {
        List<String> members = nodes(n);
        List<String> grown = new ArrayList<>(members);
        grown.add("node-new");
        Collections.shuffle(grown, new Random(n));
        int moved = 0;
        for (String room : rooms()) {
            String before = Rendezvous.owner(room, members);
            String after = Rendezvous.owner(room, grown);
            if (!after.equals(before)) {
                moved++;
                assertThat(after).as("%s moved from %s", room, before).isEqualTo("node-new");
            }
        }
        double expected = (double) ROOMS / (n + 1);
        assertThat((double) moved).isCloseTo(expected, within(expected * 0.10));
    }
}
