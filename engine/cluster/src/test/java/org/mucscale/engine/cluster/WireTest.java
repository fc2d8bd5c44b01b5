package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mucscale.engine.cluster.Trees.assertSameTree;

/**
 * The messages between nodes. Pinned: every kind round-trips with every header value; a relay carries each rendered
 * stanza of a run once however many recipients it has, and keeps call order (so each recipient's order); a relay that
 * points outside its own stanza table, or any malformed message, is refused with {@link IllegalArgumentException};
 * fields a later wire version appends after a body's known fields are ignored (wire version 3), in every kind.
 */
class WireTest {
    private static final Jid ROOM = Jid.parse("lobby@conference.example.org");

    private static Jid user(int i) {
        return Jid.parse("user" + i + "@example.org/res" + i);
    }

    private static RenderedStanza rendered(String body) {
        return RenderedStanza.render(XmlElement.builder("message", "jabber:client")
                .attribute("from", "lobby@conference.example.org/alice").attribute("type", "groupchat")
                .child(XmlElement.builder("body").text(body).build()).build());
    }

    /** Each decoded delivery as "recipient <- full stanza text", in order. */
    private static List<String> deliveries(Wire.Relay relay) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < relay.recipients().length; i++) {
            out.add(relay.recipients()[i] + " <- " + relay.stanzas()[relay.stanzaIndex()[i]]
                    .forRecipient(relay.recipients()[i]));
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------ FORWARD

    @ParameterizedTest
    @ValueSource(longs = {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE})
    void forward_anyEpoch_roundTripsEveryField(long epoch) {
        XmlElement stanza = Trees.sampleStanza();
        Wire.Message m = Wire.decode(Wire.forward(epoch, 1L << 40, ROOM, "node-a:5701", 2, stanza));
        assertThat(m.kind()).isEqualTo(Wire.FORWARD);
        assertThat(m.epoch()).isEqualTo(epoch);
        assertThat(m.seq()).isEqualTo(1L << 40);
        assertThat(m.room()).isEqualTo(ROOM);
        assertThat(m.entryNode()).isEqualTo("node-a:5701");
        assertThat(m.hops()).isEqualTo(2);
        assertSameTree(m.stanza(), stanza);
        assertThat(m.relay()).isNull();
    }

    @Test
    void forward_hopsAtByteBounds_roundTrip() {
        XmlElement st = XmlElement.builder("message").build();
        assertThat(Wire.decode(Wire.forward(1, 1, ROOM, "n", 0, st)).hops()).isZero();
        assertThat(Wire.decode(Wire.forward(1, 1, ROOM, "n", 255, st)).hops()).isEqualTo(255);
    }

    @Test
    void forward_nullEntryNode_roundTripsAsNull_nullStanzaRefused() {
        Wire.Message m = Wire.decode(Wire.forward(5, 1, ROOM, null, 0, XmlElement.builder("presence").build()));
        assertThat(m.entryNode()).isNull();
        assertThat(m.room()).isEqualTo(ROOM);
        assertThatThrownBy(() -> Wire.decode(Wire.forward(5, 1, ROOM, null, 0, null)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs a room and a stanza");
    }

    @Test
    void forward_layout_kindThenBigEndianEpochThenVarintSeq() {
        byte[] b = Wire.forward(0x0102030405060708L, 300, ROOM, null, 0, null);
        assertThat(Arrays.copyOf(b, 11)).containsExactly(1, 1, 2, 3, 4, 5, 6, 7, 8, 0xAC - 256, 0x02);
    }

    @Test
    void forward_invalidRoomAddress_refused() {
        byte[] b = new Codec.Out(0).u8(Wire.FORWARD).i64(1).varint(1).string("a@b@c/").string(null).u8(0).u8(0)
                .toBytes();
        assertThatThrownBy(() -> Wire.decode(b)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void forward_resentFlag_roundTrips_unknownFlagsRefused() {
        XmlElement st = XmlElement.builder("message").attribute("id", "m1").build();
        assertThat(Wire.decode(Wire.forward(1, 1, ROOM, null, 1, true, st)).resent()).isTrue();
        assertThat(Wire.decode(Wire.forward(1, 1, ROOM, null, 1, false, st)).resent()).isFalse();
        assertThat(Wire.decode(Wire.forward(1, 1, ROOM, null, 1, st)).resent()).isFalse();
        byte[] b = new Codec.Out(0).u8(Wire.FORWARD).i64(1).varint(1).jid(ROOM).string(null).u8(0).u8(4)
                .element(st).toBytes();
        assertThatThrownBy(() -> Wire.decode(b)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown forward flags 4");
    }

    @Test
    void forward_origin_roundTrips_withOrWithoutTheResentFlag() {
        XmlElement st = XmlElement.builder("message").attribute("id", "m1").build();
        org.mucscale.engine.muc.Forwarded origin = new org.mucscale.engine.muc.Forwarded("owner-o", "sender-a",
                Long.MIN_VALUE, 1L << 40);
        Wire.Message resent = Wire.decode(Wire.forward(1, 7, ROOM, "entry", 2, true, origin, st));
        assertThat(resent.resent()).isTrue();
        assertThat(resent.origin()).isEqualTo(origin);
        assertThat(resent.stanza().attribute("id")).isEqualTo("m1");
        assertThat(resent.entryNode()).isEqualTo("entry");
        Wire.Message onward = Wire.decode(Wire.forward(1, 8, ROOM, null, 1, false, origin, st));
        assertThat(onward.resent()).isFalse();
        assertThat(onward.origin()).isEqualTo(origin);
        assertThat(Wire.decode(Wire.forward(1, 9, ROOM, null, 1, true, null, st)).origin()).isNull();
    }

    @Test
    void forward_unknownFlag_refusedWithTheStanza_whoseSenderGetsAnError() {
        XmlElement join = XmlElement.builder("presence").attribute("from", "carol@example.org/r")
                .attribute("to", ROOM + "/carol").attribute("id", "j1")
                .child(XmlElement.builder("x", "http://jabber.org/protocol/muc").build()).build();
        byte[] b = new Codec.Out(0).u8(Wire.FORWARD).i64(1).varint(1).jid(ROOM).string("node-b").u8(0).u8(RESENT_AND_LATER)
                .element(join).toBytes();
        Wire.UnknownFlags u = org.assertj.core.api.Assertions.catchThrowableOfType(() -> Wire.decode(b),
                Wire.UnknownFlags.class);
        assertThat(u.carried.room()).isEqualTo(ROOM);
        assertThat(u.carried.entryNode()).isEqualTo("node-b");
        assertSameTree(u.carried.stanza(), join);
        assertThat(RenderedStanza.render(u.carried.refusal()).forRecipient(Jid.parse("carol@example.org/r"))).isEqualTo(
                "<presence to=\"carol@example.org/r\" from=\"lobby@conference.example.org/carol\" type=\"error\" "
                + "id=\"j1\"><x xmlns=\"http://jabber.org/protocol/muc\"/><error type=\"cancel\"><service-unavailable "
                + "xmlns=\"urn:ietf:params:xml:ns:xmpp-stanzas\"/><text xmlns=\"urn:ietf:params:xml:ns:xmpp-stanzas\" "
                + "xml:lang=\"en\">the chat service is being upgraded and this room's server cannot handle this yet; "
                + "try again shortly</text></error></presence>");
        // no error answers an error
        XmlElement error = XmlElement.builder("message").attribute("from", "carol@example.org/r")
                .attribute("type", "error").build();
        byte[] e = new Codec.Out(0).u8(Wire.FORWARD).i64(1).varint(1).jid(ROOM).string("node-b").u8(0).u8(4)
                .element(error).toBytes();
        assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(() -> Wire.decode(e),
                Wire.UnknownFlags.class).carried.refusal()).isNull();
    }

    /** RESENT and a flag of a later version (4: after ORIGIN). */
    private static final int RESENT_AND_LATER = Wire.RESENT | 4;

    // ------------------------------------------------------------------------------------------ CONFIRM

    @ParameterizedTest
    @ValueSource(longs = {Long.MIN_VALUE, -1, 0, 1, Long.MAX_VALUE})
    void confirm_roundTripsLinkEpochAndSequence(long epoch) {
        Wire.Message m = Wire.decode(Wire.confirm(9, 10, epoch, 1L << 50));
        assertThat(m.kind()).isEqualTo(Wire.CONFIRM);
        assertThat(m.epoch()).isEqualTo(9);
        assertThat(m.seq()).isEqualTo(10);
        assertThat(m.confirmedEpoch()).isEqualTo(epoch);
        assertThat(m.confirmedSeq()).isEqualTo(1L << 50);
        assertThat(m.room()).isNull();
        assertThat(m.stanza()).isNull();
    }

    @Test
    void confirm_aFieldAppendedByALaterVersion_ignored() {
        byte[] full = Wire.confirm(1, 2, 3, 4);
        byte[] longer = Arrays.copyOf(full, full.length + 1);
        assertThat(Wire.decode(longer)).isEqualTo(Wire.decode(full));
    }

    /**
     * Wire version 3: every kind read from a message with fields appended after its own (a later version's), as from
     * the message without them. Wire versions 1 and 2 refused each of these ("bytes after the end of the value").
     */
    @Test
    void everyKind_fieldsAppendedByALaterVersion_readAsWithoutThem() {
        Wire.RelayBuilder relay = new Wire.RelayBuilder();
        relay.add(rendered("a"), user(1));
        relay.add(rendered("b"), user(2));
        List<byte[]> messages = List.of(
                Wire.forward(7, 1, ROOM, "node-a", 1, true, Trees.sampleStanza()),
                relay.encode(7, 2, 123),
                Wire.handoff(7, 3, ROOM),
                Wire.leaving(7, 4),
                Wire.confirm(7, 5, 9, 11),
                Wire.redeliver(7, 6, 123, 5, rendered("c"), List.of(user(3))),
                Wire.switched(7, 7, List.of("node-a", "node-b")),
                Wire.passed(7, 8, "node-a"));
        byte[] appended = new Codec.Out(16).varint(3).string("a field of wire version 3").u8(1).toBytes();
        for (byte[] m : messages) {
            byte[] longer = Arrays.copyOf(m, m.length + appended.length);
            System.arraycopy(appended, 0, longer, m.length, appended.length);
            Wire.Message plain = Wire.decode(m);
            Wire.Message read = Wire.decode(longer);
            assertThat(read.kind()).isEqualTo(plain.kind());
            assertThat(read.epoch()).isEqualTo(plain.epoch());
            assertThat(read.seq()).isEqualTo(plain.seq());
            assertThat(read.room()).isEqualTo(plain.room());
            assertThat(read.entryNode()).isEqualTo(plain.entryNode());
            assertThat(read.hops()).isEqualTo(plain.hops());
            assertThat(read.resent()).isEqualTo(plain.resent());
            assertThat(read.confirmedEpoch()).isEqualTo(plain.confirmedEpoch());
            assertThat(read.confirmedSeq()).isEqualTo(plain.confirmedSeq());
            assertThat(read.members()).isEqualTo(plain.members());
            if (plain.stanza() != null) {
                assertSameTree(read.stanza(), plain.stanza());
            }
            if (plain.relay() != null) {
                assertThat(deliveries(read.relay())).isEqualTo(deliveries(plain.relay()));
                assertThat(read.relay().redeliveryKey()).isEqualTo(plain.relay().redeliveryKey());
                assertThat(read.relay().sentMicros()).isEqualTo(plain.relay().sentMicros());
            }
        }
    }

    // ------------------------------------------------------------------------------------------ PASSED

    @Test
    void passed_roundTrip_namesTheEntryNode() {
        Wire.Message m = Wire.decode(Wire.passed(-42, 9, "node-e"));
        assertThat(m.kind()).isEqualTo(Wire.PASSED);
        assertThat(m.epoch()).isEqualTo(-42);
        assertThat(m.seq()).isEqualTo(9);
        assertThat(m.entryNode()).isEqualTo("node-e");
        assertThat(m.room()).isNull();
        assertThat(m.stanza()).isNull();
    }

    @Test
    void passed_withoutAnEntryNode_isRefused() {
        byte[] bad = new Codec.Out(16).u8(Wire.PASSED).i64(1).varint(1).string(null).toBytes();
        assertThatThrownBy(() -> Wire.decode(bad)).isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------------------------------ HANDOFF

    @Test
    void handoff_roundTrip() {
        Wire.Message m = Wire.decode(Wire.handoff(-42, 7, ROOM));
        assertThat(m.kind()).isEqualTo(Wire.HANDOFF);
        assertThat(m.epoch()).isEqualTo(-42);
        assertThat(m.seq()).isEqualTo(7);
        assertThat(m.room()).isEqualTo(ROOM);
        assertThat(m.entryNode()).isNull();
        assertThat(m.stanza()).isNull();
        assertThat(m.relay()).isNull();
    }

    @Test
    void handoff_layout_exactBytes() {
        byte[] room = "a@b".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(Wire.handoff(0x0102030405060708L, 1, Jid.parse("a@b")))
                .containsExactly(3, 1, 2, 3, 4, 5, 6, 7, 8, 1, room.length + 1, room[0], room[1], room[2]);
    }

    // ------------------------------------------------------------------------------------------ SWITCHED

    @Test
    void switched_roundTrip_keepsTheMembersInOrder() {
        Wire.Message m = Wire.decode(Wire.switched(-5, 3, List.of("n2", "n0", "nöde-1")));
        assertThat(m.kind()).isEqualTo(Wire.SWITCHED);
        assertThat(m.epoch()).isEqualTo(-5);
        assertThat(m.seq()).isEqualTo(3);
        assertThat(m.members()).containsExactly("n2", "n0", "nöde-1");
        assertThat(m.room()).isNull();
        assertThat(m.relay()).isNull();
    }

    @Test
    void switched_layout_exactBytes() {
        assertThat(Wire.switched(0x0102030405060708L, 1, List.of("a", "bc")))
                .containsExactly(8, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 2, 'a', 3, 'b', 'c');
    }

    @Test
    void switched_noMembers_orNullMember_refused() {
        assertThatThrownBy(() -> Wire.decode(Wire.switched(1, 1, List.of())))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("a view switch names no members");
        byte[] nullMember = new Codec.Out(0).u8(Wire.SWITCHED).i64(1).varint(1).varint(1).string(null).toBytes();
        assertThatThrownBy(() -> Wire.decode(nullMember)).isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------------------------------ RELAY

    @Test
    void relay_mixedStanzasAndRecipients_roundTripInCallOrder() {
        RenderedStanza a = rendered("one <&> 😀");
        RenderedStanza b = RenderedStanza.render(Trees.sampleStanza());
        Wire.RelayBuilder rb = new Wire.RelayBuilder();
        rb.add(a, user(1));
        rb.add(a, user(2));
        rb.add(b, user(1));
        rb.add(b, user(3));
        Wire.Message m = Wire.decode(rb.encode(-9, 12, 1_700_000_000_123_456L));
        assertThat(m.kind()).isEqualTo(Wire.RELAY);
        assertThat(m.epoch()).isEqualTo(-9);
        assertThat(m.seq()).isEqualTo(12);
        assertThat(m.room()).isNull();
        Wire.Relay r = m.relay();
        assertThat(r.sentMicros()).isEqualTo(1_700_000_000_123_456L);
        assertThat(r.stanzas()).hasSize(2);
        assertThat(r.stanzas()[0].prefix()).isEqualTo(a.prefix());
        assertThat(r.stanzas()[0].suffix()).isEqualTo(a.suffix());
        assertThat(r.stanzas()[1].prefix()).isEqualTo(b.prefix());
        assertThat(r.stanzas()[1].suffix()).isEqualTo(b.suffix());
        assertThat(r.stanzaIndex()).containsExactly(0, 0, 1, 1);
        assertThat(r.recipients()).containsExactly(user(1), user(2), user(1), user(3));
        assertThat(deliveries(r)).containsExactly(
                user(1) + " <- " + a.forRecipient(user(1)),
                user(2) + " <- " + a.forRecipient(user(2)),
                user(1) + " <- " + b.forRecipient(user(1)),
                user(3) + " <- " + b.forRecipient(user(3)));
    }

    @Test
    void relay_oneBroadcastTo427Recipients_stanzaEncodedOnce() {
        RenderedStanza s = rendered("x".repeat(2_000));
        Wire.RelayBuilder rb = new Wire.RelayBuilder();
        int recipientBytes = 0;
        for (int i = 0; i < 427; i++) {
            rb.add(s, user(i));
            recipientBytes += user(i).toString().length() + 2;
        }
        assertThat(rb.deliveries()).isEqualTo(427);
        byte[] bytes = rb.encode(1, 1, 0);
        Wire.Relay r = Wire.decode(bytes).relay();
        assertThat(r.stanzas()).hasSize(1);
        assertThat(r.stanzaIndex()).hasSize(427).containsOnly(0);
        for (int i = 0; i < 427; i++) {
            assertThat(r.recipients()[i]).isEqualTo(user(i));
        }
        // the stanza once, a varint index and the address per recipient, and a header
        assertThat(bytes.length).isLessThanOrEqualTo(s.fixedUtf8Length() + 8 + 427 + recipientBytes + 32);
    }

    @Test
    void relay_equalButDistinctStanzaObjects_notMerged() {
        RenderedStanza a = rendered("same");
        RenderedStanza b = rendered("same");
        Wire.RelayBuilder rb = new Wire.RelayBuilder();
        rb.add(a, user(1));
        rb.add(b, user(2));
        Wire.Relay r = Wire.decode(rb.encode(1, 1, 0)).relay();
        assertThat(r.stanzas()).hasSize(2);
        assertThat(r.stanzaIndex()).containsExactly(0, 1);
    }

    @Test
    void relay_sameStanzaAfterAnother_encodedAgain_onlyRunsMerged() {
        RenderedStanza a = rendered("a");
        RenderedStanza b = rendered("b");
        Wire.RelayBuilder rb = new Wire.RelayBuilder();
        rb.add(a, user(1));
        rb.add(a, user(2));
        rb.add(b, user(1));
        rb.add(a, user(3));
        Wire.Relay r = Wire.decode(rb.encode(1, 1, 0)).relay();
        assertThat(r.stanzas()).hasSize(3);
        assertThat(r.stanzaIndex()).containsExactly(0, 0, 1, 2);
        assertThat(r.stanzas()[2].suffix()).isEqualTo(a.suffix());
    }

    @Test
    void relay_interleavedStanzasToTwoRecipients_eachRecipientInOrder() {
        Wire.RelayBuilder rb = new Wire.RelayBuilder();
        Map<Jid, List<String>> sent = new HashMap<>();
        for (int i = 0; i < 50; i++) {
            Jid to = user(i % 2);
            // alternating recipients, and sometimes a stanza to both (a run of two)
            RenderedStanza s = rendered("m" + i);
            rb.add(s, to);
            sent.computeIfAbsent(to, k -> new ArrayList<>()).add(s.forRecipient(to));
            if (i % 5 == 0) {
                Jid other = user((i + 1) % 2);
                rb.add(s, other);
                sent.computeIfAbsent(other, k -> new ArrayList<>()).add(s.forRecipient(other));
            }
        }
        Wire.Relay r = Wire.decode(rb.encode(1, 1, 0)).relay();
        assertThat(r.stanzas()).hasSize(50);
        Map<Jid, List<String>> got = new HashMap<>();
        for (int i = 0; i < r.recipients().length; i++) {
            Jid to = r.recipients()[i];
            got.computeIfAbsent(to, k -> new ArrayList<>()).add(r.stanzas()[r.stanzaIndex()[i]].forRecipient(to));
        }
        assertThat(got).isEqualTo(sent);
    }

    @Test
    void relay_beyondInitialCapacities_grows() {
        Wire.RelayBuilder rb = new Wire.RelayBuilder();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            RenderedStanza s = rendered("b" + i);
            for (int k = 0; k < 3; k++) {
                rb.add(s, user(k));
                expected.add(user(k) + " <- " + s.forRecipient(user(k)));
            }
        }
        Wire.Relay r = Wire.decode(rb.encode(1, 1, 0)).relay();
        assertThat(r.stanzas()).hasSize(1_000);
        assertThat(deliveries(r)).isEqualTo(expected);
    }

    @Test
    void relayBuilder_clear_startsEmptyAndForgetsEarlierStanzas() {
        RenderedStanza a = rendered("a");
        Wire.RelayBuilder rb = new Wire.RelayBuilder();
        assertThat(rb.isEmpty()).isTrue();
        for (int i = 0; i < 40; i++) {
            rb.add(a, user(i));
        }
        assertThat(rb.isEmpty()).isFalse();
        rb.clear();
        assertThat(rb.isEmpty()).isTrue();
        assertThat(rb.deliveries()).isZero();
        rb.add(a, user(99));
        Wire.Relay r = Wire.decode(rb.encode(1, 2, 3)).relay();
        assertThat(r.stanzas()).hasSize(1);
        assertThat(r.recipients()).containsExactly(user(99));
        assertThat(r.stanzaIndex()).containsExactly(0);
    }

    @Test
    void relayBuilder_empty_encodesNoStanzasNoRecipients() {
        Wire.Relay r = Wire.decode(new Wire.RelayBuilder().encode(1, 1, 0)).relay();
        assertThat(r.stanzas()).isEmpty();
        assertThat(r.recipients()).isEmpty();
        assertThat(r.stanzaIndex()).isEmpty();
    }

    private static byte[] relayWithIndex(int stanzas, long index) {
        Codec.Out out = new Codec.Out(0).u8(Wire.RELAY).i64(1).varint(1).i64(0).varint(stanzas);
        for (int i = 0; i < stanzas; i++) {
            out.string("<message to=\"").string("\"/>");
        }
        return out.varint(1).varint(index).jid(user(1)).toBytes();
    }

    @Test
    void relay_indexInRange_accepted() {
        assertThat(Wire.decode(relayWithIndex(2, 1)).relay().stanzaIndex()).containsExactly(1);
    }

    @Test
    void relay_indexOutOfRange_refusedNamingIt() {
        assertThatThrownBy(() -> Wire.decode(relayWithIndex(1, 1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("relay names stanza 1 of 1");
        assertThatThrownBy(() -> Wire.decode(relayWithIndex(0, 0))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("relay names stanza 0 of 0");
        assertThatThrownBy(() -> Wire.decode(relayWithIndex(2, 1L << 31)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** A ten-byte varint index is negative as a long: it must not pass as "below n" and reach the array. */
    @Test
    void relay_negativeIndex_refused() {
        for (long ix : new long[] {-1, Long.MIN_VALUE, -(1L << 32)}) {
            assertThatThrownBy(() -> Wire.decode(relayWithIndex(2, ix))).as("index %s", ix)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void relay_countsOfTwoToThe31_refused() {
        byte[] stanzas = new Codec.Out(0).u8(Wire.RELAY).i64(1).varint(1).i64(0).varint(1L << 31).toBytes();
        byte[] recipients = new Codec.Out(0).u8(Wire.RELAY).i64(1).varint(1).i64(0).varint(0).varint(1L << 31)
                .toBytes();
        assertThatThrownBy(() -> Wire.decode(Arrays.copyOf(stanzas, stanzas.length + 64)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Wire.decode(Arrays.copyOf(recipients, recipients.length + 64)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** A relay stanza's prefix and suffix are never null; a message saying so is malformed, not a crash. */
    @Test
    void relay_nullPrefixOrSuffix_refused() {
        byte[] nullPrefix = new Codec.Out(0).u8(Wire.RELAY).i64(1).varint(1).i64(0).varint(1).string(null)
                .string("\"/>").varint(0).toBytes();
        byte[] nullSuffix = new Codec.Out(0).u8(Wire.RELAY).i64(1).varint(1).i64(0).varint(1).string("<m to=\"")
                .string(null).varint(0).toBytes();
        assertThatThrownBy(() -> Wire.decode(nullPrefix)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Wire.decode(nullSuffix)).isInstanceOf(IllegalArgumentException.class);
    }

    // ------------------------------------------------------------------------------------------ REDELIVER

    @Test
    void redeliver_roundTripsKeyStanzaAndRecipientsInOrder() {
        RenderedStanza r = rendered("again");
        Wire.Message m = Wire.decode(Wire.redeliver(Long.MIN_VALUE, 1L << 35, 1_700_000_000_000_000L,
                -42L, r, List.of(user(2), user(1), user(3))));
        assertThat(m.kind()).isEqualTo(Wire.REDELIVER);
        assertThat(m.epoch()).isEqualTo(Long.MIN_VALUE);
        assertThat(m.seq()).isEqualTo(1L << 35);
        Wire.Relay relay = m.relay();
        assertThat(relay.redeliveryKey()).isEqualTo(-42L);
        assertThat(relay.sentMicros()).isEqualTo(1_700_000_000_000_000L);
        assertThat(relay.stanzas()).hasSize(1);
        assertThat(deliveries(relay)).containsExactly(
                user(2) + " <- " + r.forRecipient(user(2)),
                user(1) + " <- " + r.forRecipient(user(1)),
                user(3) + " <- " + r.forRecipient(user(3)));
    }

    @Test
    void relay_isNoRedelivery_redeliveryWithoutRecipientsRoundTrips() {
        Wire.RelayBuilder rb = new Wire.RelayBuilder();
        rb.add(rendered("a"), user(1));
        assertThat(Wire.decode(rb.encode(1, 1, 1)).relay().redeliveryKey()).isZero();
        Wire.Relay empty = Wire.decode(Wire.redeliver(1, 1, 1, Long.MAX_VALUE, rendered("a"), List.of())).relay();
        assertThat(empty.redeliveryKey()).isEqualTo(Long.MAX_VALUE);
        assertThat(empty.recipients()).isEmpty();
    }

    @Test
    void redeliver_missingKeyOrRecipient_refused() {
        byte[] noKey = new Codec.Out(0).u8(Wire.REDELIVER).i64(1).varint(1).i64(0).i64(0).string("<m to=\"")
                .string("\"/>").varint(0).toBytes();
        assertThatThrownBy(() -> Wire.decode(noKey)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("needs a key");
        byte[] noRecipient = new Codec.Out(0).u8(Wire.REDELIVER).i64(1).varint(1).i64(0).i64(7)
                .string("<m to=\"").string("\"/>").varint(1).jid(null).toBytes();
        assertThatThrownBy(() -> Wire.decode(noRecipient)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("re-delivery 0 has no recipient");
    }

    // ------------------------------------------------------------------------------------------ malformed

    @ParameterizedTest
    @ValueSource(ints = {0, 7, 12, 127, 255})
    void decode_unknownKind_refusedNamingIt(int kind) {
        byte[] b = new Codec.Out(0).u8(kind).i64(1).varint(1).string("x").toBytes();
        assertThatThrownBy(() -> Wire.decode(b)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown cluster message kind " + kind);
    }

    @Test
    void leaving_roundTrips() {
        Wire.Message m = Wire.decode(Wire.leaving(7, 9));
        assertThat(m.kind()).isEqualTo(Wire.LEAVING);
        assertThat(m.epoch()).isEqualTo(7);
        assertThat(m.seq()).isEqualTo(9);
    }

    @Test
    void decode_empty_refused() {
        assertThatThrownBy(() -> Wire.decode(new byte[0])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void decode_everyTruncationOfEveryKind_refused() {
        Wire.RelayBuilder rb = new Wire.RelayBuilder();
        rb.add(rendered("a"), user(1));
        rb.add(rendered("b"), user(2));
        for (byte[] full : List.of(Wire.forward(1, 2, ROOM, "node-a", 1, Trees.sampleStanza()),
                Wire.forward(1, 2, ROOM, null, 0, XmlElement.builder("iq").build()), Wire.handoff(3, 4, ROOM), rb.encode(5, 6, 7),
                Wire.redeliver(8, 9, 10, 11, rendered("c"), List.of(user(3), user(4))))) {
            Wire.decode(full);
            for (int len = 0; len < full.length; len++) {
                byte[] cut = Arrays.copyOf(full, len);
                assertThatThrownBy(() -> Wire.decode(cut)).as("first %s of %s bytes", len, full.length)
                        .isInstanceOf(IllegalArgumentException.class);
            }
        }
    }

    // ------------------------------------------------------------------------------------------ batches

    @Test
    void batch_roundTrip_keepsEachMessageAndTheirOrder() {
        List<byte[]> messages = List.of(Wire.leaving(7, 1), Wire.handoff(7, 2, ROOM), Wire.confirm(7, 3, 9, 42));
        int total = messages.stream().mapToInt(m -> m.length).sum();
        byte[] batch = Wire.batch(messages, total);
        assertThat(batch[0]).isEqualTo((byte) Wire.BATCH);
        List<byte[]> back = Wire.unbatch(batch);
        assertThat(back).hasSize(3);
        for (int i = 0; i < 3; i++) {
            assertThat(back.get(i)).isEqualTo(messages.get(i));
        }
        assertThat(Wire.decode(back.get(2)).confirmedSeq()).isEqualTo(42);
    }

    @Test
    void unbatch_aSingleMessage_isItself() {
        byte[] one = Wire.leaving(7, 1);
        assertThat(Wire.unbatch(one)).containsExactly(one);
    }

    @Test
    void batch_ofFewerThanTwo_refused() {
        assertThatThrownBy(() -> Wire.batch(List.of(Wire.leaving(7, 1)), 10))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void unbatch_malformed_refused() {
        byte[] inner = Wire.batch(List.of(Wire.leaving(7, 1), Wire.leaving(7, 2)), 40);
        // a batch inside a batch
        byte[] nested = Wire.batch(List.of(inner, Wire.leaving(7, 3)), 80);
        assertThatThrownBy(() -> Wire.unbatch(nested)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("batch itself");
        // truncated
        byte[] cut = Arrays.copyOf(inner, inner.length - 1);
        assertThatThrownBy(() -> Wire.unbatch(cut)).isInstanceOf(IllegalArgumentException.class);
        // trailing bytes
        byte[] longer = Arrays.copyOf(inner, inner.length + 1);
        assertThatThrownBy(() -> Wire.unbatch(longer)).isInstanceOf(IllegalArgumentException.class);
        // a count of one
        byte[] one = new Codec.Out(16).u8(Wire.BATCH).varint(1).bytes(Wire.leaving(7, 1)).toBytes();
        assertThatThrownBy(() -> Wire.unbatch(one)).isInstanceOf(IllegalArgumentException.class);
        // an empty message inside
        byte[] empty = new Codec.Out(16).u8(Wire.BATCH).varint(2).bytes(new byte[0]).bytes(Wire.leaving(7, 1))
                .toBytes();
        assertThatThrownBy(() -> Wire.unbatch(empty)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty");
    }

    // ------------------------------------------------------------------------------------------ ADMIN_CALL / ANSWER

    @Test
    void adminCall_roundTripsEveryField_emptyBodyAndNoQuery() {
        AdminCalls.Call c = new AdminCalls.Call("admin:ann", "PATCH", "/plugins/mucscale/v1/chatrooms/arena",
                "servicename=muc&x=é", "application/json", "{\"description\":\"pvp\"}".getBytes());
        Wire.Message m = Wire.decode(Wire.adminCall(7, 9, 1L << 33, c));
        assertThat(m.kind()).isEqualTo(Wire.ADMIN_CALL);
        assertThat(m.epoch()).isEqualTo(7);
        assertThat(m.seq()).isEqualTo(9);
        assertThat(m.admin().callId()).isEqualTo(1L << 33);
        assertThat(m.admin().answer()).isNull();
        AdminCalls.Call back = m.admin().call();
        assertThat(back.who()).isEqualTo("admin:ann");
        assertThat(back.method()).isEqualTo("PATCH");
        assertThat(back.path()).isEqualTo(c.path());
        assertThat(back.query()).isEqualTo("servicename=muc&x=é");
        assertThat(back.contentType()).isEqualTo("application/json");
        assertThat(back.body()).isEqualTo(c.body());
        AdminCalls.Call bare = Wire.decode(Wire.adminCall(1, 1, 1, new AdminCalls.Call("s", "GET", "/p", null, null,
                null))).admin().call();
        assertThat(bare.query()).isNull();
        assertThat(bare.body()).isEmpty();
    }

    @Test
    void adminAnswer_roundTripsStatusTypeBodyHeaders_statusOutOfRangeRefused() {
        Map<String, String> headers = new java.util.LinkedHashMap<>();
        headers.put("Retry-After", "2");
        headers.put("Location", "/plugins/mucscale/v1/chatrooms/arena");
        Wire.Message m = Wire.decode(Wire.adminAnswer(3, 4, 5, new AdminCalls.Answer(201, "application/json",
                "{\"roomName\":\"arena\"}", headers)));
        assertThat(m.kind()).isEqualTo(Wire.ADMIN_ANSWER);
        assertThat(m.admin().callId()).isEqualTo(5);
        assertThat(m.admin().call()).isNull();
        assertThat(m.admin().answer().status()).isEqualTo(201);
        assertThat(m.admin().answer().body()).isEqualTo("{\"roomName\":\"arena\"}");
        assertThat(m.admin().answer().headers()).containsExactly(Map.entry("Retry-After", "2"),
                Map.entry("Location", "/plugins/mucscale/v1/chatrooms/arena"));
        byte[] bad = Wire.adminAnswer(3, 4, 5, new AdminCalls.Answer(99, null, "", Map.of()));
        assertThatThrownBy(() -> Wire.decode(bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("status 99");
    }
}
