package org.mucscale.engine.muc;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

/** Malformed and hostile input gets error replies; the service keeps running and other rooms are unaffected. */
class MucBadInputTest extends MucTestBase {
    private final List<String> refused = new CopyOnWriteArrayList<>();

    private void startCounting(Map<String, String> settings) {
        start(settings, b -> b.listener(new MucListener() {
            @Override
            public void stanzaRefused(String reason) {
                refused.add(reason);
            }
        }));
    }

    @Test
    void stanzaWithoutSender_isCountedAndDropped() {
        startCounting(Map.of());
        send(XmlElement.builder("message").attribute("to", room("r1").toString()).attribute("type", "groupchat")
                .textChild("body", "who?").build());
        send(XmlElement.builder("message").attribute("from", "@@bad").attribute("to", room("r1").toString()).build());
        assertThat(refused).containsExactly("no-sender", "no-sender");
    }

    @Test
    void invalidAddresses_jidMalformedOrItemNotFound() {
        send(XmlElement.builder("message").attribute("from", bob.toString()).attribute("to", "r1@@" + SERVICE)
                .attribute("type", "groupchat").build());
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("jid-malformed");
        send(XmlElement.builder("presence").attribute("from", bob.toString())
                .attribute("to", "r1@other.example.org/Bob").build());
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("item-not-found");
        send(XmlElement.builder("presence").attribute("from", bob.toString())
                .attribute("to", "r1@" + SERVICE + "/bad\u200Enick").build()); // a format character
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("jid-malformed");
        // a control character is not XML text at all: refused before the address is looked at
        send(XmlElement.builder("presence").attribute("from", bob.toString())
                .attribute("to", "r1@" + SERVICE + "/bad\u0007nick").build());
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("bad-request");
    }

    @Test
    void malformedIq_badRequest_unknownNamespace_serviceUnavailable() {
        createInstant(alice, "r1", "Alice");
        send(XmlElement.builder("iq").attribute("from", bob.toString()).attribute("to", room("r1").toString())
                .attribute("type", "get").child(XmlElement.builder("query", "jabber:iq:version").build()).build());
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("bad-request"); // no id
        send(XmlElement.builder("iq").attribute("from", bob.toString()).attribute("to", room("r1").toString())
                .attribute("type", "fetch").attribute("id", "1").build());
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("bad-request");
        assertThat(errorCondition(iq(bob, room("r1"), "get", null))).isEqualTo("bad-request");
        assertThat(errorCondition(iq(bob, room("r1"), "get", XmlElement.builder("query", "urn:unknown:thing")
                .build()))).isEqualTo("service-unavailable");
        assertThat(errorCondition(iq(bob, room("r1"), "get", XmlElement.builder("query").build())))
                .isEqualTo("service-unavailable");
    }

    /** A chain of {@code levels} nested elements (built bottom-up, no recursion). */
    static XmlElement nested(int levels) {
        XmlElement e = XmlElement.builder("a", "urn:test:deep").build();
        for (int i = 1; i < levels; i++) {
            e = XmlElement.builder("a", "urn:test:deep").child(e).build();
        }
        return e;
    }

    @Test
    void stanzaDeeperThanTheLimit_getsPolicyViolation_atTheLimitIsDelivered_andTheRoomServesOn() {
        startCounting(Map.of());
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        XmlElement tooDeep = XmlElement.builder("message").attribute("from", bob.toString())
                .attribute("to", room("r1").toString()).attribute("type", "groupchat").attribute("id", "deep")
                .textChild("body", "deep").child(nested(XmlElement.MAX_DEPTH)).build();
        assertThat(tooDeep.depth()).isEqualTo(XmlElement.MAX_DEPTH + 1);
        send(tooDeep);
        XmlElement error = only(out.take(bob));
        assertThat(errorCondition(error)).isEqualTo("policy-violation");
        assertThat(error.attribute("id")).isEqualTo("deep");
        assertThat(error.child("error").childText("text")).isEqualTo("stanza nested deeper than 64 elements");
        assertThat(error.attribute("from")).as("issue 40: from the room it was sent to").isEqualTo(room("r1").toString());
        assertThat(out.take(alice)).isEmpty();
        assertThat(refused).containsExactly("too-deep");

        XmlElement atLimit = XmlElement.builder("message").attribute("from", bob.toString())
                .attribute("to", room("r1").toString()).attribute("type", "groupchat")
                .textChild("body", "just fits").child(nested(XmlElement.MAX_DEPTH - 1)).build();
        XmlElement deepIq = XmlElement.builder("iq").attribute("from", bob.toString())
                .attribute("to", room("r1").toString()).attribute("type", "get").attribute("id", "deep-iq")
                .child(nested(XmlElement.MAX_DEPTH)).build();
        send(deepIq);
        XmlElement iqError = only(out.take(bob));
        assertThat(iqError.attribute("from")).as("a client waits for the answer from the room").isEqualTo(
                room("r1").toString());
        assertThat(iqError.attribute("id")).isEqualTo("deep-iq");
        refused.clear();
        send(atLimit);
        assertThat(only(out.take(alice)).childText("body")).isEqualTo("just fits");
        send(groupchat(bob, "r1", "still here"));
        assertThat(only(out.take(alice)).childText("body")).isEqualTo("still here");
    }

    /**
     * Text no XML parser lets through (a host's parser or a cluster peer should never hand it over) is refused before
     * anything echoes it: written to the server, it would make the server close the whole link.
     */
    @Test
    void stanzaWithCharactersXmlDoesNotAllow_isRefusedWithoutEchoingThem_andTheRoomServesOn() {
        startCounting(Map.of());
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        String[] bad = {"nul \u0000", "bell \u0007", "lone \uD800 high", "lone \uDC00 low", "\uFFFE", "\uFFFF"};
        for (String text : bad) {
            send(XmlElement.builder("message").attribute("from", bob.toString()).attribute("to", room("r1").toString())
                    .attribute("type", "groupchat").attribute("id", "bad-id " + text).textChild("body", text).build());
            XmlElement error = only(out.take(bob));
            assertThat(errorCondition(error)).isEqualTo("bad-request");
            assertThat(error.attribute("id")).isNull(); // the id holds the same characters: not echoed
            assertThat(org.mucscale.engine.stanza.Xml.isXmlText(error.toXml())).isTrue();
            assertThat(out.take(alice)).isEmpty();
        }
        send(XmlElement.builder("message").attribute("from", bob.toString()).attribute("to", room("r1").toString())
                .attribute("type", "groupchat").attribute("id", "ok-id")
                .child(XmlElement.builder("x", "urn:test").attribute("a", "\u0001").build()).build());
        XmlElement error = only(out.take(bob));
        assertThat(error.attribute("id")).isEqualTo("ok-id");
        assertThat(error.child("error").childText("text")).isEqualTo("stanza holds characters that XML does not allow");
        assertThat(refused).hasSize(bad.length + 1).containsOnly("not-xml-text");
        // a sender whose own address is not XML text gets no answer at all
        send(XmlElement.builder("message").attribute("from", "bob@example.org/\u0001")
                .attribute("to", room("r1").toString()).attribute("type", "groupchat").textChild("body", "x").build());
        assertThat(out.take(alice)).isEmpty();
        assertThat(out.take(bob)).isEmpty();
        assertThat(refused).hasSize(bad.length + 2);
        send(groupchat(bob, "r1", "emoji \uD83C\uDF89 is fine"));
        assertThat(only(out.take(alice)).childText("body")).isEqualTo("emoji \uD83C\uDF89 is fine");
    }

    @Test
    void errorStanzas_areNeverAnswered_andUnknownElementsCounted() {
        startCounting(Map.of());
        createInstant(alice, "r1", "Alice");
        send(XmlElement.builder("message").attribute("from", bob.toString()).attribute("to", room("nope").toString())
                .attribute("type", "error").build());
        send(XmlElement.builder("iq").attribute("from", bob.toString()).attribute("to", room("r1").toString())
                .attribute("type", "error").attribute("id", "x").build());
        send(XmlElement.builder("blob").attribute("from", bob.toString()).attribute("to", room("r1").toString())
                .build());
        assertThat(out.take(bob)).isEmpty();
        assertThat(refused).contains("not-a-stanza");
    }

    @Test
    void presenceError_fromOccupant_removesItWith333() {
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        send(XmlElement.builder("presence").attribute("from", bob.toString()).attribute("to", occ("r1", "Bob")
                .toString()).attribute("type", "error").build());
        assertThat(statusCodes(only(out.take(alice)))).containsExactly(333);
        assertThat(muc.occupantCount()).isEqualTo(1);
    }

    @Test
    void iqFlood_fullQueue_resourceConstraint_serviceRecovers_otherShardUnaffected() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        start(Map.of("mucscale.muc.shard-threads", "2", "mucscale.muc.command-queue-capacity", "16"),
                b -> b.inspector((room, nick, jid, body, subject) -> {
                    if ("block".equals(body)) {
                        entered.countDown();
                        try {
                            release.await(10, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    return MessageInspector.Verdict.PASS;
                }));
        // two rooms on different shards
        String blocked = "a0";
        String other = null;
        int shardOfBlocked = Math.floorMod(room(blocked).hashCode(), 2);
        for (int i = 1; other == null; i++) {
            if (Math.floorMod(room("a" + i).hashCode(), 2) != shardOfBlocked) {
                other = "a" + i;
            }
        }
        createInstant(alice, blocked, "Alice");
        createInstant(carol, other, "Carol");
        try {
            floodWhileBlocked(blocked, other, entered, release);
        } finally {
            release.countDown();
        }
    }

    private void floodWhileBlocked(String blocked, String other, CountDownLatch entered, CountDownLatch release)
            throws InterruptedException {
        muc.process(groupchat(alice, blocked, "block"));
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        int flood = 200;
        for (int i = 0; i < flood; i++) {
            muc.process(XmlElement.builder("iq").attribute("from", bob.toString())
                    .attribute("to", room(blocked).toString()).attribute("type", "get").attribute("id", "f" + i)
                    .child(XmlElement.builder("query", "http://jabber.org/protocol/disco#info").build()).build());
        }
        assertThat(muc.queuedCommands()).isEqualTo(16);
        List<XmlElement> refusedNow = out.take(bob);
        assertThat(refusedNow.size()).isGreaterThanOrEqualTo(flood - 16);
        for (XmlElement e : refusedNow) {
            assertThat(errorCondition(e)).isEqualTo("resource-constraint");
            assertThat(errorType(e)).isEqualTo("wait");
        }
        // the other shard still works while this one is stuck
        muc.process(XmlElement.builder("iq").attribute("from", dave.toString()).attribute("to", room(other).toString())
                .attribute("type", "get").attribute("id", "d1")
                .child(XmlElement.builder("query", "http://jabber.org/protocol/disco#info").build()).build());
        muc.onRoomThread(room(other), shard -> null);
        assertThat(only(out.take(dave)).attribute("type")).isEqualTo("result");
        release.countDown();
        muc.awaitIdle();
        List<XmlElement> later = out.take(bob);
        assertThat(refusedNow.size() + later.size()).isEqualTo(flood);
        assertThat(iq(bob, room(blocked), "get", XmlElement.builder("query", "http://jabber.org/protocol/disco#info")
                .build()).attribute("type")).isEqualTo("result");
    }

    @Test
    void failingPort_internalServerError_threadSurvives() {
        start(Map.of(), b -> b.inspector((room, nick, jid, body, subject) -> {
            if ("boom".equals(body)) {
                throw new IllegalStateException("filter bug");
            }
            return MessageInspector.Verdict.PASS;
        }));
        createInstant(alice, "r1", "Alice");
        send(groupchat(alice, "r1", "boom"));
        assertThat(errorCondition(only(out.take(alice)))).isEqualTo("internal-server-error");
        send(groupchat(alice, "r1", "fine"));
        assertThat(only(out.take(alice)).childText("body")).isEqualTo("fine");
    }

    @Test
    void afterStop_serviceUnavailable_andNoThreadSurvives() {
        createInstant(alice, "r1", "Alice");
        List<Thread> threads = muc.threads();
        muc.stop();
        for (Thread t : threads) {
            assertThat(t.isAlive()).isFalse();
        }
        // occupants were told (332)
        assertThat(statusCodes(only(out.take(alice)))).contains(110, 332);
        muc.process(groupchat(alice, "r1", "anyone?"));
        assertThat(errorCondition(only(out.take(alice)))).isEqualTo("service-unavailable");
    }

    @Test
    void startStopCycles_leaveNoThreads() {
        for (int i = 0; i < 5; i++) {
            MucService s = new MucService(SERVICE, MucConfig.from(Settings.fromText(MucSettings.ALL,
                    Map.of("mucscale.muc.shard-threads", "3"))), new RecordingDelivery(), new ManualClock());
            s.start();
            List<Thread> threads = s.threads();
            assertThat(threads).extracting(Thread::getName)
                    .containsExactly("mucscale-room-0", "mucscale-room-1", "mucscale-room-2");
            s.stop();
            for (Thread t : threads) {
                assertThat(t.isAlive()).isFalse();
            }
        }
    }

    @Test
    void constructor_rejectsNonDomainAddress() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new MucService("room@muc.example.org",
                MucConfig.defaults(), new RecordingDelivery(), new ManualClock()))
                .hasMessageContaining("must be a domain");
        assertThat(Jid.parse(SERVICE)).isEqualTo(muc.serviceJid());
    }
}
