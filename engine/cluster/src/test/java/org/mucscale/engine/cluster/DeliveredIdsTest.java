package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The memory of delivered stanza-ids that decides where a re-delivery is written. Pinned: an id is known once added,
 * for at least half the retention and at most the whole; it never holds more than its capacity; concurrent adders of
 * one id see exactly one "new"; the key is the room-assigned stanza-id of a rendered groupchat message and nothing else.
 */
class DeliveredIdsTest {
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private static final long A = 0x1234_5678_9abc_def0L;
    private static final long B = -7;

    /** Distinct non-zero keys that collide in the tables' low bits, to exercise probing. */
    private static long key(int i) {
        return (i + 1L) << 20;
    }

    private DeliveredIds ids(int capacity, long retentionNanos) {
        return new DeliveredIds(capacity, retentionNanos, clock::get);
    }

    @Test
    void add_firstTimeNew_thenKnown() {
        DeliveredIds d = ids(100, 1000);
        assertThat(d.contains(A)).isFalse();
        assertThat(d.add(A)).isTrue();
        assertThat(d.add(A)).isFalse();
        assertThat(d.contains(A)).isTrue();
        assertThat(d.contains(B)).isFalse();
    }

    @Test
    void age_knownForHalfTheRetention_forgottenAfterTheWhole() {
        DeliveredIds d = ids(100, 1000);
        d.add(A);
        clock.addAndGet(499);
        assertThat(d.contains(A)).isTrue();
        clock.addAndGet(1); // the generation rotates: "a" is in the previous one
        assertThat(d.contains(A)).isTrue();
        d.add(B);
        clock.addAndGet(499);
        assertThat(d.contains(A)).isTrue();
        clock.addAndGet(1); // "a" is a full retention old
        assertThat(d.contains(A)).isFalse();
        assertThat(d.contains(B)).isTrue();
        clock.addAndGet(1000);
        assertThat(d.contains(B)).isFalse();
        assertThat(d.add(A)).isTrue();
    }

    /**
     * After a quiet spell longer than the retention, keys added afterwards are known for half the retention, however
     * many follow: this failed when the clock was read only every 256 new keys (the 256th key's rotation found the
     * generation they had gone into stale and dropped it), and a message was re-delivered to occupants who had it.
     */
    @Test
    void afterAQuietSpell_newKeysKnownForHalfTheRetention_whateverFollows() {
        DeliveredIds d = ids(100_000, 1000);
        d.add(A);
        clock.addAndGet(5000);
        assertThat(d.add(B)).isTrue();
        for (int i = 0; i < 600; i++) {
            clock.addAndGet(i % 100 == 0 ? 1 : 0);
            assertThat(d.add(key(i))).isTrue();
        }
        assertThat(d.add(B)).as("B, added 6 ns ago").isFalse();
        assertThat(d.add(key(0))).isFalse();
        clock.addAndGet(490);
        assertThat(d.add(B)).as("B, a little under half the retention old").isFalse();
    }

    @Test
    void quietForLongerThanTheRetention_forgetsEverything() {
        DeliveredIds d = ids(100, 1000);
        d.add(A);
        clock.addAndGet(5000);
        assertThat(d.contains(A)).isFalse();
        assertThat(d.size()).isZero();
    }

    @Test
    void capacity_neverExceeded_newestHalfAlwaysKnown() {
        DeliveredIds d = ids(1000, Long.MAX_VALUE / 4);
        for (int i = 0; i < 100_000; i++) {
            assertThat(d.add(key(i))).isTrue();
            assertThat(d.size()).isLessThanOrEqualTo(1000);
        }
        for (int i = 100_000 - 500; i < 100_000; i++) {
            assertThat(d.contains(key(i))).as("id %d", i).isTrue();
        }
        assertThat(d.contains(key(0))).isFalse();
    }

    @Test
    void badBounds_refused() {
        assertThatThrownBy(() -> ids(1, 1000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacity must be between 2 and 2^28");
        assertThatThrownBy(() -> ids(10, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Four threads add the same ids in the same order; returns how often an add answered "new". */
    private static int addConcurrently(DeliveredIds d, int perThread, int boundOnSize) throws Exception {
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> news = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                news.add(pool.submit(() -> {
                    start.await();
                    int n = 0;
                    for (int i = 0; i < perThread; i++) {
                        if (d.add(key(i))) {
                            n++;
                        }
                        assertThat(d.size()).isLessThanOrEqualTo(boundOnSize);
                    }
                    return n;
                }));
            }
            start.countDown();
            int total = 0;
            for (Future<Integer> f : news) {
                total += f.get(60, TimeUnit.SECONDS);
            }
            return total;
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void concurrentAdders_withinCapacity_eachIdNewForExactlyOne() throws Exception {
        DeliveredIds d = new DeliveredIds(65_536, TimeUnit.SECONDS.toNanos(60), System::nanoTime);
        assertThat(addConcurrently(d, 20_000, 65_536)).isEqualTo(20_000);
        assertThat(d.size()).isEqualTo(20_000);
    }

    @Test
    void concurrentAdders_farBeyondCapacity_sizeStaysBounded() throws Exception {
        // threads drift apart by more than the capacity, so a slow one re-adds forgotten keys: only the bound holds
        DeliveredIds d = new DeliveredIds(4096, TimeUnit.SECONDS.toNanos(60), System::nanoTime);
        assertThat(addConcurrently(d, 50_000, 4096)).isGreaterThanOrEqualTo(50_000);
        assertThat(d.contains(key(49_999))).isTrue();
    }

    // ------------------------------------------------------------------------------------------ keyOf

    private static XmlElement.Builder message() {
        return XmlElement.builder("message").attribute("from", "lobby@muc.example.org/alice")
                .attribute("type", "groupchat").attribute("id", "c1")
                .child(XmlElement.builder("body").text("hi <there>").build());
    }

    private static XmlElement stanzaId(String id) {
        return XmlElement.builder("stanza-id", "urn:xmpp:sid:0").attribute("id", id)
                .attribute("by", "lobby@muc.example.org").build();
    }

    @Test
    void keyOf_roomAssignedStanzaIdLast_fingerprintOfIdAndRoom() {
        long key = DeliveredIds.keyOf(RenderedStanza.render(message().child(stanzaId("X1")).build()));
        assertThat(key).isNotZero();
        assertThat(DeliveredIds.keyOf(RenderedStanza.render(message().child(stanzaId("X1")).build())))
                .isEqualTo(key);
        assertThat(DeliveredIds.keyOf(RenderedStanza.render(message().child(stanzaId("X2")).build())))
                .isNotEqualTo(key);
        XmlElement otherRoom = message().child(XmlElement.builder("stanza-id", "urn:xmpp:sid:0").attribute("id", "X1")
                .attribute("by", "hall@muc.example.org").build()).build();
        assertThat(DeliveredIds.keyOf(RenderedStanza.render(otherRoom))).isNotEqualTo(key).isNotZero();
        XmlElement otherBody = XmlElement.builder("message").attribute("from", "lobby@muc.example.org/bob")
                .attribute("type", "groupchat").child(XmlElement.builder("body").text("else").build())
                .child(stanzaId("X1")).build();
        assertThat(DeliveredIds.keyOf(RenderedStanza.render(otherBody))).as("only the stanza-id counts")
                .isEqualTo(key);
    }

    @Test
    void keyOf_sameMessageRenderedOnAnotherNode_sameKey() {
        RenderedStanza here = RenderedStanza.render(message().child(stanzaId("X1")).build());
        RenderedStanza there = RenderedStanza.of(here.prefix(), here.suffix());
        assertThat(DeliveredIds.keyOf(there)).isEqualTo(DeliveredIds.keyOf(here)).isNotZero();
    }

    @Test
    void keyOf_noStanzaIdOrNotLast_orNotAMessage_null() {
        assertThat(DeliveredIds.keyOf(RenderedStanza.render(message().build()))).isZero();
        XmlElement delayed = message().child(stanzaId("X1"))
                .child(XmlElement.builder("delay", "urn:xmpp:delay").attribute("stamp", "2026").build()).build();
        assertThat(DeliveredIds.keyOf(RenderedStanza.render(delayed))).isZero();
        assertThat(DeliveredIds.keyOf(RenderedStanza.render(XmlElement.builder("presence")
                .attribute("from", "lobby@muc.example.org/alice").child(stanzaId("X1")).build()))).isZero();
        assertThat(DeliveredIds.keyOf(RenderedStanza.of("<message to=\"", "\"/>"))).isZero();
        assertThat(DeliveredIds.keyOf(RenderedStanza.of("<message to=\"", "/></message>"))).isZero();
    }
}
