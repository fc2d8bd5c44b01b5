package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.port.Clock;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

/** Exactly-once, per-sender order in a 427-occupant room with concurrent senders and busy neighbour rooms. */
class MucConcurrencyTest {
    private static final String SERVICE = "muc.example.org";
    private static final int OCCUPANTS = 427;
    private static final int SENDERS = 8;
    private static final int MESSAGES_PER_SENDER = 150;

    /** Records, per recipient, the bodies of groupchat messages in delivery order (our own port, no parsing). */
    static final class BodyRecorder implements Delivery {
        final Map<Jid, List<String>> bodies = new ConcurrentHashMap<>();
        final AtomicInteger errors = new AtomicInteger();

        @Override
        public void deliver(RenderedStanza stanza, Jid recipient) {
            String s = stanza.suffix();
            int b = s.indexOf("<body>");
            if (b < 0) {
                return; // presence
            }
            String body = s.substring(b + 6, s.indexOf("</body>", b));
            List<String> l = bodies.computeIfAbsent(recipient, k -> new ArrayList<>());
            synchronized (l) {
                l.add(body);
            }
        }

        @Override
        public void send(XmlElement stanza) {
            if ("error".equals(stanza.attribute("type"))) {
                errors.incrementAndGet();
            }
        }
    }

    @Test
    void fanOut_427Occupants_concurrentSenders_exactlyOnceInPerSenderOrder() throws Exception {
        BodyRecorder rec = new BodyRecorder();
        Settings s = Settings.fromText(MucSettings.ALL, Map.of("mucscale.muc.shard-threads", "4",
                "mucscale.muc.occupant-burst", "100000", "mucscale.muc.room-burst", "1000000",
                "mucscale.muc.default-max-occupants", "1000", "mucscale.muc.command-queue-capacity", "65536"));
        MucService muc = MucService.builder(SERVICE, MucConfig.from(s), rec).clock(Clock.SYSTEM).build();
        muc.start();
        try {
            List<Jid> users = new ArrayList<>();
            for (int i = 0; i < OCCUPANTS; i++) {
                Jid u = Jid.parse("u" + i + "@example.org/r");
                users.add(u);
                muc.process(presence(u, "big@" + SERVICE + "/n" + i));
                if (i == 0) {
                    muc.process(instant(u, "big@" + SERVICE));
                }
            }
            // ten neighbour rooms on all shards, busy at the same time
            for (int r = 0; r < 10; r++) {
                for (int i = 0; i < 5; i++) {
                    Jid u = Jid.parse("n" + r + "x" + i + "@example.org/r");
                    muc.process(presence(u, "side" + r + "@" + SERVICE + "/m" + i));
                    if (i == 0) {
                        muc.process(instant(u, "side" + r + "@" + SERVICE));
                    }
                }
            }
            muc.awaitIdle();
            assertThat(muc.occupantCount()).isEqualTo(OCCUPANTS + 50);
            int errorsBefore = rec.errors.get();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < SENDERS; t++) {
                Jid sender = users.get(t * 50);
                int senderIndex = t;
                threads.add(new Thread(() -> {
                    await(go);
                    for (int m = 0; m < MESSAGES_PER_SENDER; m++) {
                        muc.process(XmlElement.builder("message").attribute("from", sender.toString())
                                .attribute("to", "big@" + SERVICE).attribute("type", "groupchat")
                                .textChild("body", senderIndex + ":" + m).build());
                    }
                }));
            }
            for (int r = 0; r < 10; r++) {
                Jid sender = Jid.parse("n" + r + "x0@example.org/r");
                String room = "side" + r + "@" + SERVICE;
                threads.add(new Thread(() -> {
                    await(go);
                    for (int m = 0; m < MESSAGES_PER_SENDER; m++) {
                        muc.process(XmlElement.builder("message").attribute("from", sender.toString())
                                .attribute("to", room).attribute("type", "groupchat")
                                .textChild("body", "side:" + m).build());
                    }
                }));
            }
            threads.forEach(Thread::start);
            go.countDown();
            for (Thread t : threads) {
                t.join(60_000);
            }
            muc.awaitIdle();
            assertThat(rec.errors.get()).isEqualTo(errorsBefore);
            for (Jid u : users) {
                List<String> got = rec.bodies.get(u);
                assertThat(got).as("messages received by " + u).hasSize(SENDERS * MESSAGES_PER_SENDER);
                int[] next = new int[SENDERS];
                for (String body : got) {
                    int colon = body.indexOf(':');
                    int sender = Integer.parseInt(body.substring(0, colon));
                    int seq = Integer.parseInt(body.substring(colon + 1));
                    assertThat(seq).as(u + " order of sender " + sender).isEqualTo(next[sender]);
                    next[sender]++;
                }
            }
            for (int r = 0; r < 10; r++) {
                for (int i = 0; i < 5; i++) {
                    List<String> got = rec.bodies.get(Jid.parse("n" + r + "x" + i + "@example.org/r"));
                    assertThat(got).hasSize(MESSAGES_PER_SENDER);
                }
            }
            muc.checkInvariants();
        } finally {
            List<Thread> threads = muc.threads();
            muc.stop();
            for (Thread t : threads) {
                assertThat(t.isAlive()).isFalse();
            }
        }
    }

    private static XmlElement instant(Jid owner, String room) {
        return XmlElement.builder("iq").attribute("from", owner.toString()).attribute("to", room)
                .attribute("type", "set").attribute("id", "c")
                .child(XmlElement.builder("query", "http://jabber.org/protocol/muc#owner")
                        .child(XmlElement.builder("x", "jabber:x:data").attribute("type", "submit").build()).build())
                .build();
    }

    private static XmlElement presence(Jid from, String to) {
        return XmlElement.builder("presence").attribute("from", from.toString()).attribute("to", to)
                .child(XmlElement.builder("x", "http://jabber.org/protocol/muc").build()).build();
    }

    private static void await(CountDownLatch l) {
        try {
            if (!l.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("start signal not given");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
