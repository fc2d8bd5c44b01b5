package org.mucscale.engine.muc;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.mucscale.engine.config.Settings;
import org.mucscale.engine.port.Clock;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * CPU and allocation per delivery of one groupchat message in a 427-occupant room, engine only (no socket): the
 * Delivery copies each recipient's bytes into a reused buffer, as a transport would before writing.
 *
 * <ul>
 *   <li>{@code engine}: the whole room-thread path for one message (flood checks, filter port, stanza id, log port,
 *       building the room's copy, one render, 427 spliced deliveries, history), divided by 427.</li>
 *   <li>{@code baselinePerRecipientToXml}: what Openfire does: per recipient a copy of the stanza with its own
 *       {@code to}, serialized with toXml() and encoded, divided by 427.</li>
 * </ul>
 * Run: see docs/benchmarks/muc.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FanOutBenchmark {
    static final int OCCUPANTS = 427;

    /** Copies the bytes of each delivery into one reused buffer (what a transport does before the socket write). */
    static final class CopyingDelivery implements Delivery {
        final byte[] buffer = new byte[64 * 1024];
        long written;

        @Override
        public void deliver(RenderedStanza stanza, Jid recipient) {
            byte[] p = stanza.prefixUtf8();
            byte[] s = stanza.suffixUtf8();
            System.arraycopy(p, 0, buffer, 0, p.length);
            int n = p.length;
            String to = recipient.toString(); // cached in Jid, no allocation
            for (int i = 0, len = to.length(); i < len; i++) {
                buffer[n++] = (byte) to.charAt(i); // ASCII recipients in this benchmark
            }
            System.arraycopy(s, 0, buffer, n, s.length);
            written += n + s.length;
        }

        @Override
        public void send(XmlElement stanza) {
            byte[] b = stanza.toXml().getBytes(StandardCharsets.UTF_8);
            written += b.length;
        }
    }

    CopyingDelivery delivery;
    Room room;
    RoomShard shard;
    Command message;
    XmlElement broadcastCopy;
    Jid[] recipients;
    Jid roomJid;

    @Setup(Level.Trial)
    public void setUp() {
        delivery = new CopyingDelivery();
        Settings settings = Settings.fromText(MucSettings.ALL, Map.of(
                "mucscale.muc.occupant-messages-per-second", "1000000", "mucscale.muc.occupant-burst", "1000000",
                "mucscale.muc.room-messages-per-second", "10000000", "mucscale.muc.room-burst", "10000000",
                "mucscale.muc.default-max-occupants", "1000", "mucscale.muc.history-size", "20"));
        ServiceContext ctx = new ServiceContext(Jid.parse("muc.example.org"), MucConfig.from(settings), delivery,
                Clock.SYSTEM, MessageInspector.PASS_ALL, RoomLogSink.NONE, RoomRepository.NONE, MucListener.NONE,
                RoomPlacement.LOCAL, RoomReplication.NONE);
        shard = new RoomShard(0, ctx, 1024); // its thread is never started: the benchmark thread plays the shard
        roomJid = Jid.parse("big@muc.example.org");
        recipients = new Jid[OCCUPANTS];
        for (int i = 0; i < OCCUPANTS; i++) {
            Jid user = Jid.parse("user" + i + "@example.org/res" + i);
            recipients[i] = user;
            XmlElement join = XmlElement.builder("presence").attribute("from", user.toString())
                    .attribute("to", roomJid + "/nick" + i)
                    .child(XmlElement.builder("x", Stanzas.NS_MUC).build()).build();
            run(join, user, Jid.parse(roomJid + "/nick" + i));
            if (i == 0) {
                run(XmlElement.builder("iq").attribute("from", user.toString()).attribute("to", roomJid.toString())
                        .attribute("type", "set").attribute("id", "cfg")
                        .child(XmlElement.builder("query", Stanzas.NS_MUC_OWNER)
                                .child(XmlElement.builder("x", Stanzas.NS_DATA).attribute("type", "submit").build())
                                .build()).build(), user, roomJid);
            }
        }
        room = shard.rooms.get(roomJid);
        if (room.occupantCount() != OCCUPANTS) {
            throw new IllegalStateException("room has " + room.occupantCount() + " occupants");
        }
        Jid sender = recipients[7]; // a participant, so flood checks run
        XmlElement m = XmlElement.builder("message").attribute("from", sender.toString())
                .attribute("to", roomJid.toString()).attribute("type", "groupchat").attribute("id", "msg-1")
                .textChild("body", "The quick brown fox jumps over the lazy dog; a typical chat line of some length.")
                .build();
        message = new Command(m, sender, roomJid, roomJid, 0);
        broadcastCopy = XmlElement.builder("message").attribute("from", roomJid + "/nick7")
                .attribute("type", "groupchat").attribute("id", "msg-1")
                .textChild("body", "The quick brown fox jumps over the lazy dog; a typical chat line of some length.")
                .child(XmlElement.builder("stanza-id", Stanzas.NS_SID).attribute("id", "x-1")
                        .attribute("by", roomJid.toString()).build())
                .build();
    }

    private void run(XmlElement stanza, Jid from, Jid to) {
        Command c = new Command(stanza, from, to, roomJid, 0);
        Room r = shard.rooms.get(roomJid);
        if (r == null) {
            r = Room.createOrRefuse(shard, c);
        }
        r.handle(c);
    }

    private final Jid joiner = Jid.parse("joiner@example.org/res");
    private final Command join = new Command(XmlElement.builder("presence").attribute("from", "joiner@example.org/res")
            .attribute("to", "big@muc.example.org/joiner").child(XmlElement.builder("x", Stanzas.NS_MUC).build())
            .build(), joiner, Jid.parse("big@muc.example.org/joiner"), Jid.parse("big@muc.example.org"), 0);
    private final Command leave = new Command(XmlElement.builder("presence").attribute("from", "joiner@example.org/res")
            .attribute("to", "big@muc.example.org/joiner").attribute("type", "unavailable").build(), joiner,
            Jid.parse("big@muc.example.org/joiner"), Jid.parse("big@muc.example.org"), 0);

    /** One join (427 occupants' presence to the joiner, its presence to 427, self-presence, subject) and a leave. */
    public long joinAndLeave() {
        room.handle(join);
        room.handle(leave);
        return delivery.written;
    }

    @Benchmark
    @OperationsPerInvocation(OCCUPANTS)
    public long engine() {
        room.handle(message);
        return delivery.written;
    }

    @Benchmark
    @OperationsPerInvocation(OCCUPANTS)
    public void baselinePerRecipientToXml(Blackhole bh) {
        byte[] buffer = delivery.buffer;
        for (Jid r : recipients) {
            byte[] bytes = broadcastCopy.withAttribute("to", r.toString()).toXml().getBytes(StandardCharsets.UTF_8);
            System.arraycopy(bytes, 0, buffer, 0, bytes.length);
            bh.consume(bytes.length);
        }
    }
}
