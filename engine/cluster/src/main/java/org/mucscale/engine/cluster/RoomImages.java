package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.mucscale.engine.muc.AcceptedMark;
import org.mucscale.engine.muc.Affiliation;
import org.mucscale.engine.muc.Forwarded;
import org.mucscale.engine.muc.MessageInspector;
import org.mucscale.engine.muc.PresencePolicy;
import org.mucscale.engine.muc.Role;
import org.mucscale.engine.muc.RoomImage;
import org.mucscale.engine.muc.StoredRoom;
import org.mucscale.engine.muc.TailRecord;
import org.mucscale.engine.stanza.Jid;

/**
 * Room images and tail records as bytes for the replicated maps. Each value starts with a format version, so a node of
 * a newer mucscale can refuse (or read) what an older one wrote during a rolling upgrade.
 */
final class RoomImages {
    /**
     * 2: images carry registration, member-list roles and reserved nicknames (XEP-0045 7.10, 7.12), and whether the
     * room is archived (XEP-0313; unset, off or on).
     */
    static final int VERSION = 2;

    private RoomImages() {
    }

    static byte[] encode(RoomImage image) {
        Codec.Out out = new Codec.Out(256 + image.occupants().size() * 160);
        out.u8(VERSION);
        StoredRoom c = image.config();
        out.jid(c.room()).string(c.name()).string(c.description()).string(c.subject()).bool(c.isPublic())
                .bool(c.moderated()).bool(c.membersOnly()).string(c.password()).varint(c.maxOccupants())
                .bool(c.nonAnonymous()).bool(c.participantsChangeSubject()).string(c.allowPrivateMessages())
                .bool(c.loggingEnabled()).string(c.presencePolicy().name());
        out.varint(c.affiliations().size());
        c.affiliations().forEach((jid, aff) -> out.jid(jid).string(aff.name()));
        out.bool(image.persistent()).bool(image.locked());
        out.varint(image.presenceBroadcastRoles().size());
        for (Role r : image.presenceBroadcastRoles()) {
            out.string(r.name());
        }
        out.element(image.subjectMessage());
        out.varint(image.occupants().size());
        for (RoomImage.OccupantImage o : image.occupants()) {
            out.string(o.nick()).jid(o.realJid()).string(o.role().name()).string(o.affiliation().name())
                    .element(o.presence()).string(o.occupantId()).string(o.node());
        }
        out.varint(image.tailSeq());
        out.bool(c.registrationOpen());
        out.varint(c.memberListRoles().size());
        for (Role r : c.memberListRoles()) {
            out.string(r.name());
        }
        out.varint(c.reservedNicks().size());
        c.reservedNicks().forEach((jid, nick) -> out.jid(jid).string(nick));
        out.u8(c.archivingEnabled() == null ? 0 : c.archivingEnabled() ? 2 : 1);
        return out.toBytes();
    }

    static RoomImage decodeImage(byte[] bytes) {
        Codec.In in = new Codec.In(bytes);
        checkVersion(in.u8());
        Jid room = in.jid();
        String name = in.string();
        String description = in.string();
        String subject = in.string();
        boolean isPublic = in.bool();
        boolean moderated = in.bool();
        boolean membersOnly = in.bool();
        String password = in.string();
        int maxOccupants = (int) in.varint();
        boolean nonAnonymous = in.bool();
        boolean changeSubject = in.bool();
        String privateMessages = in.string();
        boolean logging = in.bool();
        PresencePolicy policy = in.enumValue(PresencePolicy.class);
        int affs = in.count();
        Map<Jid, Affiliation> affiliations = new LinkedHashMap<>();
        for (int i = 0; i < affs; i++) {
            Jid who = in.jid();
            if (who == null) {
                throw new IllegalArgumentException("an affiliation without an address");
            }
            affiliations.put(who, in.enumValue(Affiliation.class));
        }
        StoredRoom config = new StoredRoom(room, name, description, subject, isPublic, moderated, membersOnly,
                password, maxOccupants, nonAnonymous, changeSubject, privateMessages, logging, policy, affiliations);
        boolean persistent = in.bool();
        boolean locked = in.bool();
        int roles = in.count();
        Set<Role> broadcastRoles = EnumSet.noneOf(Role.class);
        for (int i = 0; i < roles; i++) {
            broadcastRoles.add(in.enumValue(Role.class));
        }
        var subjectMessage = in.element();
        int n = in.count();
        List<RoomImage.OccupantImage> occupants = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String nick = in.requiredString("nick");
            Jid realJid = in.jid();
            if (realJid == null) {
                throw new IllegalArgumentException("occupant " + nick + " has no address");
            }
            occupants.add(new RoomImage.OccupantImage(nick, realJid, in.enumValue(Role.class),
                    in.enumValue(Affiliation.class), in.element(), in.string(), in.string()));
        }
        long tailSeq = in.varint();
        boolean registrationOpen = in.bool();
        int listRoles = in.count();
        Set<Role> memberListRoles = EnumSet.noneOf(Role.class);
        for (int i = 0; i < listRoles; i++) {
            memberListRoles.add(in.enumValue(Role.class));
        }
        int nicks = in.count();
        Map<Jid, String> reservedNicks = new LinkedHashMap<>();
        for (int i = 0; i < nicks; i++) {
            Jid who = in.jid();
            if (who == null) {
                throw new IllegalArgumentException("a reserved nickname without an address");
            }
            reservedNicks.put(who, in.requiredString("reserved nickname"));
        }
        int archiving = in.u8();
        if (archiving > 2) {
            throw new IllegalArgumentException("archiving must be 0 (unset), 1 (off) or 2 (on), was " + archiving);
        }
        config = new StoredRoom(config.room(), config.name(), config.description(), config.subject(),
                config.isPublic(), config.moderated(), config.membersOnly(), config.password(),
                config.maxOccupants(), config.nonAnonymous(), config.participantsChangeSubject(),
                config.allowPrivateMessages(), config.loggingEnabled(), config.presencePolicy(),
                config.affiliations(), registrationOpen, memberListRoles, reservedNicks,
                archiving == 0 ? null : archiving == 2);
        in.end();
        if (room == null) {
            throw new IllegalArgumentException("a room image without a room address");
        }
        return new RoomImage(config, persistent, locked, broadcastRoles, subjectMessage, occupants, tailSeq);
    }

    /**
     * One occupant of a room, stored in its own entry (so a join or a presence change writes one occupant, not the
     * whole room; see {@link OccupantSlots}).
     */
    static byte[] encode(RoomImage.OccupantImage o) {
        Codec.Out out = new Codec.Out(160);
        out.u8(VERSION).string(o.nick()).jid(o.realJid()).string(o.role().name()).string(o.affiliation().name())
                .element(o.presence()).string(o.occupantId()).string(o.node());
        return out.toBytes();
    }

    static RoomImage.OccupantImage decodeOccupant(byte[] bytes) {
        Codec.In in = new Codec.In(bytes);
        checkVersion(in.u8());
        String nick = in.requiredString("nick");
        Jid realJid = in.jid();
        if (realJid == null) {
            throw new IllegalArgumentException("occupant " + nick + " has no address");
        }
        RoomImage.OccupantImage o = new RoomImage.OccupantImage(nick, realJid, in.enumValue(Role.class),
                in.enumValue(Affiliation.class), in.element(), in.string(), in.string());
        in.end();
        return o;
    }

    /** The slots a room's occupants are stored in (ascending). */
    static byte[] encodeSlots(int[] slots) {
        Codec.Out out = new Codec.Out(8 + slots.length * 2);
        out.u8(VERSION).varint(slots.length);
        for (int s : slots) {
            out.varint(s);
        }
        return out.toBytes();
    }

    static int[] decodeSlots(byte[] bytes) {
        Codec.In in = new Codec.In(bytes);
        checkVersion(in.u8());
        int n = in.count();
        int[] slots = new int[n];
        for (int i = 0; i < n; i++) {
            long s = in.varint();
            if (s < 0 || s > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("occupant slot " + s + " out of range");
            }
            slots[i] = (int) s;
        }
        in.end();
        return slots;
    }

    /** A room's accepted mark (in the tails map, key {@code room#a}; its own format version, 1). */
    static byte[] encode(AcceptedMark mark) {
        Codec.Out out = new Codec.Out(32 + mark.newest().size() * 64);
        out.u8(MARK_VERSION).jid(mark.room()).varint(mark.tailSeq()).varint(mark.newest().size());
        for (Forwarded f : mark.newest()) {
            out.string(f.owner()).string(f.sender()).i64(f.epoch()).varint(f.seq());
        }
        return out.toBytes();
    }

    static final int MARK_VERSION = 1;

    static AcceptedMark decodeMark(byte[] bytes) {
        Codec.In in = new Codec.In(bytes);
        int v = in.u8();
        if (v != MARK_VERSION) {
            throw new IllegalArgumentException("accepted mark format " + v + " is not known here");
        }
        Jid room = in.jid();
        long tailSeq = in.varint();
        int n = in.count();
        List<Forwarded> newest = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String owner = in.requiredString("owner");
            String sender = in.requiredString("sender");
            newest.add(new Forwarded(owner, sender, in.i64(), in.varint()));
        }
        in.end();
        return new AcceptedMark(room, tailSeq, newest);
    }

    static byte[] encode(TailRecord t) {
        Codec.Out out = new Codec.Out(256);
        out.u8(VERSION).jid(t.room()).varint(t.seq()).string(t.stanzaId()).string(t.nick()).jid(t.realJid())
                .i64(t.timestampMillis()).string(t.body()).string(t.subject())
                .string(t.action() == null ? null : t.action().name()).element(t.message());
        return out.toBytes();
    }

    static TailRecord decodeTail(byte[] bytes) {
        Codec.In in = new Codec.In(bytes);
        checkVersion(in.u8());
        Jid room = in.jid();
        long seq = in.varint();
        String stanzaId = in.string();
        String nick = in.string();
        Jid realJid = in.jid();
        long ts = in.i64();
        String body = in.string();
        String subject = in.string();
        String action = in.string();
        MessageInspector.Action parsed = MessageInspector.Action.PASS;
        if (action != null) {
            try {
                parsed = MessageInspector.Action.valueOf(action);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown filter action '" + action + "'");
            }
        }
        var message = in.element();
        in.end();
        if (room == null) {
            throw new IllegalArgumentException("a tail record without a room address");
        }
        return new TailRecord(room, seq, stanzaId, nick, realJid, ts, body, subject, parsed, message);
    }

    private static void checkVersion(int v) {
        if (v != VERSION) {
            throw new IllegalArgumentException("replicated room state of format " + v + "; this node reads "
                    + VERSION + " (all nodes must run the same mucscale version)");
        }
    }
}
