package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link Delivery#flush} contract as room threads keep it: an adapter that holds back what a flushing thread
 * delivers (as the Openfire adapter does, to hand a batch to each event loop at once) sees everything released at the
 * room thread's next flush, in call order, and never more than a bounded number of commands' worth at a time.
 */
class MucDeliveryFlushTest {
    private static final String SERVICE = "muc.example.org";

    private final GatheringDelivery out = new GatheringDelivery();
    private MucService muc;
    private final Jid alice = Jid.parse("alice@example.org/a");
    private final Jid bob = Jid.parse("bob@example.org/b");

    private void start(int shards) {
        muc = MucService.builder(SERVICE, MucConfig.from(Settings.fromText(MucSettings.ALL,
                Map.of("mucscale.muc.shard-threads", Integer.toString(shards),
                        "mucscale.muc.occupant-messages-per-second", "100000",
                        "mucscale.muc.occupant-burst", "100000",
                        "mucscale.muc.room-messages-per-second", "100000"))), out).build();
        muc.start();
    }

    @AfterEach
    void stop() {
        if (muc != null) {
            muc.stop();
        }
    }

    @Test
    void deliveries_heldBackByAdapter_releasedWhenRoomThreadGoesIdle() {
        start(1);
        enterAliceAndBob();
        muc.process(groupchat(alice, "r", "hello"));
        // without a flush after the queue empties, nothing would ever become visible and this would time out
        await(() -> out.visibleBodies(bob).contains("hello"));
        assertThat(out.visibleBodies(alice)).containsExactly("hello");
        assertThat(out.pendingTotal()).isZero();
    }

    @Test
    void deliveries_keepCallOrderPerRecipient_acrossFlushes() {
        start(2);
        enterAliceAndBob();
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            sent.add("m" + i);
            muc.process(groupchat(alice, "r", "m" + i));
        }
        await(() -> out.visibleBodies(bob).size() == 500);
        assertThat(out.visibleBodies(bob)).containsExactlyElementsOf(sent);
        assertThat(out.flushes.get()).as("flushes").isGreaterThan(1);
    }

    @Test
    void busyRoomThread_flushesAtLeastEverySixteenCommands() throws InterruptedException {
        start(1);
        enterAliceAndBob();
        muc.awaitIdle();
        // hold the room thread so that the whole burst is queued before it runs: its queue never empties meanwhile
        java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
        Thread holder = new Thread(() -> muc.onRoomThread(Jid.parse("r@" + SERVICE), shard -> {
            holding.countDown();
            try {
                hold.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        }));
        holder.start();
        holding.await();
        out.maxReleased.set(0);
        for (int i = 0; i < 400; i++) {
            muc.process(groupchat(alice, "r", "b" + i));
        }
        hold.countDown();
        holder.join();
        await(() -> out.visibleBodies(bob).size() >= 400);
        // each groupchat is two deliveries (bob and alice's reflection): 16 commands are at most 32 deliveries
        assertThat(out.maxReleased.get()).as("largest batch released by one flush").isBetween(2, 32);
    }

    /** alice creates room r as an instant room, bob joins it. */
    private void enterAliceAndBob() {
        muc.process(join(alice, "r", "alice"));
        muc.process(instantRoom(alice, "r"));
        muc.process(join(bob, "r", "bob"));
    }

    private static XmlElement join(Jid user, String room, String nick) {
        return XmlElement.builder("presence").attribute("from", user.toString())
                .attribute("to", room + "@" + SERVICE + "/" + nick)
                .child(XmlElement.builder("x", "http://jabber.org/protocol/muc").build()).build();
    }

    /** The owner accepts the default configuration (a new room stays locked until then). */
    private static XmlElement instantRoom(Jid owner, String room) {
        return XmlElement.builder("iq").attribute("from", owner.toString()).attribute("to", room + "@" + SERVICE)
                .attribute("type", "set").attribute("id", "instant")
                .child(XmlElement.builder("query", "http://jabber.org/protocol/muc#owner")
                        .child(XmlElement.builder("x", "jabber:x:data").attribute("type", "submit").build()).build())
                .build();
    }

    private static XmlElement groupchat(Jid from, String room, String body) {
        return XmlElement.builder("message").attribute("from", from.toString())
                .attribute("to", room + "@" + SERVICE).attribute("type", "groupchat").textChild("body", body).build();
    }

    private static void await(BooleanSupplier condition) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not reached within 10 s").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    /** Holds back what a thread that has flushed before delivers, until that thread flushes again. */
    static final class GatheringDelivery implements Delivery {
        private final ThreadLocal<List<XmlElement>> pending = new ThreadLocal<>();
        private final List<List<XmlElement>> allPending = new ArrayList<>();
        private final List<XmlElement> visible = new ArrayList<>();
        final AtomicInteger flushes = new AtomicInteger();
        final AtomicInteger maxReleased = new AtomicInteger();

        @Override
        public void deliver(RenderedStanza stanza, Jid recipient) {
            add(TestXml.parse(stanza.forRecipient(recipient)));
        }

        @Override
        public void send(XmlElement stanza) {
            add(stanza);
        }

        private void add(XmlElement e) {
            List<XmlElement> p = pending.get();
            synchronized (this) {
                (p == null ? visible : p).add(e);
            }
        }

        @Override
        public void flush() {
            List<XmlElement> p = pending.get();
            synchronized (this) {
                if (p == null) {
                    p = new ArrayList<>();
                    pending.set(p);
                    allPending.add(p);
                    return;
                }
                visible.addAll(p);
                maxReleased.accumulateAndGet(p.size(), Math::max);
                p.clear();
            }
            flushes.incrementAndGet();
        }

        synchronized int pendingTotal() {
            int n = 0;
            for (List<XmlElement> p : allPending) {
                n += p.size();
            }
            return n;
        }

        synchronized List<String> visibleBodies(Jid recipient) {
            List<String> bodies = new ArrayList<>();
            for (XmlElement e : visible) {
                if (recipient.toString().equals(e.attribute("to")) && "message".equals(e.name())) {
                    XmlElement body = e.child("body");
                    if (body != null) {
                        bodies.add(body.text());
                    }
                }
            }
            return bodies;
        }
    }
}
