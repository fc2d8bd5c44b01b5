package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.dom4j.Element;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/** The adapter's parse-once cache on real dom4j, with stanzas rendered by the engine's own renderer. */
class ParsedStanzaCacheTest {

    static RenderedStanza groupchat(String from, String body) {
        return RenderedStanza.render(XmlElement.builder("message").attribute("from", from)
                .attribute("type", "groupchat").attribute("id", "m-" + body)
                .textChild("body", body)
                .child(XmlElement.builder("stanza-id", "urn:xmpp:sid:0").attribute("id", "sid-" + body)
                        .attribute("by", "room@mucscale.example.org").build())
                .build());
    }

    static RenderedStanza presence(String nick) {
        return RenderedStanza.render(XmlElement.builder("presence").attribute("from", "room@mucscale.example.org/" + nick)
                .child(XmlElement.builder("x", "http://jabber.org/protocol/muc#user")
                        .child(XmlElement.builder("item").attribute("affiliation", "none")
                                .attribute("role", "participant").build())
                        .build())
                .build());
    }

    static Jid user(int i) {
        return Jid.of("u" + i, "example.org", "r");
    }

    @Test
    void copyFor_oneBroadcastToManyRecipients_parsesOnceAndAddressesEveryCopy() {
        ParsedStanzaCache cache = new ParsedStanzaCache();
        RenderedStanza msg = groupchat("room@mucscale.example.org/alice", "hello <&> world");

        List<Element> copies = new ArrayList<>();
        for (int i = 0; i < 427; i++) {
            copies.add(cache.copyFor(msg, user(i)));
        }

        assertThat(cache.parseCount()).isEqualTo(1);
        for (int i = 0; i < copies.size(); i++) {
            Element c = copies.get(i);
            assertThat(c.attributeValue("to")).isEqualTo("u" + i + "@example.org/r");
            assertThat(c.attributeValue("from")).isEqualTo("room@mucscale.example.org/alice");
            assertThat(c.elementText("body")).isEqualTo("hello <&> world");
            assertThat(c.element("stanza-id").getNamespaceURI()).isEqualTo("urn:xmpp:sid:0");
            assertThat(c.getParent()).isNull();
        }
        // copies are independent: Openfire (or an interceptor) changing one does not reach the next recipient
        copies.get(0).addAttribute("id", "changed");
        copies.get(0).element("body").setText("changed");
        Element next = cache.copyFor(msg, user(1000));
        assertThat(next.attributeValue("id")).isEqualTo("m-hello <&> world");
        assertThat(next.elementText("body")).isEqualTo("hello <&> world");
    }

    @Test
    void copyFor_occupantPresencesSentToEveryJoiner_areParsedAboutOnceEach() {
        // A join storm: each joiner receives the (engine-cached) presence of every occupant already there.
        ParsedStanzaCache cache = new ParsedStanzaCache();
        int occupants = 300;
        List<RenderedStanza> presences = new ArrayList<>();
        for (int i = 0; i < occupants; i++) {
            presences.add(presence("nick" + i));
        }
        int joiners = 10;
        for (int j = 0; j < joiners; j++) {
            for (int i = 0; i < occupants; i++) {
                Element p = cache.copyFor(presences.get(i), user(j));
                assertThat(p.attributeValue("from")).isEqualTo("room@mucscale.example.org/nick" + i);
                assertThat(p.attributeValue("to")).isEqualTo("u" + j + "@example.org/r");
            }
        }
        // Without the cache every delivery parsed: 3,000. Slots are direct-mapped by identity hash: a presence alone
        // in its slot is parsed once; presences sharing a slot evict each other on every pass, so each is parsed once
        // per joiner. Which presences collide depends on this JVM's identity hashes, so the exact count is computed
        // from them (a fixed bound failed about one run in thirty).
        java.util.Map<Integer, Integer> perSlot = new java.util.HashMap<>();
        for (RenderedStanza p : presences) {
            perSlot.merge(System.identityHashCode(p) & (cache.slotCount() - 1), 1, Integer::sum);
        }
        long expected = 0;
        for (int m : perSlot.values()) {
            expected += m == 1 ? 1 : (long) m * joiners;
        }
        assertThat(cache.parseCount()).isEqualTo(expected);
        assertThat(expected).as("still far fewer than one parse per delivery").isLessThan((long) occupants * joiners / 2);
    }

    @Test
    void copyFor_roomThreadsBroadcastingAtOnce_eachRecipientGetsItsThreadsStanza() throws Exception {
        ParsedStanzaCache cache = new ParsedStanzaCache(1 << 16, 4);
        int threads = 4;
        int recipients = 2_000;
        CountDownLatch start = new CountDownLatch(1);
        ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread w = new Thread(() -> {
                RenderedStanza mine = groupchat("room" + id + "@mucscale.example.org/n", "from thread " + id);
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < recipients; i++) {
                    Element c = cache.copyFor(mine, user(i));
                    if (!("from thread " + id).equals(c.elementText("body"))
                            || !("u" + i + "@example.org/r").equals(c.attributeValue("to"))) {
                        wrong.add(c.asXML());
                    }
                }
            }, "test-room-" + t);
            workers.add(w);
            w.start();
        }
        start.countDown();
        for (Thread w : workers) {
            w.join(TimeUnit.SECONDS.toMillis(60));
        }

        assertThat(wrong).isEmpty();
        // each thread's broadcast parsed once (a shared one-entry cache re-parsed on every alternation)
        assertThat(cache.parseCount()).isLessThanOrEqualTo(2L * threads);
        assertThat(cache.readersCreated()).isLessThanOrEqualTo(threads);
    }

    @Test
    void parse_manyStanzasOnOneThread_reusesOneReader() {
        ParsedStanzaCache cache = new ParsedStanzaCache();
        for (int i = 0; i < 200; i++) {
            Element e = cache.copyFor(groupchat("room@mucscale.example.org/a", "m" + i), user(i));
            assertThat(e.elementText("body")).isEqualTo("m" + i);
        }
        assertThat(cache.parseCount()).isEqualTo(200);
        assertThat(cache.readersCreated()).isEqualTo(1);
    }

    @Test
    void parse_malformedOrEntityText_failsClearlyOrResolvesNothing_andLaterStanzasStillParse() {
        ParsedStanzaCache cache = new ParsedStanzaCache();
        assertThatThrownBy(() -> cache.parse("<message to='a@b'><body>unclosed</message>"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("not a well-formed stanza");
        // external entities are never resolved (the readers are built like DocumentHelper.parseText's)
        assertThat(cache.parse("<!DOCTYPE m [<!ENTITY x SYSTEM 'file:///etc/passwd'>]><message>&x;</message>")
                .getText()).isEmpty();
        assertThat(cache.copyFor(groupchat("r@m.example.org/a", "after"), user(1)).elementText("body"))
                .isEqualTo("after");
    }

    @Test
    void constructor_sizes_areRoundedUpToPowersOfTwoAndZeroIsRefused() {
        ParsedStanzaCache cache = new ParsedStanzaCache(1000, 3);
        assertThat(cache.slotCount()).isEqualTo(1024);
        assertThat(cache.readerCount()).isEqualTo(4);
        assertThat(new ParsedStanzaCache(1, 1).slotCount()).isEqualTo(1);
        assertThatThrownBy(() -> new ParsedStanzaCache(0, 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1");
    }
}
