package org.mucscale.engine.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.muc.Affiliation;
import org.mucscale.engine.muc.RoomImage;
import org.mucscale.engine.muc.Role;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/** A room's occupants in slots of their own: each image writes only what changed since the last one. */
class OccupantSlotsTest {
    private static final Jid ROOM = Jid.parse("room@muc.example.org");

    /** What one diff wrote. */
    static final class Recorded implements OccupantSlots.Changes {
        final Map<String, byte[]> puts = new LinkedHashMap<>();
        final Set<String> removals = new HashSet<>();

        @Override
        public void put(String key, byte[] value) {
            removals.remove(key);
            puts.put(key, value);
        }

        @Override
        public void remove(String key) {
            puts.remove(key);
            removals.add(key);
        }

        int bytes() {
            return puts.values().stream().mapToInt(b -> b.length).sum();
        }
    }

    private static RoomImage.OccupantImage occupant(int i, XmlElement presence) {
        return new RoomImage.OccupantImage("nick" + i, Jid.parse("u" + i + "@example.org/r"), Role.PARTICIPANT,
                Affiliation.NONE, presence, "oid-" + i, "node-a");
    }

    private static final XmlElement AVAILABLE = XmlElement.builder("presence").build();

    private static List<RoomImage.OccupantImage> occupants(int from, int to) {
        List<RoomImage.OccupantImage> out = new ArrayList<>();
        for (int i = from; i < to; i++) {
            out.add(occupant(i, AVAILABLE));
        }
        return out;
    }

    private static Recorded diff(OccupantSlots slots, List<RoomImage.OccupantImage> occupants) {
        Recorded r = new Recorded();
        slots.diff(occupants, r);
        return r;
    }

    /** The map a sequence of diffs leaves behind, read back as the next owner reads it. */
    private static List<RoomImage.OccupantImage> readBack(Map<String, byte[]> map) {
        int[] slots = RoomImages.decodeSlots(map.get(OccupantSlots.slotsKey(ROOM)));
        List<RoomImage.OccupantImage> out = new ArrayList<>();
        for (int s : slots) {
            out.add(RoomImages.decodeOccupant(map.get(OccupantSlots.occupantKey(ROOM, s))));
        }
        return out;
    }

    private static void apply(Map<String, byte[]> map, Recorded r) {
        r.removals.forEach(map::remove);
        map.putAll(r.puts);
    }

    @Test
    void firstImage_writesEveryOccupantAndTheSlotList() {
        Recorded r = diff(new OccupantSlots(ROOM), occupants(0, 3));
        assertThat(r.puts).containsOnlyKeys("room@muc.example.org#0", "room@muc.example.org#1",
                "room@muc.example.org#2", "room@muc.example.org#");
        assertThat(r.removals).isEmpty();
    }

    @Test
    void sameOccupantsAgain_writeNothing() {
        OccupantSlots slots = new OccupantSlots(ROOM);
        List<RoomImage.OccupantImage> list = occupants(0, 5);
        diff(slots, list);
        Recorded again = diff(slots, occupants(0, 5)); // new records, same fields and presence element
        assertThat(again.puts).isEmpty();
        assertThat(again.removals).isEmpty();
    }

    @Test
    void joinIntoALargeRoom_writesOneOccupantAndTheSlotList_notTheRoom() {
        OccupantSlots slots = new OccupantSlots(ROOM);
        Recorded first = diff(slots, occupants(0, 427));
        Recorded join = diff(slots, occupants(0, 428));
        assertThat(join.puts).containsOnlyKeys("room@muc.example.org#427", "room@muc.example.org#");
        // the whole room was about 30 kB here; the join writes one occupant and 2 bytes per slot
        assertThat(join.bytes()).isLessThan(first.bytes() / 20);
    }

    @Test
    void presenceOrRoleChange_writesThatOccupantOnly() {
        OccupantSlots slots = new OccupantSlots(ROOM);
        diff(slots, occupants(0, 4));
        List<RoomImage.OccupantImage> changed = occupants(0, 4);
        changed.set(1, occupant(1, XmlElement.builder("presence").textChild("show", "away").build()));
        RoomImage.OccupantImage o2 = changed.get(2);
        changed.set(2, new RoomImage.OccupantImage(o2.nick(), o2.realJid(), Role.MODERATOR, o2.affiliation(),
                o2.presence(), o2.occupantId(), o2.node()));
        Recorded r = diff(slots, changed);
        assertThat(r.puts).containsOnlyKeys("room@muc.example.org#1", "room@muc.example.org#2");
    }

    @Test
    void leave_removesItsSlot_andTheNextJoinReusesIt() {
        OccupantSlots slots = new OccupantSlots(ROOM);
        diff(slots, occupants(0, 4));
        List<RoomImage.OccupantImage> without1 = new ArrayList<>(occupants(0, 4));
        without1.remove(1);
        Recorded leave = diff(slots, without1);
        assertThat(leave.removals).containsExactly("room@muc.example.org#1");
        assertThat(leave.puts).containsOnlyKeys("room@muc.example.org#");
        List<RoomImage.OccupantImage> joined = new ArrayList<>(without1);
        joined.add(occupant(9, AVAILABLE));
        Recorded join = diff(slots, joined);
        assertThat(join.puts).containsOnlyKeys("room@muc.example.org#1", "room@muc.example.org#");
        assertThat(slots.usedSlots()).containsExactly(0, 1, 2, 3);
    }

    @Test
    void anySequenceOfChanges_leavesTheMapHoldingExactlyTheOccupants() {
        java.util.Random random = new java.util.Random(7);
        OccupantSlots slots = new OccupantSlots(ROOM);
        Map<String, byte[]> map = new java.util.HashMap<>();
        Map<Integer, RoomImage.OccupantImage> present = new LinkedHashMap<>();
        for (int round = 0; round < 2_000; round++) {
            int who = random.nextInt(60);
            if (present.containsKey(who) && random.nextBoolean()) {
                present.remove(who);
            } else {
                present.put(who, occupant(who, random.nextInt(4) == 0
                        ? XmlElement.builder("presence").textChild("status", "r" + round).build() : AVAILABLE));
            }
            apply(map, diff(slots, new ArrayList<>(present.values())));
            List<RoomImage.OccupantImage> read = readBack(map);
            assertThat(read).as("round %d", round).containsExactlyInAnyOrderElementsOf(present.values().stream()
                    .map(o -> RoomImages.decodeOccupant(RoomImages.encode(o))).toList());
            // nothing else of this room's is left in the map
            assertThat(map).hasSize(present.size() + 1);
        }
    }

    @Test
    void seed_thenTheSameOccupants_writeNothing_andChangesContinueInTheSeededSlots() {
        OccupantSlots first = new OccupantSlots(ROOM);
        Map<String, byte[]> map = new java.util.HashMap<>();
        List<RoomImage.OccupantImage> list = new ArrayList<>(occupants(0, 6));
        apply(map, diff(first, list));
        list.remove(2);
        apply(map, diff(first, list)); // slot 2 is free now
        // another node takes the room over from the map
        int[] used = RoomImages.decodeSlots(map.get(OccupantSlots.slotsKey(ROOM)));
        List<RoomImage.OccupantImage> read = readBack(map);
        OccupantSlots next = new OccupantSlots(ROOM);
        next.seed(used, read);
        assertThat(diff(next, read).puts).isEmpty();
        List<RoomImage.OccupantImage> joined = new ArrayList<>(read);
        joined.add(occupant(7, AVAILABLE));
        Recorded join = diff(next, joined);
        assertThat(join.puts).containsOnlyKeys("room@muc.example.org#2", "room@muc.example.org#");
    }

    @Test
    void removeAll_removesEveryKeyOfTheRoom() {
        OccupantSlots slots = new OccupantSlots(ROOM);
        Map<String, byte[]> map = new java.util.HashMap<>();
        apply(map, diff(slots, occupants(0, 5)));
        Recorded r = new Recorded();
        slots.removeAll(r);
        apply(map, r);
        assertThat(map).isEmpty();
    }

    @Test
    void occupantAndSlotCodecs_roundTrip_andRefuseTruncation() {
        RoomImage.OccupantImage o = occupant(3, XmlElement.builder("presence").textChild("show", "dnd").build());
        byte[] b = RoomImages.encode(o);
        RoomImage.OccupantImage back = RoomImages.decodeOccupant(b);
        assertThat(back.nick()).isEqualTo("nick3");
        assertThat(back.realJid()).isEqualTo(o.realJid());
        assertThat(back.presence().childText("show")).isEqualTo("dnd");
        assertThat(back.occupantId()).isEqualTo("oid-3");
        assertThat(back.node()).isEqualTo("node-a");
        assertThat(RoomImages.decodeSlots(RoomImages.encodeSlots(new int[] {0, 5, 300, Integer.MAX_VALUE})))
                .containsExactly(0, 5, 300, Integer.MAX_VALUE);
        for (int cut = 0; cut < b.length; cut++) {
            byte[] part = java.util.Arrays.copyOf(b, cut);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> RoomImages.decodeOccupant(part))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }
}
