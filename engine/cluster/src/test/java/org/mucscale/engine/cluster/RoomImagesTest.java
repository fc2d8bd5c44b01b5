package org.mucscale.engine.cluster;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.mucscale.engine.muc.Affiliation;
import org.mucscale.engine.muc.MessageInspector;
import org.mucscale.engine.muc.PresencePolicy;
import org.mucscale.engine.muc.Role;
import org.mucscale.engine.muc.RoomImage;
import org.mucscale.engine.muc.StoredRoom;
import org.mucscale.engine.muc.TailRecord;
import org.mucscale.engine.stanza.Jid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mucscale.engine.cluster.Trees.assertSameTree;

/**
 * Room state in the replicated maps: what a node that takes a room over rebuilds it from. Pinned: every field of a
 * {@link RoomImage} and a {@link TailRecord} survives the round trip (each boolean on its own, so two swapped fields
 * cannot hide behind equal values); a value of another format version is refused with a message naming both
 * versions; a truncated or malformed value is an {@link IllegalArgumentException}.
 */
class RoomImagesTest {

    private static RoomImage roundTrip(RoomImage image) {
        RoomImage back = RoomImages.decodeImage(RoomImages.encode(image));
        assertThat(back).isEqualTo(image);
        // record equality compares XML by serialization; compare the trees exactly too
        assertSameTree(back.subjectMessage(), image.subjectMessage());
        for (int i = 0; i < image.occupants().size(); i++) {
            assertSameTree(back.occupants().get(i).presence(), image.occupants().get(i).presence());
        }
        return back;
    }

    private static TailRecord roundTrip(TailRecord t) {
        TailRecord back = RoomImages.decodeTail(RoomImages.encode(t));
        assertThat(back).isEqualTo(t);
        assertSameTree(back.message(), t.message());
        return back;
    }

    private static RoomImage withConfig(StoredRoom c) {
        RoomImage base = Samples.image();
        return new RoomImage(c, base.persistent(), base.locked(), base.presenceBroadcastRoles(),
                base.subjectMessage(), base.occupants(), base.tailSeq());
    }

    // ------------------------------------------------------------------------------------------ accepted marks

    @Test
    void acceptedMark_roundTrips_andAnotherFormatIsRefused() {
        org.mucscale.engine.muc.AcceptedMark mark = new org.mucscale.engine.muc.AcceptedMark(
                Jid.parse("room@muc.example.org"), 1L << 40, List.of(
                        new org.mucscale.engine.muc.Forwarded("node-o", "node-a", Long.MIN_VALUE, 1),
                        new org.mucscale.engine.muc.Forwarded("node-o", "node-b 😀", -1, Long.MAX_VALUE)));
        assertThat(RoomImages.decodeMark(RoomImages.encode(mark))).isEqualTo(mark);
        org.mucscale.engine.muc.AcceptedMark empty = new org.mucscale.engine.muc.AcceptedMark(
                Jid.parse("room@muc.example.org"), 0, List.of());
        assertThat(RoomImages.decodeMark(RoomImages.encode(empty))).isEqualTo(empty);
        byte[] b = RoomImages.encode(mark);
        b[0] = 9;
        assertThatThrownBy(() -> RoomImages.decodeMark(b)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("9");
    }

    // ------------------------------------------------------------------------------------------ images

    @Test
    void image_everyFieldSet_roundTrips() {
        RoomImage image = Samples.image();
        RoomImage back = roundTrip(image);
        assertThat(back.config().password()).isEqualTo("s3cret <&>");
        assertThat(back.config().affiliations()).hasSize(4);
        assertThat(back.occupants()).extracting(RoomImage.OccupantImage::node)
                .containsExactly("node-a", null, "node-b", "node-c");
        assertThat(back.occupants()).extracting(RoomImage.OccupantImage::nick)
                .containsExactly("Alice 😀", "bob", "carol", "dave");
        assertThat(back.tailSeq()).isEqualTo(123_456_789_012L);
    }

    @Test
    void image_minimal_roundTripsWithNullsAndEmpties() {
        RoomImage back = roundTrip(Samples.minimalImage());
        assertThat(back.config().name()).isNull();
        assertThat(back.config().password()).isNull();
        assertThat(back.config().allowPrivateMessages()).isNull();
        assertThat(back.subjectMessage()).isNull();
        assertThat(back.occupants()).isEmpty();
        assertThat(back.presenceBroadcastRoles()).isEmpty();
        assertThat(back.config().affiliations()).isEmpty();
    }

    @Test
    void image_passwordNullOrEmptyOrSet_roundTripsDistinctly() {
        for (String password : new String[] {null, "", "pässwörd 😀 <&>"}) {
            RoomImage back = roundTrip(withConfig(Samples.config(password, true, PresencePolicy.FULL)));
            assertThat(back.config().password()).isEqualTo(password);
        }
    }

    @Test
    void image_broadcastRolesEmptyOneOrAll_roundTrip() {
        RoomImage base = Samples.image();
        for (Set<Role> roles : List.of(Set.<Role>of(), EnumSet.of(Role.VISITOR), EnumSet.allOf(Role.class))) {
            RoomImage back = roundTrip(new RoomImage(base.config(), true, true, roles, base.subjectMessage(),
                    base.occupants(), 1));
            assertThat(back.presenceBroadcastRoles()).isEqualTo(roles);
        }
    }

    @ParameterizedTest
    @EnumSource(PresencePolicy.class)
    void image_everyPresencePolicy_roundTrips(PresencePolicy policy) {
        assertThat(roundTrip(withConfig(Samples.config("p", false, policy))).config().presencePolicy())
                .isEqualTo(policy);
    }

    @Test
    void image_everyRoleAndAffiliation_roundTripOnOccupants() {
        RoomImage base = Samples.image();
        List<RoomImage.OccupantImage> occupants = new java.util.ArrayList<>();
        for (Role role : Role.values()) {
            for (Affiliation aff : Affiliation.values()) {
                occupants.add(new RoomImage.OccupantImage(role + "-" + aff, Jid.parse(
                        role.xmlName() + "@example.org/" + aff.xmlName()), role, aff,
                        Samples.presence(role.xmlName()), "id-" + role + aff, aff == Affiliation.NONE ? null : "n"));
            }
        }
        RoomImage back = roundTrip(new RoomImage(base.config(), false, true, base.presenceBroadcastRoles(),
                null, occupants, 0));
        assertThat(back.occupants()).hasSize(Role.values().length * Affiliation.values().length);
    }

    @Test
    void image_everyAffiliation_roundTripsInTheConfig() {
        Map<Jid, Affiliation> affs = new LinkedHashMap<>();
        for (Affiliation a : Affiliation.values()) {
            affs.put(Jid.parse(a.xmlName() + "@example.org"), a);
        }
        StoredRoom c = Samples.config("p", true, PresencePolicy.FULL);
        StoredRoom withAll = new StoredRoom(c.room(), c.name(), c.description(), c.subject(), c.isPublic(),
                c.moderated(), c.membersOnly(), c.password(), c.maxOccupants(), c.nonAnonymous(),
                c.participantsChangeSubject(), c.allowPrivateMessages(), c.loggingEnabled(), c.presencePolicy(),
                affs);
        assertThat(roundTrip(withConfig(withAll)).config().affiliations()).isEqualTo(affs);
    }

    /** Each of the eight flags set alone: a swap of any two in the encoder or decoder shows. */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6, 7, -1})
    void image_eachBooleanAlone_roundTripsInItsOwnField(int which) {
        boolean[] f = new boolean[8];
        if (which >= 0) {
            f[which] = true;
        }
        StoredRoom c = new StoredRoom(Samples.ROOM, "name", "description", "subject", f[0], f[1], f[2], "pw", 10,
                f[3], f[4], "moderators", f[5], PresencePolicy.MODERATORS_ONLY, Map.of());
        RoomImage image = new RoomImage(c, f[6], f[7], Set.of(), null, List.of(), 5);
        RoomImage back = roundTrip(image);
        StoredRoom bc = back.config();
        assertThat(new boolean[] {bc.isPublic(), bc.moderated(), bc.membersOnly(), bc.nonAnonymous(),
                bc.participantsChangeSubject(), bc.loggingEnabled(), back.persistent(), back.locked()})
                .containsExactly(f);
    }

    /** Distinct strings in every string field: a swap of two shows. */
    @Test
    void image_distinctStrings_eachInItsOwnField() {
        StoredRoom c = new StoredRoom(Samples.ROOM, "N", "D", "S", true, true, true, "P", 10, true, true, "A", true,
                PresencePolicy.FULL, Map.of());
        RoomImage.OccupantImage o = new RoomImage.OccupantImage("nick", Jid.parse("r@example.org/x"), Role.VISITOR,
                Affiliation.MEMBER, null, "occupant-id", "node");
        StoredRoom bc = roundTrip(new RoomImage(c, true, true, Set.of(), null, List.of(o), 1)).config();
        assertThat(List.of(bc.name(), bc.description(), bc.subject(), bc.password(), bc.allowPrivateMessages()))
                .containsExactly("N", "D", "S", "P", "A");
    }

    /** Archiving unset (follows the service default), off and on: each comes back as it went. */
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2})
    void image_archiving_roundTripsAllThreeStates(int state) {
        StoredRoom c = Samples.config("p", true, PresencePolicy.FULL);
        Boolean archiving = state == 0 ? null : state == 2;
        StoredRoom with = new StoredRoom(c.room(), c.name(), c.description(), c.subject(), c.isPublic(),
                c.moderated(), c.membersOnly(), c.password(), c.maxOccupants(), c.nonAnonymous(),
                c.participantsChangeSubject(), c.allowPrivateMessages(), c.loggingEnabled(), c.presencePolicy(),
                c.affiliations(), c.registrationOpen(), c.memberListRoles(), c.reservedNicks(), archiving);
        assertThat(roundTrip(withConfig(with)).config().archivingEnabled()).isEqualTo(archiving);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 127, 128, 250, Integer.MAX_VALUE, -1})
    void image_maxOccupants_roundTrips(int max) {
        StoredRoom c = Samples.config(null, true, PresencePolicy.FULL);
        StoredRoom withMax = new StoredRoom(c.room(), c.name(), c.description(), c.subject(), c.isPublic(),
                c.moderated(), c.membersOnly(), c.password(), max, c.nonAnonymous(), c.participantsChangeSubject(),
                c.allowPrivateMessages(), c.loggingEnabled(), c.presencePolicy(), c.affiliations());
        assertThat(roundTrip(withConfig(withMax)).config().maxOccupants()).isEqualTo(max);
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 1, 128, Long.MAX_VALUE})
    void image_tailSeq_roundTrips(long seq) {
        RoomImage base = Samples.image();
        assertThat(roundTrip(new RoomImage(base.config(), true, false, Set.of(), null, List.of(), seq)).tailSeq())
                .isEqualTo(seq);
    }

    @Test
    void image_manyOccupants_roundTrip() {
        RoomImage base = Samples.image();
        List<RoomImage.OccupantImage> many = new java.util.ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            many.add(new RoomImage.OccupantImage("nick" + i, Jid.parse("u" + i + "@example.org/r"),
                    Role.PARTICIPANT, Affiliation.NONE, Samples.presence("chat"), "o" + i, "node-" + (i % 3)));
        }
        assertThat(roundTrip(new RoomImage(base.config(), true, false, Set.of(Role.MODERATOR), null, many, 9))
                .occupants()).hasSize(2_000);
    }

    // ------------------------------------------------------------------------------------------ tails

    @Test
    void tail_everyFieldSet_roundTrips() {
        TailRecord back = roundTrip(Samples.tail());
        assertThat(back.action()).isEqualTo(MessageInspector.Action.MASK);
        assertThat(back.seq()).isEqualTo(9_876_543_210L);
        assertThat(back.timestampMillis()).isEqualTo(1_717_171_717_171L);
    }

    @Test
    void tail_minimal_roundTripsWithNulls() {
        TailRecord back = roundTrip(Samples.minimalTail());
        assertThat(back.stanzaId()).isNull();
        assertThat(back.nick()).isNull();
        assertThat(back.realJid()).isNull();
        assertThat(back.body()).isNull();
        assertThat(back.subject()).isNull();
        assertThat(back.message()).isNull();
    }

    @ParameterizedTest
    @EnumSource(MessageInspector.Action.class)
    void tail_everyAction_roundTrips(MessageInspector.Action action) {
        TailRecord t = Samples.tail();
        TailRecord with = new TailRecord(t.room(), t.seq(), t.stanzaId(), t.nick(), t.realJid(), t.timestampMillis(),
                t.body(), t.subject(), action, t.message());
        assertThat(roundTrip(with).action()).isEqualTo(action);
    }

    @Test
    void tail_nullAction_decodesAsPass() {
        TailRecord t = Samples.tail();
        TailRecord noAction = new TailRecord(t.room(), t.seq(), t.stanzaId(), t.nick(), t.realJid(),
                t.timestampMillis(), t.body(), t.subject(), null, t.message());
        assertThat(RoomImages.decodeTail(RoomImages.encode(noAction)).action())
                .isEqualTo(MessageInspector.Action.PASS);
    }

    @ParameterizedTest
    @ValueSource(longs = {Long.MIN_VALUE, -1, 0, Long.MAX_VALUE})
    void tail_timestamp_roundTrips(long millis) {
        TailRecord t = Samples.tail();
        TailRecord with = new TailRecord(t.room(), 3, "id", "nick", null, millis, "b", null,
                MessageInspector.Action.PASS, null);
        assertThat(roundTrip(with).timestampMillis()).isEqualTo(millis);
    }

    @Test
    void tail_distinctStrings_eachInItsOwnField() {
        TailRecord t = new TailRecord(Samples.ROOM, 1, "ID", "NICK", Jid.parse("real@example.org/r"), 2, "BODY",
                "SUBJECT", MessageInspector.Action.PASS, null);
        TailRecord back = roundTrip(t);
        assertThat(List.of(back.stanzaId(), back.nick(), back.body(), back.subject()))
                .containsExactly("ID", "NICK", "BODY", "SUBJECT");
    }

    // ------------------------------------------------------------------------------------------ versions, malformed

    @ParameterizedTest
    @ValueSource(ints = {0, RoomImages.VERSION - 1, RoomImages.VERSION + 1, 255})
    void decode_otherVersion_refusedNamingBothVersions(int version) {
        for (byte[] valid : List.of(RoomImages.encode(Samples.image()), RoomImages.encode(Samples.tail()))) {
            byte[] other = valid.clone();
            other[0] = (byte) version;
            for (Runnable decode : List.<Runnable>of(() -> RoomImages.decodeImage(other),
                    () -> RoomImages.decodeTail(other))) {
                assertThatThrownBy(decode::run).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("format " + version)
                        .hasMessageContaining("reads " + RoomImages.VERSION);
            }
        }
    }

    @Test
    void encode_firstByte_isTheVersion() {
        assertThat(RoomImages.encode(Samples.image())[0]).isEqualTo((byte) RoomImages.VERSION);
        assertThat(RoomImages.encode(Samples.tail())[0]).isEqualTo((byte) RoomImages.VERSION);
    }

    @Test
    void decode_empty_refused() {
        assertThatThrownBy(() -> RoomImages.decodeImage(new byte[0])).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RoomImages.decodeTail(new byte[0])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void decode_everyTruncation_refused() {
        for (byte[] full : List.of(RoomImages.encode(Samples.image()), RoomImages.encode(Samples.minimalImage()))) {
            for (int len = 0; len < full.length; len++) {
                byte[] cut = Arrays.copyOf(full, len);
                assertThatThrownBy(() -> RoomImages.decodeImage(cut)).as("image: first %s of %s", len, full.length)
                        .isInstanceOf(IllegalArgumentException.class);
            }
        }
        for (byte[] full : List.of(RoomImages.encode(Samples.tail()), RoomImages.encode(Samples.minimalTail()))) {
            for (int len = 0; len < full.length; len++) {
                byte[] cut = Arrays.copyOf(full, len);
                assertThatThrownBy(() -> RoomImages.decodeTail(cut)).as("tail: first %s of %s", len, full.length)
                        .isInstanceOf(IllegalArgumentException.class);
            }
        }
    }

    /** The room's fields up to and including the presence policy, as {@link RoomImages#encode} writes them. */
    private static Codec.Out imageHead(String policy) {
        return new Codec.Out(0).u8(RoomImages.VERSION).string(Samples.ROOM.toString()).string(null).string(null)
                .string(null).bool(false).bool(false).bool(false).string(null).varint(0).bool(false).bool(false)
                .string(null).bool(false).string(policy);
    }

    @Test
    void decodeImage_unknownEnumName_refused() {
        byte[] policy = imageHead("SOMETIMES").varint(0).bool(false).bool(false).varint(0).element(null).varint(0)
                .varint(0).toBytes();
        byte[] role = imageHead("FULL").varint(0).bool(false).bool(false).varint(1).string("KING").element(null)
                .varint(0).varint(0).toBytes();
        byte[] affiliation = imageHead("FULL").varint(1).string("a@b").string("FRIEND").bool(false).bool(false)
                .varint(0).element(null).varint(0).varint(0).toBytes();
        assertThat(RoomImages.decodeImage(imageHead("FULL").varint(0).bool(false).bool(false).varint(0)
                .element(null).varint(0).varint(0).bool(false).varint(0).varint(0).u8(0).toBytes()).room())
                .isEqualTo(Samples.ROOM);
        for (byte[] b : List.of(policy, role, affiliation)) {
            assertThatThrownBy(() -> RoomImages.decodeImage(b)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void decodeImage_archivingOutOfRange_refused() {
        byte[] bad = imageHead("FULL").varint(0).bool(false).bool(false).varint(0).element(null).varint(0).varint(0)
                .bool(false).varint(0).varint(0).u8(3).toBytes();
        assertThatThrownBy(() -> RoomImages.decodeImage(bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("archiving");
    }

    /** Where an enum name or an affiliation's address is required, a null must be refused, not crash the decoder. */
    @Test
    void decodeImage_nullWhereRequired_refused() {
        byte[] policy = imageHead(null).varint(0).bool(false).bool(false).varint(0).element(null).varint(0)
                .varint(0).toBytes();
        byte[] role = imageHead("FULL").varint(0).bool(false).bool(false).varint(1).string(null).element(null)
                .varint(0).varint(0).toBytes();
        byte[] affiliation = imageHead("FULL").varint(1).string("a@b").string(null).bool(false).bool(false)
                .varint(0).element(null).varint(0).varint(0).toBytes();
        byte[] affiliationJid = imageHead("FULL").varint(1).string(null).string("OWNER").bool(false).bool(false)
                .varint(0).element(null).varint(0).varint(0).toBytes();
        for (byte[] b : List.of(policy, role, affiliation, affiliationJid)) {
            assertThatThrownBy(() -> RoomImages.decodeImage(b)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void decodeTail_unknownAction_refused() {
        byte[] b = new Codec.Out(0).u8(RoomImages.VERSION).string(Samples.ROOM.toString()).varint(1).string(null)
                .string(null).string(null).i64(0).string(null).string(null).string("EXPLODE").element(null)
                .toBytes();
        assertThatThrownBy(() -> RoomImages.decodeTail(b)).isInstanceOf(IllegalArgumentException.class);
    }
}
