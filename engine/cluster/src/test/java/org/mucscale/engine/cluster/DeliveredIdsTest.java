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

    private DeliveredIds ids(int capacity, long retentionNanos) {
        return new DeliveredIds(capacity, retentionNanos, clock::get);
    }

    @Test
    void add_firstTimeNew_thenKnown() {
        DeliveredIds d = ids(100, 1000);
        assertThat(d.contains("a")).isFalse();
        assertThat(d.add("a")).isTrue();
        assertThat(d.add("a")).isFalse();
        assertThat(d.contains("a")).isTrue();
        assertThat(d.contains("b")).isFalse();
    }

    @Test
    void age_knownForHalfTheRetention_forgottenAfterTheWhole() {
        DeliveredIds d = ids(100, 1000);
        d.add("a");
        clock.addAndGet(499);
        assertThat(d.contains("a")).isTrue();
        clock.addAndGet(1); // the generation rotates: "a" is in the previous one
        assertThat(d.contains("a")).isTrue();
        d.add("b");
        clock.addAndGet(499);
        assertThat(d.contains("a")).isTrue();
        clock.addAndGet(1); // "a" is a full retention old
        assertThat(d.contains("a")).isFalse();
        assertThat(d.contains("b")).isTrue();
        clock.addAndGet(1000);
        assertThat(d.contains("b")).isFalse();
        assertThat(d.add("a")).isTrue();
    }

    @Test
    void quietForLongerThanTheRetention_forgetsEverything() {
        DeliveredIds d = ids(100, 1000);
        d.add("a");
        clock.addAndGet(5000);
        assertThat(d.contains("a")).isFalse();
        assertThat(d.size()).isZero();
    }

    @Test
    void capacity_neverExceeded_newestHalfAlwaysKnown() {
        DeliveredIds d = ids(1000, Long.MAX_VALUE / 4);
        for (int i = 0; i < 100_000; i++) {
            assertThat(d.add("id" + i)).isTrue();
            assertThat(d.size()).isLessThanOrEqualTo(1000);
        }
        for (int i = 100_000 - 500; i < 100_000; i++) {
            assertThat(d.contains("id" + i)).as("id %d", i).isTrue();
        }
        assertThat(d.contains("id0")).isFalse();
    }

    @Test
    void badBounds_refused() {
        assertThatThrownBy(() -> ids(1, 1000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("capacity and retention");
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
                        if (d.add("id" + i)) {
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
        // threads drift apart by more than the capacity, so a slow one re-adds forgotten ids: only the bound holds
        DeliveredIds d = new DeliveredIds(4096, TimeUnit.SECONDS.toNanos(60), System::nanoTime);
        assertThat(addConcurrently(d, 50_000, 4096 + 4)).isGreaterThanOrEqualTo(50_000);
        assertThat(d.contains("id49999")).isTrue();
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
    void keyOf_roomAssignedStanzaIdLast_isIdAndRoom() {
        String key = DeliveredIds.keyOf(RenderedStanza.render(message().child(stanzaId("X1")).build()));
        assertThat(key).contains("X1").contains("lobby@muc.example.org").doesNotContain("<").doesNotContain("/>");
        assertThat(DeliveredIds.keyOf(RenderedStanza.render(message().child(stanzaId("X1")).build())))
                .isEqualTo(key);
        assertThat(DeliveredIds.keyOf(RenderedStanza.render(message().child(stanzaId("X2")).build())))
                .isNotEqualTo(key);
    }

    @Test
    void keyOf_sameMessageRenderedOnAnotherNode_sameKey() {
        RenderedStanza here = RenderedStanza.render(message().child(stanzaId("X1")).build());
        RenderedStanza there = RenderedStanza.of(here.prefix(), here.suffix());
        assertThat(DeliveredIds.keyOf(there)).isEqualTo(DeliveredIds.keyOf(here)).isNotNull();
    }

    @Test
    void keyOf_noStanzaIdOrNotLast_orNotAMessage_null() {
        assertThat(DeliveredIds.keyOf(RenderedStanza.render(message().build()))).isNull();
        XmlElement delayed = message().child(stanzaId("X1"))
                .child(XmlElement.builder("delay", "urn:xmpp:delay").attribute("stamp", "2026").build()).build();
        assertThat(DeliveredIds.keyOf(RenderedStanza.render(delayed))).isNull();
        assertThat(DeliveredIds.keyOf(RenderedStanza.render(XmlElement.builder("presence")
                .attribute("from", "lobby@muc.example.org/alice").child(stanzaId("X1")).build()))).isNull();
        assertThat(DeliveredIds.keyOf(RenderedStanza.of("<message to=\"", "\"/>"))).isNull();
    }
}
