package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.muc.MucConfig;
import org.mucscale.engine.muc.MucService;
import org.mucscale.engine.muc.MucSettings;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.Xml;
import org.mucscale.engine.stanza.XmlElement;
import org.mucscale.standalone.XmppStreamDecoder;

/**
 * The batched raw-write path with real Netty channels (Openfire 5.1's Netty 4.2, NIO transport) and real sockets,
 * driven by a real {@link MucService}: a client that stops reading is held to
 * {@code mucscale.openfire.recipient-max-queued-bytes} (its waiting presences are shed first), is then removed from
 * the room with status 333, and the occupants who read get every message. No Openfire is needed: the test's delivery
 * maps each occupant to its channel the way {@link OpenfireDelivery} does for a local session.
 */
class SlowRecipientBatchedWritesTest {
    private static final String ROOM = "r@muc.test";
    private static final long MAX_QUEUED = 256 * 1024;
    private static final int MESSAGES = 300;
    private static final long WAIT_MS = 30_000;

    private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final List<Socket> sockets = new ArrayList<>();
    private MucService muc;

    @AfterEach
    void stop() throws Exception {
        if (muc != null) {
            muc.stop();
        }
        for (Socket s : sockets) {
            s.close();
        }
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    /** Writes each stanza through the batches on room threads, at once on the event loop otherwise (as Openfire). */
    private static final class ChannelDelivery implements Delivery {
        final EventLoopWriteBatches batches;
        final Map<Jid, Channel> channels = new ConcurrentHashMap<>();

        ChannelDelivery(EventLoopWriteBatches batches) {
            this.batches = batches;
        }

        @Override
        public void deliver(RenderedStanza stanza, Jid recipient) {
            Channel ch = channels.get(recipient);
            if (ch != null && !batches.add(ch, stanza, recipient)) {
                ch.eventLoop().execute(() -> {
                    EventLoopWriteBatches.writeTo(ch, stanza, Xml.escapeAttribute(recipient.toString()));
                    ch.flush();
                });
            }
        }

        @Override
        public void send(XmlElement stanza) {
            deliver(RenderedStanza.render(stanza), Jid.parse(stanza.attribute("to")));
        }

        @Override
        public void flush() {
            batches.flush();
        }
    }

    /** A client socket whose reader thread decodes what arrives (when it reads at all). */
    private static final class Client {
        final Jid jid;
        final Socket socket;
        final BlockingQueue<XmlElement> received = new LinkedBlockingQueue<>();
        final List<XmlElement> all = new CopyOnWriteArrayList<>();

        Client(Jid jid, Socket socket) {
            this.jid = jid;
            this.socket = socket;
        }

        void startReading() {
            Thread t = new Thread(() -> {
                XmppStreamDecoder decoder = new XmppStreamDecoder(1 << 20);
                XmppStreamDecoder.Listener l = new XmppStreamDecoder.Listener() {
                    @Override
                    public void streamOpened(Map<String, String> attributes) {
                    }

                    @Override
                    public void element(XmlElement element) {
                        all.add(element);
                        received.add(element);
                    }

                    @Override
                    public void streamClosed() {
                    }
                };
                try {
                    // the channel carries bare stanzas, as after Openfire's stream header
                    decoder.feed(ByteBuffer.wrap(("<stream:stream xmlns='jabber:client' xmlns:stream='"
                            + XmppStreamDecoder.STREAM_NS + "'>").getBytes(StandardCharsets.UTF_8)), l);
                    InputStream in = socket.getInputStream();
                    byte[] buf = new byte[65536];
                    int n;
                    while ((n = in.read(buf)) > 0) {
                        decoder.feed(ByteBuffer.wrap(buf, 0, n), l);
                    }
                } catch (IOException | XmppStreamDecoder.StreamErrorException e) {
                    // closed at the end of the test
                }
            }, "client-" + jid.local());
            t.setDaemon(true);
            t.start();
        }

        XmlElement await(Predicate<XmlElement> p, String what) throws InterruptedException {
            long deadline = System.currentTimeMillis() + WAIT_MS;
            while (true) {
                long left = deadline - System.currentTimeMillis();
                XmlElement e = left <= 0 ? null : received.poll(left, TimeUnit.MILLISECONDS);
                assertThat(e).as(jid + " waited for " + what).isNotNull();
                if (p.test(e)) {
                    return e;
                }
            }
        }
    }

    private EventLoopWriteBatches batches;
    private ChannelDelivery delivery;
    private BlockingQueue<Channel> accepted;
    private int port;

    /** A Netty server (Openfire's transport), the batches with the bound, and a running MUC service. */
    private void startServerAndService() throws Exception {
        accepted = new LinkedBlockingQueue<>();
        Channel server = new ServerBootstrap().group(boss, workers).channel(NioServerSocketChannel.class)
                // a small kernel send buffer, so the slow client's bytes pile up where the bound can see them
                .childOption(ChannelOption.SO_SNDBUF, 16 * 1024)
                .childHandler(new ChannelInitializer<NioSocketChannel>() {
                    @Override
                    protected void initChannel(NioSocketChannel ch) {
                        accepted.add(ch);
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        port = ((InetSocketAddress) server.localAddress()).getPort();
        batches = new EventLoopWriteBatches();
        batches.recipientMaxQueuedBytes(MAX_QUEUED);
        delivery = new ChannelDelivery(batches);
        muc = MucService.builder("muc.test", MucConfig.from(Settings.fromText(MucSettings.ALL, Map.of())), delivery)
                .build();
        batches.onSlowRecipient(jid -> muc.removeSlowRecipient(jid, OpenfireDelivery.SLOW_REASON), n -> { },
                () -> { });
        muc.start();
    }

    /** The owner creates the instant room. */
    private void createRoom(Client owner) throws InterruptedException {
        muc.process(join(owner.jid, "owner"));
        owner.await(e -> "presence".equals(e.name()), "its self-presence");
        muc.process(XmlElement.builder("iq").attribute("type", "set").attribute("id", "cfg")
                .attribute("from", owner.jid.toString()).attribute("to", ROOM)
                .child(XmlElement.builder("query", "http://jabber.org/protocol/muc#owner")
                        .child(XmlElement.builder("x", "jabber:x:data").attribute("type", "submit").build())
                        .build()).build());
        owner.await(e -> "iq".equals(e.name()), "the instant room's result");
    }

    private void groupchat(Client from, int i, String body) {
        muc.process(XmlElement.builder("message").attribute("type", "groupchat")
                .attribute("from", from.jid.toString()).attribute("to", ROOM)
                .textChild("body", i + ":" + body).build());
    }

    private static void expectMessages(Client c, int from, int to) throws InterruptedException {
        for (int j = from; j <= to; j++) {
            String prefix = j + ":";
            XmlElement m = c.await(e -> "message".equals(e.name()) && e.childText("body") != null, "message " + j);
            assertThat(m.childText("body")).as(c.jid + " gets every message in order").startsWith(prefix);
        }
    }

    @Test
    void clientStopsReading_boundHolds_presencesShedFirst_removedWith333_othersGetEverything() throws Exception {
        startServerAndService();
        Client owner = connect("owner", port, accepted, delivery, false);
        Client slow = connect("slow", port, accepted, delivery, true);
        Client other = connect("other", port, accepted, delivery, false);
        owner.startReading();
        other.startReading();

        createRoom(owner);
        muc.process(join(slow.jid, "slow"));
        muc.process(join(other.jid, "other"));
        other.await(e -> isSelfPresence(e), "its self-presence");

        // paced as people chat: a round of messages, then the readers have them; the client that does not read
        // falls further behind with every round
        String body = "m".repeat(2000);
        for (int i = 0; i < MESSAGES; i++) {
            groupchat(owner, i, body);
            if (i % 10 == 0) {
                // presence changes: what a slow client's queue sheds first
                muc.process(XmlElement.builder("presence").attribute("from", other.jid.toString())
                        .attribute("to", ROOM + "/other").textChild("status", "s" + i).build());
            }
            if (i % 10 == 9) {
                for (Client c : List.of(owner, other)) {
                    expectMessages(c, i - 9, i);
                }
            }
        }

        for (Client c : List.of(owner, other)) {
            XmlElement gone = findOrAwait(c, e -> "presence".equals(e.name())
                    && (ROOM + "/slow").equals(e.attribute("from")) && "unavailable".equals(e.attribute("type")));
            assertThat(statusCodes(gone)).as("the slow client leaves with 'removed for a technical problem'")
                    .contains("333").doesNotContain("307", "110");
            assertThat(gone.toXml()).contains("did not read");
        }
        assertThat(batches.slowRemovedCount()).isEqualTo(1);
        assertThat(batches.presencesShedCount()).as("presences are shed before the client is removed").isPositive();
        assertThat(batches.slowPeakBytes()).as("the slow client never had more than the bound waiting")
                .isPositive().isLessThanOrEqualTo(MAX_QUEUED);
        assertThat(muc.occupantCount()).isEqualTo(2);
    }

    @Test
    void clientPausesThenReads_itsHeldStanzasArriveInOrder_notRemoved() throws Exception {
        startServerAndService();
        Client owner = connect("owner", port, accepted, delivery, false);
        Client late = connect("late", port, accepted, delivery, true);
        owner.startReading();
        createRoom(owner);
        muc.process(join(late.jid, "late"));
        owner.await(e -> "presence".equals(e.name()) && (ROOM + "/late").equals(e.attribute("from")), "late joins");

        // ~200 KB for a client that reads nothing yet: more than its socket and its channel's high-water mark take,
        // less than the 256 KiB bound, so part of it waits in the client's queue
        int messages = 100;
        String body = "m".repeat(2000);
        for (int i = 0; i < messages; i++) {
            groupchat(owner, i, body);
            if (i % 10 == 9) {
                expectMessages(owner, i - 9, i);
            }
        }
        assertThat(batches.slowPeakBytes()).as("stanzas waited for the client that did not read").isPositive();
        late.startReading();
        expectMessages(late, 0, messages - 1);
        assertThat(batches.slowRemovedCount()).isZero();
        assertThat(batches.presencesShedCount()).isZero();
        assertThat(muc.occupantCount()).isEqualTo(2);
    }

    private static XmlElement findOrAwait(Client c, Predicate<XmlElement> p) throws InterruptedException {
        for (XmlElement e : c.all) {
            if (p.test(e)) {
                return e;
            }
        }
        return c.await(p, "the slow client's removal");
    }

    private Client connect(String user, int port, BlockingQueue<Channel> accepted, ChannelDelivery delivery,
                           boolean slowReader) throws Exception {
        Socket s = new Socket();
        if (slowReader) {
            s.setReceiveBufferSize(4096);
        }
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        sockets.add(s);
        Channel ch = accepted.poll(10, TimeUnit.SECONDS);
        assertThat(ch).isNotNull();
        Jid jid = Jid.parse(user + "@example.test/r");
        delivery.channels.put(jid, ch);
        return new Client(jid, s);
    }

    private static XmlElement join(Jid user, String nick) {
        return XmlElement.builder("presence").attribute("from", user.toString()).attribute("to", ROOM + "/" + nick)
                .child(XmlElement.builder("x", "http://jabber.org/protocol/muc").build()).build();
    }

    private static boolean isSelfPresence(XmlElement e) {
        return "presence".equals(e.name()) && statusCodes(e).contains("110");
    }

    private static List<String> statusCodes(XmlElement presence) {
        List<String> codes = new ArrayList<>();
        XmlElement x = presence.child("x", "http://jabber.org/protocol/muc#user");
        if (x != null) {
            for (XmlElement status : x.elements("status")) {
                codes.add(status.attribute("code"));
            }
        }
        return codes;
    }
}
