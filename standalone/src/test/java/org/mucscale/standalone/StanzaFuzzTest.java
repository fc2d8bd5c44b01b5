package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.stanza.XmlElement;

/**
 * One million random stanzas, reproducible from {@code -Dmucscale.fuzz.seed=N} (the seed is in every failure
 * message; {@code -Dmucscale.fuzz.scale=0.1} runs a tenth):
 * <ul>
 *   <li>400,000 through the component stream's decoder in random chunk sizes (cut anywhere, mid-character too), each
 *       read back equal to what was written (namespaces resolved, text joined, one level past the depth limit kept),
 *       and now and then a broken stream (bad UTF-8, forbidden XML, unbalanced tags) that must end in a stream error
 *       and nothing else;</li>
 *   <li>300,000 over a real socket into the standalone component (decoder, ComponentConnection, the whole engine
 *       with its filter and room log) and 300,000 handed to the engine directly, including text no parser lets
 *       through (control characters, lone surrogates) and nesting far past the limit.</li>
 * </ul>
 * Zero crashes means: no exception but a stream error from the decoder, not one internal-server-error reply, the
 * link never re-established (a crash in the I/O path closes it), and every room still serving: owners who joined
 * before the storm get their own messages back from each room every 50,000 stanzas and at the end.
 */
class StanzaFuzzTest {
    private static final long SEED = Long.getLong("mucscale.fuzz.seed", 20261125L);
    private static final double SCALE = Double.parseDouble(System.getProperty("mucscale.fuzz.scale", "1"));
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int ROOMS = 10;
    private static final int USERS = 60;
    private static final String HEADER = "<?xml version='1.0'?><stream:stream xmlns:stream='http://etherx.jabber.org/"
            + "streams' xmlns='jabber:component:accept' from='muc.example.test' id='fuzz'>";

    private static int count(int full) {
        return (int) Math.max(1, Math.round(full * SCALE));
    }

    // ------------------------------------------------------------------------------------- the stream decoder

    @Test
    void componentStreamDecoder_randomStanzasInRandomChunks_readBackExactly_brokenStreamsEndInAStreamError() {
        int total = count(400_000);
        FuzzStanzas gen = new FuzzStanzas(SEED, true, ROOMS, USERS);
        SplittableRandom rnd = new SplittableRandom(SEED ^ 0x5DEECE66DL);
        int decoded = 0;
        int brokenStreams = 0;
        int sent = 0;
        while (sent < total) {
            int inStream = Math.min(total - sent, 1 + rnd.nextInt(1_000));
            boolean broken = rnd.nextInt(10) == 0;
            ArrayDeque<XmlElement> expected = new ArrayDeque<>();
            java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream(1 << 16);
            stream.writeBytes(HEADER.getBytes(StandardCharsets.UTF_8));
            int damageAt = broken ? rnd.nextInt(inStream + 1) : -1;
            for (int i = 0; i < inStream; i++) {
                if (i == damageAt) {
                    stream.writeBytes(damage(rnd));
                }
                XmlElement s = gen.stanza();
                if (damageAt < 0 || i < damageAt) {
                    expected.add(s);
                }
                stream.writeBytes(gen.toXml(s).getBytes(StandardCharsets.UTF_8));
                if (rnd.nextInt(10) == 0) {
                    stream.writeBytes((rnd.nextBoolean() ? " " : "\n\t ").getBytes(StandardCharsets.UTF_8));
                }
            }
            if (damageAt == inStream) {
                stream.writeBytes(damage(rnd));
            }
            sent += inStream;
            if (broken) {
                brokenStreams++;
            } else if (rnd.nextBoolean()) {
                stream.writeBytes("</stream:stream>".getBytes(StandardCharsets.UTF_8));
            }
            byte[] bytes = stream.toByteArray();
            String where = "seed " + SEED + ", stanza " + sent;
            List<String> mismatches = new ArrayList<>();
            int[] got = {0};
            XmppStreamDecoder.Listener listener = new XmppStreamDecoder.Listener() {
                @Override
                public void streamOpened(Map<String, String> attributes) {
                }

                @Override
                public void element(XmlElement element) {
                    got[0]++;
                    XmlElement want = expected.poll();
                    String w = want == null ? "nothing" : canonical(want);
                    String g = canonical(element);
                    if (!w.equals(g) && mismatches.size() < 3) {
                        mismatches.add("wrote " + w + "\nread  " + g);
                    }
                }

                @Override
                public void streamClosed() {
                }
            };
            XmppStreamDecoder decoder = new XmppStreamDecoder(8 * 1024 * 1024);
            XmppStreamDecoder.StreamErrorException streamError = null;
            try {
                for (int off = 0; off < bytes.length; ) {
                    int n = Math.min(bytes.length - off, rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(7)
                            : 1 + rnd.nextInt(16_384));
                    decoder.feed(ByteBuffer.wrap(bytes, off, n), listener);
                    off += n;
                }
            } catch (XmppStreamDecoder.StreamErrorException e) {
                streamError = e;
            }
            assertThat(mismatches).as(where).isEmpty();
            if (!broken) {
                assertThat(streamError).as(where).isNull();
                assertThat(expected).as(where + ": stanzas never read back").isEmpty();
                decoded += got[0];
            } else {
                // stanzas before the damage read back as written; the damage itself ends the stream with an error
                assertThat(streamError).as(where + ": a broken stream must end in a stream error").isNotNull();
                assertThat(streamError.condition()).as(where).isIn("not-well-formed", "restricted-xml",
                        "policy-violation", "invalid-namespace");
            }
        }
        assertThat(decoded).isGreaterThan(total * 9 / 10);
        assertThat(brokenStreams).isPositive();
    }

    /** Bytes no XMPP stream may carry, put between two stanzas (those before it must still read back). */
    private static byte[] damage(SplittableRandom rnd) {
        return switch (rnd.nextInt(8)) {
            case 0 -> new byte[] {(byte) 0xFF, (byte) 0xFE};                               // not UTF-8 at all
            case 1 -> new byte[] {'<', 'a', '>', (byte) 0xC3, (byte) 0x28};                 // broken 2-byte sequence
            case 2 -> new byte[] {'<', 'a', '>', (byte) 0xF8, (byte) 0x88, (byte) 0x80};    // no such lead byte
            case 3 -> "<!-- hi -->".getBytes(StandardCharsets.UTF_8);
            case 4 -> "<?pi x?>".getBytes(StandardCharsets.UTF_8);
            case 5 -> "<a>&#0;</a>".getBytes(StandardCharsets.UTF_8);
            case 6 -> "<a></b>".getBytes(StandardCharsets.UTF_8);
            default -> "<a \u0001='x'/>".getBytes(StandardCharsets.UTF_8);
        };
    }

    /**
     * The element as a parser must read it: every element with its resolved namespace, attributes in order, adjacent
     * text joined, and nothing below level {@link XmlElement#MAX_DEPTH} + 1 (the decoder skips it).
     */
    static String canonical(XmlElement stanza) {
        StringBuilder sb = new StringBuilder();
        canonical(sb, stanza, "", 1);
        return sb.toString();
    }

    private static void canonical(StringBuilder sb, XmlElement e, String parentNs, int level) {
        String ns = e.namespace() != null ? e.namespace() : parentNs;
        sb.append('<').append(e.name()).append('{').append(ns).append('}');
        for (int i = 0; i < e.attributeCount(); i++) {
            sb.append(' ').append(e.attributeName(i)).append("=[").append(e.attributeValue(i)).append(']');
        }
        sb.append('>');
        boolean inText = false;
        for (Object c : e.children()) {
            if (c instanceof XmlElement child) {
                if (level <= XmlElement.MAX_DEPTH) {
                    if (inText) {
                        sb.append(']');
                        inText = false;
                    }
                    canonical(sb, child, ns, level + 1);
                }
            } else {
                if (!inText) {
                    sb.append('[');
                    inText = true;
                }
                sb.append((String) c);
            }
        }
        if (inText) {
            sb.append(']');
        }
        sb.append("</>");
    }

    // ----------------------------------------------------------------------- the component link and the engine

    @Test
    void componentLinkAndEngine_randomClientStanzas_noCrash_everyRoomStillServing() throws Exception {
        int perPath = count(300_000);
        AtomicInteger internalErrors = new AtomicInteger();
        AtomicLong repliesSeen = new AtomicLong();
        try (FakeComponentServer xmpp = new FakeComponentServer("s")) {
            Map<String, String> text = new HashMap<>();
            text.put(StandaloneSettings.SERVER_PORT.key(), Integer.toString(xmpp.port()));
            text.put(StandaloneSettings.COMPONENT_DOMAIN.key(), FuzzStanzas.DOMAIN);
            text.put(StandaloneSettings.COMPONENT_SECRET.key(), "s");
            text.put(StandaloneSettings.MAX_STANZA_BYTES.key(), Integer.toString(16 * 1024 * 1024));
            text.put("mucscale.store.jdbc-url", "jdbc:hsqldb:mem:fuzz" + System.nanoTime());
            text.put("mucscale.metrics.http-port", "0");
            try (StandaloneServer server = StandaloneServer.start(Settings.fromText(StandaloneServer.catalog(), text))) {
                xmpp.awaitHandshakes(1, WAIT);
                for (int r = 0; r < ROOMS; r++) {
                    createRoomWithOwner(xmpp, r);
                }
                // From here only the owners' probe echoes are kept; everything else is counted and checked as it
                // arrives.
                xmpp.keep = e -> {
                    repliesSeen.incrementAndGet();
                    XmlElement error = e.child("error");
                    if (error != null && error.child("internal-server-error") != null) {
                        internalErrors.incrementAndGet();
                    }
                    String to = e.attribute("to");
                    String id = e.attribute("id");
                    return to != null && to.startsWith("owner") && id != null && id.startsWith("probe");
                };
                FuzzStanzas overSocketGen = new FuzzStanzas(SEED + 1, true, ROOMS, USERS);
                FuzzStanzas directGen = new FuzzStanzas(SEED + 2, false, ROOMS, USERS);
                int round = 0;
                for (int done = 0; done < perPath; ) {
                    int batch = Math.min(25_000, perPath - done);
                    StringBuilder chunk = new StringBuilder(1 << 20);
                    for (int i = 0; i < batch; i++, done++) {
                        chunk.append(overSocketGen.toXml(overSocketGen.stanza()));
                        if (chunk.length() > (1 << 19)) {
                            xmpp.send(chunk.toString());
                            chunk.setLength(0);
                        }
                        server.engine().process(directGen.stanza());
                    }
                    xmpp.send(chunk.toString());
                    everyRoomServes(xmpp, "round " + round++ + ", seed " + SEED);
                    assertThat(internalErrors.get()).as("internal-server-error replies, seed " + SEED).isZero();
                }
                everyRoomServes(xmpp, "at the end, seed " + SEED);
                assertThat(internalErrors.get()).as("internal-server-error replies, seed " + SEED).isZero();
                assertThat(xmpp.handshakes.get()).as("the link was never re-established, seed " + SEED)
                        .isEqualTo(1);
                assertThat(repliesSeen.get()).isGreaterThan(perPath / 10);
            }
        }
    }

    private static String owner(int r) {
        return "owner" + r + "@owners.test/p";
    }

    private static void createRoomWithOwner(FakeComponentServer xmpp, int r) throws Exception {
        String room = "r" + r + "@" + FuzzStanzas.DOMAIN;
        xmpp.send("<presence from='" + owner(r) + "' to='" + room + "/Owner'><x xmlns='" + FuzzStanzas.NS_MUC
                + "'/></presence>");
        xmpp.expect(e -> e.name().equals("presence") && owner(r).equals(e.attribute("to")), "owner's self-presence",
                WAIT);
        xmpp.send("<iq type='set' id='cfg" + r + "' from='" + owner(r) + "' to='" + room + "'><query xmlns='"
                + FuzzStanzas.NS_OWNER + "'><x xmlns='jabber:x:data' type='submit'/></query></iq>");
        XmlElement result = xmpp.expect(e -> ("cfg" + r).equals(e.attribute("id")), "room configured", WAIT);
        assertThat(result.attribute("type")).isEqualTo("result");
    }

    /** Each owner sends into its room and must get that very message back (a room behind a dead thread would not). */
    private static void everyRoomServes(FakeComponentServer xmpp, String when) throws Exception {
        xmpp.received.clear();
        String tag = Long.toString(System.nanoTime());
        for (int r = 0; r < ROOMS; r++) {
            xmpp.send("<message type='groupchat' id='probe" + r + "-" + tag + "' from='" + owner(r) + "' to='r" + r
                    + "@" + FuzzStanzas.DOMAIN + "'><body>probe " + tag + "</body></message>");
        }
        java.util.Set<String> waiting = new java.util.HashSet<>();
        for (int r = 0; r < ROOMS; r++) {
            waiting.add("probe" + r + "-" + tag);
        }
        while (!waiting.isEmpty()) {
            assertThat(xmpp.failure).as("the server's reading of the component's stream (" + when + ")").isNull();
            // echoes come back in any order (one room thread each): take whichever arrives
            XmlElement echo = xmpp.expect(e -> waiting.contains(e.attribute("id")),
                    "rooms " + waiting + " echoing their owners' messages (" + when + ")", WAIT);
            String id = echo.attribute("id");
            String room = id.substring("probe".length(), id.indexOf('-'));
            assertThat(echo.attribute("to")).as(when).isEqualTo(owner(Integer.parseInt(room)));
            assertThat(echo.attribute("type")).as(when + ": " + echo.toXml()).isEqualTo("groupchat");
            waiting.remove(id);
        }
    }
}
