package org.mucscale.engine.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchRuntimeException;
import static org.mucscale.engine.cluster.Trees.assertSameTree;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * What a reader salvages from a message it cannot read ({@link Wire#carried}): the stanza of a FORWARD cut short or
 * changed after the stanza's attributes, and of a message of a kind it does not know that begins as a FORWARD does
 * (the rule in {@code Wire}'s Javadoc); nothing from a known kind that carries no stanza, nor from bytes that only
 * happen to parse (a stanza that is not for the room, or has no sender).
 */
class WireCarriedTest {
    private static final Jid ROOM = Jid.parse("lobby@conference.example.org");
    private static final XmlElement JOIN = XmlElement.builder("presence").attribute("from", "carol@example.org/r")
            .attribute("to", ROOM + "/carol").attribute("id", "j1")
            .child(XmlElement.builder("x", "http://jabber.org/protocol/muc").build()).build();

    @Test
    void truncatedForward_yieldsTheStanzaWithoutItsChildren() {
        byte[] whole = Wire.forward(1, 3, ROOM, "node-b", 0, JOIN);
        byte[] cut = Arrays.copyOf(whole, whole.length - 3); // inside the <x/> child
        Wire.Carried c = Wire.carried(cut, catchRuntimeException(() -> Wire.decode(cut)));
        assertThat(c.room()).isEqualTo(ROOM);
        assertThat(c.entryNode()).isEqualTo("node-b");
        assertSameTree(c.stanza(), XmlElement.builder("presence").attribute("from", "carol@example.org/r")
                .attribute("to", ROOM + "/carol").attribute("id", "j1").build());
        assertThat(c.refusal().attribute("type")).isEqualTo("error");
    }

    @Test
    void forwardWithAnOriginAndChildrenOfALaterLayout_yieldsTheStanza() {
        byte[] later = new Codec.Out(0).u8(Wire.FORWARD).i64(1).varint(3).jid(ROOM).string("node-b").u8(1)
                .u8(Wire.ORIGIN).string("owner").string("sender").i64(9).varint(4)
                .u8(1).string("message").string(null).varint(2).string("from").string("carol@example.org/r")
                .string("to").string(ROOM.toString()).varint(1).u8(9).toBytes(); // child tag 9: unknown here
        Wire.Carried c = Wire.carried(later, catchRuntimeException(() -> Wire.decode(later)));
        assertThat(c.stanza().name()).isEqualTo("message");
        assertThat(c.stanza().attribute("to")).isEqualTo(ROOM.toString());
    }

    @Test
    void unknownKindThatBeginsAsAForward_yieldsTheWholeStanza() {
        byte[] forward = Wire.forward(1, 3, ROOM, "node-b", 0, JOIN);
        byte[] newKind = forward.clone();
        newKind[0] = 42;
        byte[] withMore = Arrays.copyOf(newKind, newKind.length + 2);
        Wire.Carried c = Wire.carried(withMore, catchRuntimeException(() -> Wire.decode(withMore)));
        assertSameTree(c.stanza(), JOIN);
        assertThat(c.entryNode()).isEqualTo("node-b");
    }

    @Test
    void knownKindsWithoutAStanza_andBytesThatOnlyHappenToParse_yieldNothing() {
        byte[] handoff = Wire.handoff(1, 3, ROOM);
        byte[] cutHandoff = Arrays.copyOf(handoff, handoff.length - 2);
        assertThat(Wire.carried(cutHandoff, catchRuntimeException(() -> Wire.decode(cutHandoff)))).isNull();
        // a later kind whose body is something else: read by the rule, it is no stanza for a room from a sender
        byte[] other = new Codec.Out(0).u8(42).i64(1).varint(3).jid(ROOM).string("node-b").u8(0).u8(0)
                .u8(1).string("presence").string(null).varint(1).string("to").string("someone@else.org/x").varint(0)
                .toBytes();
        assertThat(Wire.carried(other, catchRuntimeException(() -> Wire.decode(other)))).as("no sender").isNull();
        byte[] elsewhere = new Codec.Out(0).u8(42).i64(1).varint(3).jid(ROOM).string("node-b").u8(0).u8(0)
                .u8(1).string("presence").string(null).varint(2).string("from").string("carol@example.org/r")
                .string("to").string("other@conference.example.org/carol").varint(0).toBytes();
        assertThat(Wire.carried(elsewhere, catchRuntimeException(() -> Wire.decode(elsewhere))))
                .as("not for that room").isNull();
        byte[] header = Arrays.copyOf(Wire.forward(1, 3, ROOM, "node-b", 0, JOIN), 12);
        assertThat(Wire.carried(header, catchRuntimeException(() -> Wire.decode(header)))).as("cut in the room")
                .isNull();
    }
}
