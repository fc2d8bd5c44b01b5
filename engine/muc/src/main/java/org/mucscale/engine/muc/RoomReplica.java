package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * The cluster-facing side of a room: its image (what another node restores it from), its history as replicated tail
 * records, taking over a room another node served (adoption), and removing the sessions of a departed node as one
 * step. The protocol parts never call here; the shard and the service do, for replication and room moves
 * (docs/cluster.md).
 *
 * <p>Thread: owned by the room's shard thread ({@link RoomShard}); {@link #adopt} runs on the thread of the shard
 * that will own the room, before the room is reachable.
 */
final class RoomReplica {
    private final Room room;
    private final Jid jid;
    private final RoomShard shard;
    private final ServiceContext ctx;
    private final Occupants occupants;

    RoomReplica(Room room, RoomShard shard, Occupants occupants) {
        this.room = room;
        this.jid = room.jid;
        this.shard = shard;
        this.ctx = shard.ctx;
        this.occupants = occupants;
    }

    /** The room as another node would restore it (see {@link #adopt}). */
    RoomImage image() {
        List<RoomImage.OccupantImage> list = new ArrayList<>(occupants.count());
        for (int i = 0; i < occupants.count(); i++) {
            Occupant o = occupants.at(i);
            list.add(new RoomImage.OccupantImage(o.nick, o.realJid, o.role, o.affiliation, o.presence, o.occupantId,
                    ctx.placement.sessionNode(o.realJid)));
        }
        RoomSettings settings = room.settings();
        return new RoomImage(room.snapshot(), settings.persistent(), room.locked, settings.presenceBroadcastRoles(),
                room.messages.subjectMessage(), list, room.messages.tailSeq());
    }

    /** The occupants' real addresses now (a message the previous owner accepted is re-delivered to them). */
    List<Jid> occupantAddresses() {
        return occupants.addresses();
    }

    /** This room's history as tail records (when the room's state is first replicated, after a node joined). */
    List<TailRecord> historyAsTail() {
        List<TailRecord> out = new ArrayList<>(room.messages.history.size());
        long seq = room.messages.tailSeq() - room.messages.history.size();
        for (int i = 0; i < room.messages.history.size(); i++) {
            XmlElement m = room.messages.history.message(i);
            XmlElement sid = m.child("stanza-id", Stanzas.NS_SID);
            String from = m.attribute("from");
            String nick = from == null || from.indexOf('/') < 0 ? null : from.substring(from.indexOf('/') + 1);
            out.add(new TailRecord(jid, ++seq, sid == null ? null : sid.attribute("id"), nick, null,
                    room.messages.history.timestampMillis(i), m.childText("body"), m.childText("subject"),
                    MessageInspector.Action.PASS, m));
        }
        return out;
    }

    /**
     * Removes, as one step, the occupants whose real JIDs {@code gone} matches (docs/cluster.md, "Occupants of a
     * departed node leave as one step per room"): all leave first, then each one still here gets one unavailable
     * presence (status 333, with {@code reason} if any) per nickname that left; a removed session gets its own (110,
     * 333) only if {@code reachable} says it can still be written to, and never the others'.
     */
    void removeSessionsWhere(Predicate<Jid> gone, Predicate<Jid> reachable, String reason) {
        List<Occupant> leaving = new ArrayList<>();
        for (int i = 0; i < occupants.count(); i++) {
            if (gone.test(occupants.at(i).realJid)) {
                leaving.add(occupants.at(i));
            }
        }
        boolean[] visible = new boolean[leaving.size()];
        for (int i = 0; i < visible.length; i++) {
            Occupant o = leaving.get(i);
            visible[i] = room.presence.broadcastsPresenceOf(o, occupants.count() + i); // the room as the others saw it
            o.role = Role.NONE;
            o.invalidatePresence();
            occupants.detach(o);
            ctx.listener.occupantLeft(jid);
        }
        Set<String> announced = new HashSet<>();
        XmlElement extra = room.presence.reasonAndActor(reason, null);
        for (int i = 0; i < visible.length; i++) {
            Occupant o = leaving.get(i);
            // the others see a nickname leave only with its last session, and once
            boolean others = visible[i] && occupants.firstUnder(o.nickKey) == null && announced.add(o.nickKey);
            room.presence.broadcastPresence(others, o, "unavailable", new int[] {333}, null,
                    reachable.test(o.realJid) ? new int[] {110, 333} : null, extra, null);
        }
        if (!leaving.isEmpty() && occupants.count() == 0 && !room.settings().persistent()) {
            shard.removeRoom(room);
        }
    }

    /**
     * Takes over a room another node served: configuration, occupants (who stay joined and are not told anything)
     * and history from the newest tail records. With {@code relog}, every tail record is offered to the room log
     * again: the previous owner may have died before its writer stored them, and the log's key (room, time, stanza
     * id) makes the ones it did store duplicates that are skipped.
     */
    static Room adopt(RoomShard shard, RoomImage image, List<TailRecord> tail, boolean relog) {
        ServiceContext ctx = shard.ctx;
        Room room = new Room(shard, image.room());
        room.applyConfig(image.config(), image.persistent(), image.presenceBroadcastRoles());
        room.locked = image.locked();
        if (image.subjectMessage() != null) {
            room.messages.adoptSubjectMessage(image.subjectMessage());
        }
        room.messages.tailSeqAtLeast(image.tailSeq());
        for (RoomImage.OccupantImage oi : image.occupants()) {
            Jid occupantJid;
            try {
                occupantJid = room.jid.withResource(oi.nick());
            } catch (Jid.InvalidJidException e) {
                continue;
            }
            Occupant o = new Occupant(oi.nick(), occupantJid, oi.realJid(), oi.role(), oi.affiliation(),
                    oi.presence(), room.guard.budgetOf(Stanzas.userKey(oi.realJid())).messages);
            o.occupantId = oi.occupantId();
            ctx.placement.sessionSeen(oi.realJid(), oi.node());
            room.occupants.add(o);
        }
        int first = Math.max(0, tail.size() - ctx.config.historySize);
        for (int i = 0; i < tail.size(); i++) {
            TailRecord t = tail.get(i);
            room.messages.tailSeqAtLeast(t.seq());
            boolean tombstone = t.message() != null && Moderation.isTombstone(t.message());
            if (i >= first && (t.body() != null || tombstone) && t.message() != null) {
                room.messages.history.add(t.message(), t.timestampMillis(),
                        Stanzas.approximateChars(t.message(), Integer.MAX_VALUE), t.seq());
            }
            // a retracted message is not logged again: its text is gone, and its row holds the tombstone
            if (relog && !tombstone && t.stanzaId() != null && t.nick() != null) {
                if (!ctx.logSink.offer(t.stanzaId(), room.jid, t.nick(), t.realJid(), t.timestampMillis(), t.body(),
                        t.subject(), t.action())) {
                    ctx.listener.logRefused(room.jid);
                }
            }
        }
        shard.addRoom(room);
        room.updateDirectory();
        return room;
    }
}
