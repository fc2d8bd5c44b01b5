package org.mucscale.engine.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/** What an entry node keeps of the messages it forwarded, until their owner confirms them. */
class UnconfirmedTest {
    private static final Jid ROOM = Jid.parse("room@muc.example.org");

    private static XmlElement groupchat(String id) {
        XmlElement.Builder b = XmlElement.builder("message").attribute("type", "groupchat");
        if (id != null) {
            b.attribute("id", id);
        }
        return b.textChild("body", "hi").build();
    }

    private static List<Long> seqs(List<Unconfirmed.Kept> kept) {
        List<Long> out = new ArrayList<>();
        kept.forEach(k -> out.add(k.seq()));
        return out;
    }

    @Test
    void keeps_onlyGroupchatMessagesWithAnId() {
        assertThat(Unconfirmed.keeps(groupchat("m1"))).isTrue();
        assertThat(Unconfirmed.keeps(groupchat(null))).as("a repeat could not be told apart").isFalse();
        assertThat(Unconfirmed.keeps(XmlElement.builder("message").attribute("type", "chat")
                .attribute("id", "x").build())).isFalse();
        assertThat(Unconfirmed.keeps(XmlElement.builder("presence").attribute("id", "x").build()))
                .isFalse();
    }

    @Test
    void confirm_isCumulative_andNeverGoesBack() {
        Unconfirmed u = new Unconfirmed(100);
        for (long s = 1; s <= 10; s++) {
            u.add(s, ROOM, null, groupchat("m" + s));
        }
        u.confirm(4);
        assertThat(u.size()).isEqualTo(6);
        u.confirm(2); // an older confirmation arriving late changes nothing
        assertThat(u.size()).isEqualTo(6);
        assertThat(seqs(u.takeUnconfirmed())).containsExactly(5L, 6L, 7L, 8L, 9L, 10L);
    }

    @Test
    void nearlyOrderedAdds_confirmedOnesNeverResent_restInSequenceOrder() {
        Unconfirmed u = new Unconfirmed(100);
        // two threads took 5 and 6 and added them the other way round
        for (long s : new long[] {1, 2, 3, 4, 6, 5, 7}) {
            u.add(s, ROOM, null, groupchat("m" + s));
        }
        u.confirm(5); // stops at 6 at the head; 5 behind it is confirmed all the same
        assertThat(seqs(u.takeUnconfirmed())).containsExactly(6L, 7L);
    }

    @Test
    void limit_dropsOldestAndCountsThem() {
        Unconfirmed u = new Unconfirmed(3);
        for (long s = 1; s <= 5; s++) {
            assertThat(u.add(s, ROOM, null, groupchat("m" + s))).isTrue();
        }
        assertThat(u.size()).isEqualTo(3);
        assertThat(u.letGo()).isEqualTo(2);
        assertThat(seqs(u.takeUnconfirmed())).containsExactly(3L, 4L, 5L);
    }

    @Test
    void afterTake_addsAreRefused_soTheCallerRoutesAgain() {
        Unconfirmed u = new Unconfirmed(10);
        u.add(1, ROOM, null, groupchat("a"));
        assertThat(u.takeUnconfirmed()).hasSize(1);
        assertThat(u.add(2, ROOM, null, groupchat("b"))).isFalse();
        assertThat(u.size()).isZero();
        assertThat(u.takeUnconfirmed()).isEmpty();
    }

    @Test
    void concurrentAddsConfirmsAndTake_everyMessageEitherConfirmedTakenOrRefused() throws Exception {
        Unconfirmed u = new Unconfirmed(1_000_000);
        AtomicLong next = new AtomicLong();
        int threads = 3;
        int perThread = 5_000;
        List<Long> refused = java.util.Collections.synchronizedList(new ArrayList<>());
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> adders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    long s = next.incrementAndGet();
                    if (!u.add(s, ROOM, null, groupchat("m" + s))) {
                        refused.add(s);
                    }
                }
            });
            adders.add(th);
            th.start();
        }
        long confirmedTo = 4_000;
        start.countDown();
        while (next.get() < confirmedTo) {
            Thread.sleep(1);
        }
        u.confirm(confirmedTo);
        while (next.get() < 9_000) {
            Thread.sleep(1);
        }
        List<Unconfirmed.Kept> taken = u.takeUnconfirmed();
        for (Thread th : adders) {
            th.join();
        }
        List<Long> takenSeqs = seqs(taken);
        assertThat(takenSeqs).isSorted().doesNotHaveDuplicates().allMatch(s -> s > confirmedTo);
        // every sequence number above the confirmation is either taken (resent) or refused (routed again): none lost
        java.util.Set<Long> accounted = new java.util.HashSet<>(takenSeqs);
        accounted.addAll(refused);
        for (long s = confirmedTo + 1; s <= (long) threads * perThread; s++) {
            assertThat(accounted).as("sequence %d", s).contains(s);
        }
    }
}
