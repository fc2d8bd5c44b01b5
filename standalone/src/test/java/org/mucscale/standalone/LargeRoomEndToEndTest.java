package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.XmlElement;

/**
 * A 427-occupant room (the largest room of the ref-5000 workload) through real Prosody with plain-socket clients:
 * every occupant receives every message exactly once, and each sender's messages in the order sent.
 */
class LargeRoomEndToEndTest {
    static final int OCCUPANTS = 427;
    static final int SENDERS = 20;
    static final int MESSAGES_PER_SENDER = 10;
    static final String ROOM = "big@" + E2eFixture.MUC;

    private static E2eFixture fx;
    private static final List<RawXmppClient> clients = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        fx = new E2eFixture(OCCUPANTS, Map.of("mucscale.muc.default-max-occupants", "1000"));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<RawXmppClient>> logins = new ArrayList<>();
            for (int i = 0; i < OCCUPANTS; i++) {
                int n = i;
                logins.add(pool.submit(() -> fx.raw(n)));
            }
            for (Future<RawXmppClient> f : logins) {
                clients.add(f.get(60, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @AfterAll
    static void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    private static boolean isSelfPresence(XmlElement e) {
        if (!e.name().equals("presence") || !ROOM.equals(bare(e.attribute("from")))) {
            return false;
        }
        XmlElement x = e.child("x", "http://jabber.org/protocol/muc#user");
        if (x == null) {
            return false;
        }
        for (XmlElement status : x.elements("status")) {
            if ("110".equals(status.attribute("code"))) {
                return true;
            }
        }
        return false;
    }

    private static String bare(String jid) {
        if (jid == null) {
            return null;
        }
        int slash = jid.indexOf('/');
        return slash < 0 ? jid : jid.substring(0, slash);
    }

    @Test
    void room427_everyOccupantGetsEveryMessageOnceInPerSenderOrder() throws Exception {
        // the engine's own health probe occupies a room too, so count from what is there before
        int occupantsBefore = fx.server.muc().occupantCount();
        long joinStart = System.nanoTime();
        // The first occupant creates the room (instant room: no configuration needed to unlock it).
        RawXmppClient owner = clients.get(0);
        owner.write("<presence to='" + ROOM + "/o0'><x xmlns='http://jabber.org/protocol/muc'>"
                + "<history maxstanzas='0'/></x></presence>");
        owner.expect(LargeRoomEndToEndTest::isSelfPresence, "owner's self-presence");
        owner.write("<iq type='set' to='" + ROOM + "' id='unlock'><query xmlns='http://jabber.org/protocol/muc#owner'>"
                + "<x xmlns='jabber:x:data' type='submit'/></query></iq>");
        owner.expect(e -> "unlock".equals(e.attribute("id")), "instant room confirmation");
        for (int i = 1; i < OCCUPANTS; i++) {
            clients.get(i).write("<presence to='" + ROOM + "/o" + i + "'><x xmlns='http://jabber.org/protocol/muc'>"
                    + "<history maxstanzas='0'/></x></presence>");
        }
        Thread probe = new Thread(() -> {
            try {
                while (true) {
                    Thread.sleep(10_000);
                    // progress for whoever reads the test output when this is slow (a shared or busy machine)
                    System.out.println("progress: " + fx.server.stats() + " occupants="
                            + fx.server.muc().occupantCount());
                }
            } catch (InterruptedException e) {
                // done
            }
        });
        probe.setDaemon(true);
        probe.start();
        for (int i = 1; i < OCCUPANTS; i++) {
            // generous: about 182,000 presence stanzas cross Prosody during the joins (n squared of XEP-0045)
            clients.get(i).expect(LargeRoomEndToEndTest::isSelfPresence, "self-presence of occupant " + i,
                    Duration.ofSeconds(240));
        }
        long joinMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - joinStart);
        probe.interrupt();
        assertThat(fx.server.muc().occupantCount() - occupantsBefore).isEqualTo(OCCUPANTS);

        // Senders spread over the room; each sends its sequence, paced under the per-occupant flood limit.
        for (int seq = 0; seq < MESSAGES_PER_SENDER; seq++) {
            for (int s = 0; s < SENDERS; s++) {
                int sender = s * (OCCUPANTS / SENDERS);
                clients.get(sender).write("<message to='" + ROOM + "' type='groupchat' id='s" + sender + "-" + seq
                        + "'><body>" + sender + ":" + seq + "</body></message>");
            }
            Thread.sleep(250);
        }

        int expected = SENDERS * MESSAGES_PER_SENDER;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < OCCUPANTS; i++) {
            RawXmppClient c = clients.get(i);
            Map<Integer, Integer> lastSeqBySender = new HashMap<>();
            int received = 0;
            while (received < expected) {
                long left = deadline - System.nanoTime();
                XmlElement e = left <= 0 ? null : c.poll(Duration.ofNanos(left));
                if (e == null) {
                    break;
                }
                if (!e.name().equals("message")) {
                    continue;
                }
                if ("error".equals(e.attribute("type"))) {
                    problems.add("occupant " + i + " got an error: " + e.toXml());
                    continue;
                }
                String body = e.childText("body");
                if (body == null) {
                    continue; // the room subject sent on join
                }
                int colon = body.indexOf(':');
                int sender = Integer.parseInt(body.substring(0, colon));
                int seq = Integer.parseInt(body.substring(colon + 1));
                Integer last = lastSeqBySender.put(sender, seq);
                int want = last == null ? 0 : last + 1;
                if (seq != want) {
                    problems.add("occupant " + i + " got " + body + " after " + (last == null ? "nothing" : last)
                            + " from sender " + sender);
                }
                received++;
            }
            if (received != expected) {
                problems.add("occupant " + i + " received " + received + " of " + expected + " messages");
            }
            // Exactly once: nothing more may arrive.
            XmlElement extra;
            while ((extra = c.poll(Duration.ZERO)) != null) {
                if (extra.name().equals("message") && extra.childText("body") != null) {
                    problems.add("occupant " + i + " got an extra message: " + extra.childText("body"));
                }
            }
            if (problems.size() > 20) {
                break;
            }
        }
        assertThat(problems).as("427 joined in %d ms", joinMs).isEmpty();
        assertThat(fx.server.stats().outboundDroppedQueueFull()).isZero();
        assertThat(fx.server.stats().outboundDroppedDisconnected()).isZero();
        // room threads hand MINA one buffer per batch (up to 64 KiB), not one per stanza: a message to 427 is a few
        // writes, not 427
        ComponentStats stats = fx.server.stats();
        assertThat(stats.writeRequests()).as("%s", stats).isLessThan(stats.stanzasSent() / 20);
        System.out.printf("427-occupant room: joins took %d ms; %d messages x %d occupants delivered%n", joinMs,
                expected, OCCUPANTS);
    }
}
