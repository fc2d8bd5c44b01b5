package org.mucscale.engine.cluster;

import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.mucscale.engine.muc.Affiliation;
import org.mucscale.engine.muc.MessageInspector;
import org.mucscale.engine.muc.PresencePolicy;
import org.mucscale.engine.muc.Role;
import org.mucscale.engine.muc.RoomImage;
import org.mucscale.engine.muc.StoredRoom;
import org.mucscale.engine.muc.TailRecord;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/** Values with every field set, for round trips and as seeds for the fuzz. */
final class Samples {
    static final Jid ROOM = Jid.parse("lobby@conference.example.org");

    private Samples() {
    }

    static XmlElement presence(String show) {
        return XmlElement.builder("presence", "jabber:client")
                .attribute("from", "alice@example.org/phone")
                .child(XmlElement.builder("show").text(show).build())
                .child(XmlElement.builder("status").text("out <for> lunch & \"back\" ☕").build())
                .child(XmlElement.builder("c", "http://jabber.org/protocol/caps").attribute("hash", "sha-1")
                        .attribute("node", "https://example.org").attribute("ver", "QgayPKawpkPSDYmwT/WM94uAlu0=")
                        .build())
                .build();
    }

    static XmlElement subjectMessage() {
        return XmlElement.builder("message", "jabber:client")
                .attribute("from", "lobby@conference.example.org/owner").attribute("type", "groupchat")
                .child(XmlElement.builder("subject").text("Today: <b>release</b> & party 🎉").build())
                .build();
    }

    static StoredRoom config(String password, boolean flag, PresencePolicy policy) {
        Map<Jid, Affiliation> affs = new LinkedHashMap<>();
        affs.put(Jid.parse("owner@example.org"), Affiliation.OWNER);
        affs.put(Jid.parse("admin@example.org"), Affiliation.ADMIN);
        affs.put(Jid.parse("member@example.org"), Affiliation.MEMBER);
        affs.put(Jid.parse("troll@example.org"), Affiliation.OUTCAST);
        return new StoredRoom(ROOM, "The Lobby", "Where \"everyone\" <meets>", "Today: release", flag, !flag, flag,
                password, 250, !flag, flag, "participants", !flag, policy, affs, flag,
                flag ? EnumSet.of(Role.PARTICIPANT, Role.VISITOR) : Set.of(),
                Map.of(Jid.parse("member@example.org"), "Mem \"ber\""), flag ? Boolean.TRUE : null);
    }

    static List<RoomImage.OccupantImage> occupants() {
        return List.of(
                new RoomImage.OccupantImage("Alice 😀", Jid.parse("alice@example.org/phone"), Role.MODERATOR,
                        Affiliation.OWNER, presence("chat"), "occ-id-alice", "node-a"),
                new RoomImage.OccupantImage("bob", Jid.parse("bob@example.org/laptop"), Role.PARTICIPANT,
                        Affiliation.MEMBER, presence("away"), "occ-id-bob", null),
                new RoomImage.OccupantImage("carol", Jid.parse("carol@example.org/x"), Role.VISITOR,
                        Affiliation.NONE, null, null, "node-b"),
                new RoomImage.OccupantImage("dave", Jid.parse("dave@example.org/phone"), Role.NONE, Affiliation.ADMIN, presence("dnd"),
                        "occ-id-dave", "node-c"));
    }

    static RoomImage image() {
        return new RoomImage(config("s3cret <&>", true, PresencePolicy.NONE_ABOVE_N), true, false,
                EnumSet.of(Role.MODERATOR, Role.PARTICIPANT), subjectMessage(), occupants(), 123_456_789_012L);
    }

    static RoomImage minimalImage() {
        StoredRoom c = new StoredRoom(Jid.parse("empty@conference.example.org"), null, null, null, false, false,
                false, null, 0, false, false, null, false, PresencePolicy.FULL, Map.of());
        return new RoomImage(c, false, false, Set.of(), null, List.of(), 0);
    }

    static TailRecord tail() {
        return new TailRecord(ROOM, 9_876_543_210L, "stanza-id-<1>", "Alice 😀", Jid.parse("alice@example.org/phone"),
                1_717_171_717_171L, "hello <world> & \"all\"", "a subject", MessageInspector.Action.MASK,
                Trees.sampleStanza());
    }

    static TailRecord minimalTail() {
        return new TailRecord(ROOM, 0, null, null, null, 0, null, null, MessageInspector.Action.PASS, null);
    }

    /** Valid encodings of every kind of value the decoders read: seeds for mutation. */
    static List<byte[]> validEncodings() {
        Wire.RelayBuilder relay = new Wire.RelayBuilder();
        RenderedStanza a = RenderedStanza.render(Trees.sampleStanza());
        RenderedStanza b = RenderedStanza.render(subjectMessage());
        relay.add(a, Jid.parse("u1@example.org/r"));
        relay.add(a, Jid.parse("u2@example.org/r"));
        relay.add(b, Jid.parse("u1@example.org/r"));
        relay.add(a, Jid.parse("u3@example.org"));
        return List.of(
                Wire.forward(-7, 1, ROOM, "node-a", 1, Trees.sampleStanza()),
                Wire.forward(1, 300, ROOM, null, 0, subjectMessage()),
                Wire.handoff(Long.MIN_VALUE, Long.MAX_VALUE, ROOM),
                Wire.forward(3, 4, ROOM, null, 1, true, Trees.sampleStanza()),
                Wire.confirm(5, 6, Long.MIN_VALUE, Long.MAX_VALUE),
                relay.encode(99, 2, 1_700_000_000_000_000L),
                new Wire.RelayBuilder().encode(1, 1, 0),
                Wire.redeliver(4, 5, 6, DeliveredIds.keyOf(a) | 1, a, List.of(Jid.parse("u1@example.org/r"),
                        Jid.parse("u2@example.org"))),
                Wire.redeliver(-1, 0, 0, Long.MIN_VALUE, b, List.of()),
                RoomImages.encode(image()),
                RoomImages.encode(minimalImage()),
                RoomImages.encode(tail()),
                RoomImages.encode(minimalTail()),
                RoomImages.encode(image().occupants().get(0)),
                RoomImages.encodeSlots(new int[] {0, 1, 7, 300}));
    }
}
