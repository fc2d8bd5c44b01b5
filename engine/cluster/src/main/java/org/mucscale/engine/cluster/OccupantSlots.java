package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.mucscale.engine.muc.RoomImage;
import org.mucscale.engine.stanza.Jid;

/**
 * Where one room's occupants are stored in the replicated {@code occupants} map: each occupant in a slot of its own
 * ({@code room#slot}), plus the list of used slots ({@code room#}). A room image is written when anything in the room
 * changes; with everyone in one entry, a join into a room of 400 rewrote all 400 occupants. Here only what changed is
 * written: the joining occupant's slot and the slot list (a few bytes per occupant).
 *
 * <p>Used by the room's owner thread only (its images are diffed against what was last written); a node that takes
 * a room over starts from what it read ({@link #seed}).
 */
final class OccupantSlots {
    /** Entries to write and remove, as the diff of one image against the last one written. */
    interface Changes {
        void put(String key, byte[] value);

        void remove(String key);
    }

    private final Jid room;
    private final Map<Jid, Integer> slotOf = new HashMap<>();
    /** Per slot: what was written last (null: free). */
    private final List<RoomImage.OccupantImage> written = new ArrayList<>();
    private final List<Integer> free = new ArrayList<>();
    private byte[] writtenSlots;

    OccupantSlots(Jid room) {
        this.room = Objects.requireNonNull(room);
    }

    static String slotsKey(Jid room) {
        return room + "#";
    }

    static String occupantKey(Jid room, int slot) {
        return room + "#" + slot;
    }

    /** Writes what differs between {@code occupants} and what was written last. */
    void diff(List<RoomImage.OccupantImage> occupants, Changes out) {
        Map<Jid, Integer> before = new HashMap<>(slotOf);
        for (RoomImage.OccupantImage o : occupants) {
            Integer slot = before.remove(o.realJid());
            if (slot == null) {
                slot = free.isEmpty() ? written.size() : free.remove(free.size() - 1);
                if (slot == written.size()) {
                    written.add(null);
                }
                slotOf.put(o.realJid(), slot);
            }
            if (!same(written.get(slot), o)) {
                out.put(occupantKey(room, slot), RoomImages.encode(o));
                written.set(slot, o);
            }
        }
        for (Map.Entry<Jid, Integer> gone : before.entrySet()) {
            int slot = gone.getValue();
            slotOf.remove(gone.getKey());
            written.set(slot, null);
            free.add(slot);
            out.remove(occupantKey(room, slot));
        }
        byte[] slots = RoomImages.encodeSlots(usedSlots());
        if (!Arrays.equals(slots, writtenSlots)) {
            out.put(slotsKey(room), slots);
            writtenSlots = slots;
        }
    }

    /** Every key this room has in the map (when the room is removed). */
    void removeAll(Changes out) {
        for (int slot : usedSlots()) {
            out.remove(occupantKey(room, slot));
        }
        out.remove(slotsKey(room));
        slotOf.clear();
        written.clear();
        free.clear();
        writtenSlots = null;
    }

    /** Starts from what another owner wrote: occupants by slot, as read from the map. */
    void seed(int[] slots, List<RoomImage.OccupantImage> occupants) {
        slotOf.clear();
        written.clear();
        free.clear();
        int max = -1;
        for (int s : slots) {
            max = Math.max(max, s);
        }
        for (int i = 0; i <= max; i++) {
            written.add(null);
        }
        for (int i = 0; i < slots.length; i++) {
            RoomImage.OccupantImage o = occupants.get(i);
            if (o != null) {
                written.set(slots[i], o);
                slotOf.put(o.realJid(), slots[i]);
            }
        }
        for (int i = max; i >= 0; i--) {
            if (written.get(i) == null) {
                free.add(i);
            }
        }
        writtenSlots = RoomImages.encodeSlots(usedSlots());
    }

    int[] usedSlots() {
        int[] out = new int[slotOf.size()];
        int n = 0;
        for (int i = 0; i < written.size(); i++) {
            if (written.get(i) != null) {
                out[n++] = i;
            }
        }
        return out;
    }

    /** Whether {@code now} needs no write: equal fields, and the very presence element written (rooms reuse it). */
    private static boolean same(RoomImage.OccupantImage last, RoomImage.OccupantImage now) {
        return last != null && last.presence() == now.presence() && last.role() == now.role()
                && last.affiliation() == now.affiliation() && last.nick().equals(now.nick())
                && Objects.equals(last.occupantId(), now.occupantId()) && Objects.equals(last.node(), now.node());
    }
}
