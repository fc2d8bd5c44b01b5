package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Per-link order over a transport that reorders and loses. Invariants pinned: each sender's messages are handed on
 * exactly once and in sequence order; a gap is waited for until it is {@code timeout} old (measured from when the
 * link last made progress), then skipped, counted once, and never filled late; a new sender epoch starts the link at
 * 1; a link's first message above 1 starts it after the start window, counted as no gap (L2, cluster-protocol.md);
 * {@link OrderedLinks#forget} drops what was held. Time is passed in, so every case is exact.
 */
class OrderedLinksTest {
    private static final long TIMEOUT = 100;
    private static final long START = 30;
    private static final long EPOCH = 7;

    private final OrderedLinks<Long> links = new OrderedLinks<>(TIMEOUT, START);
    private final List<Long> out = new ArrayList<>();

    private int receive(long seq, long now) {
        return links.receive("a", EPOCH, seq, seq, now, out::add);
    }

    private static List<Long> range(long from, long to) {
        return LongStream.rangeClosed(from, to).boxed().toList();
    }

    // ------------------------------------------------------------------------------------------ sending side

    @Test
    void nextSeq_perNode_startsAtOneAndCountsUp() {
        assertThat(links.nextSeq("b")).isEqualTo(1);
        assertThat(links.nextSeq("b")).isEqualTo(2);
        assertThat(links.nextSeq("c")).isEqualTo(1);
        assertThat(links.nextSeq("b")).isEqualTo(3);
        assertThat(links.outboundLinks()).containsOnlyKeys("b", "c");
    }

    @Test
    void forget_returnsTheEpochLastHeardFromThatNode_orNull() {
        assertThat(links.forget("a")).as("nothing heard").isNull();
        links.receive("a", EPOCH, 1, 1L, 0, out::add);
        links.receive("a", EPOCH + 1, 1, 1L, 0, out::add); // the node restarted
        assertThat(links.forget("a")).isEqualTo(EPOCH + 1);
        assertThat(links.forget("a")).as("forgotten").isNull();
    }

    @Test
    void nextSeq_afterForget_startsAgainAtOne() {
        links.nextSeq("b");
        links.nextSeq("b");
        links.forget("b");
        assertThat(links.nextSeq("b")).isEqualTo(1);
    }

    @Test
    void epoch_perInstance_stableAndDistinct() {
        assertThat(links.epoch()).isEqualTo(links.epoch());
        assertThat(new OrderedLinks<Long>(1, 1).epoch()).isNotEqualTo(links.epoch());
    }

    // ------------------------------------------------------------------------------------------ order

    @Test
    void receive_inOrder_deliveredAtOnce() {
        for (long s = 1; s <= 5; s++) {
            assertThat(receive(s, 0)).isZero();
            assertThat(out).isEqualTo(range(1, s));
        }
        assertThat(links.held()).isZero();
    }

    @Test
    void receive_early_heldUntilTheGapFills() {
        assertThat(receive(3, 0)).isZero();
        assertThat(out).isEmpty();
        assertThat(links.held()).isEqualTo(1);
        receive(1, 1);
        assertThat(out).containsExactly(1L);
        assertThat(links.held()).isEqualTo(1);
        receive(2, 2);
        assertThat(out).containsExactly(1L, 2L, 3L);
        assertThat(links.held()).isZero();
    }

    @Test
    void receive_randomPermutation_deliveredInSequence() {
        List<Long> seqs = new ArrayList<>(range(1, 500));
        Collections.shuffle(seqs, new Random(3));
        for (long s : seqs) {
            assertThat(receive(s, 0)).isZero();
        }
        assertThat(out).isEqualTo(range(1, 500));
        assertThat(links.held()).isZero();
    }

    @Test
    void receive_duplicates_droppedWhetherDeliveredOrHeld() {
        receive(1, 0);
        receive(1, 0);
        receive(3, 0);
        receive(3, 0);
        assertThat(links.held()).isEqualTo(1);
        receive(2, 0);
        receive(2, 0);
        receive(1, 0);
        receive(3, 0);
        assertThat(out).containsExactly(1L, 2L, 3L);
        assertThat(links.held()).isZero();
    }

    @Test
    void receive_seqZeroOrNegative_droppedAsAlreadySeen() {
        assertThat(receive(0, 0)).isZero();
        assertThat(receive(-5, 0)).isZero();
        assertThat(out).isEmpty();
        assertThat(links.held()).isZero();
    }

    @Test
    void receive_twoSenders_independentLinks() {
        List<String> got = new ArrayList<>();
        OrderedLinks<String> l = new OrderedLinks<>(TIMEOUT, START);
        l.receive("a", 1, 2, "a2", 0, got::add);
        l.receive("b", 1, 1, "b1", 0, got::add);
        l.receive("b", 1, 2, "b2", 0, got::add);
        l.receive("a", 1, 1, "a1", 0, got::add);
        assertThat(got).containsExactly("b1", "b2", "a1", "a2");
    }

    // ------------------------------------------------------------------------------------------ gaps

    @Test
    void receive_gapYoungerThanTimeout_stillHeld() {
        receive(1, 0);
        receive(3, 0);
        assertThat(receive(4, TIMEOUT - 1)).isZero();
        assertThat(out).containsExactly(1L);
        assertThat(links.held()).isEqualTo(2);
    }

    @Test
    void receive_gapAsOldAsTimeout_skippedCountedAndDrained() {
        receive(1, 0);
        receive(3, 0);
        receive(4, 50);
        assertThat(receive(6, TIMEOUT)).isEqualTo(1);
        assertThat(out).containsExactly(1L, 3L, 4L);
        assertThat(links.held()).isEqualTo(1);
        // the lost message shows up late: too late, it is dropped rather than delivered out of order
        assertThat(receive(2, TIMEOUT + 1)).isZero();
        assertThat(out).containsExactly(1L, 3L, 4L);
    }

    @Test
    void sweep_gapYoungerThanTimeout_nothing() {
        receive(1, 0);
        receive(3, 0);
        assertThat(links.sweep(TIMEOUT - 1, out::add)).isZero();
        assertThat(out).containsExactly(1L);
        assertThat(links.held()).isEqualTo(1);
    }

    @Test
    void sweep_staleGap_skippedCountedAndDrained() {
        receive(1, 0);
        receive(3, 0);
        receive(4, 10);
        assertThat(links.sweep(TIMEOUT, out::add)).isEqualTo(1);
        assertThat(out).containsExactly(1L, 3L, 4L);
        assertThat(links.held()).isZero();
        assertThat(links.sweep(10 * TIMEOUT, out::add)).isZero();
        receive(5, 10 * TIMEOUT);
        assertThat(out).containsExactly(1L, 3L, 4L, 5L);
    }

    @Test
    void sweep_twoGapsOnOneLink_secondWaitsItsOwnTimeout() {
        receive(1, 0);
        receive(3, 0);
        receive(5, 0);
        assertThat(links.sweep(TIMEOUT, out::add)).isEqualTo(1);
        assertThat(out).containsExactly(1L, 3L);
        assertThat(links.sweep(2 * TIMEOUT - 1, out::add)).isZero();
        assertThat(links.sweep(2 * TIMEOUT, out::add)).isEqualTo(1);
        assertThat(out).containsExactly(1L, 3L, 5L);
        assertThat(links.held()).isZero();
    }

    @Test
    void sweep_gapsOnSeveralLinks_eachSkippedAndSummed() {
        List<Long> got = new ArrayList<>();
        for (String from : List.of("a", "b", "c")) {
            links.receive(from, EPOCH, 1, 1L, 0, got::add);
            links.receive(from, EPOCH, 3, 3L, 0, got::add);
        }
        links.receive("d", EPOCH, 1, 1L, 0, got::add);
        assertThat(links.sweep(TIMEOUT, got::add)).isEqualTo(3);
        assertThat(got).containsExactly(1L, 1L, 1L, 1L, 3L, 3L, 3L);
    }

    @Test
    void sweep_progressOnTheLink_restartsTheGapClock() {
        receive(3, 0);
        receive(1, 90); // progress: 1 delivered, the gap at 2 is now counted from 90
        assertThat(links.sweep(TIMEOUT + 50, out::add)).isZero();
        assertThat(out).containsExactly(1L);
        assertThat(links.sweep(90 + TIMEOUT, out::add)).isEqualTo(1);
        assertThat(out).containsExactly(1L, 3L);
    }

    @Test
    void sweep_noLinks_nothing() {
        assertThat(links.sweep(Long.MAX_VALUE, out::add)).isZero();
        assertThat(out).isEmpty();
    }

    // ------------------------------------------------------------------------------------------ a link's start (L2)

    @Test
    void receive_firstMessageAboveOne_startsTheLinkAfterTheStartWindow_noGapCounted() {
        // the sender numbered its link before this run: the restarted receiver's first message is 41
        assertThat(receive(41, 0)).isZero();
        assertThat(receive(42, START - 1)).isZero();
        assertThat(out).as("held for the start window: a lower number may be on its way").isEmpty();
        assertThat(links.sweep(START, out::add)).as("a link's start is no gap").isZero();
        assertThat(out).containsExactly(41L, 42L);
        assertThat(receive(43, START)).isZero();
        assertThat(out).containsExactly(41L, 42L, 43L);
        assertThat(links.sweep(100 * TIMEOUT, out::add)).isZero();
    }

    @Test
    void receive_firstMessageAboveOne_startWindowPassedOnReceive_startsThereWithoutASweep() {
        receive(41, 0);
        assertThat(receive(43, START)).as("a link's start is no gap").isZero();
        assertThat(out).containsExactly(41L);
        assertThat(links.held()).isEqualTo(1);
    }

    @Test
    void receive_lowerNumberWithinTheStartWindow_startsTheLinkThere() {
        receive(42, 0);
        receive(41, START - 1); // reordered: it starts the link
        assertThat(links.sweep(START, out::add)).isZero();
        assertThat(out).containsExactly(41L, 42L);
        assertThat(receive(1, START)).as("below the start: no run of this receiver's").isZero();
        assertThat(out).containsExactly(41L, 42L);
    }

    @Test
    void receive_seqOneAfterAHigherFirst_startsTheLinkAtOnce() {
        receive(2, 0);
        receive(1, 1);
        assertThat(out).containsExactly(1L, 2L);
        assertThat(links.held()).isZero();
    }

    @Test
    void sweep_realGapAfterTheStart_stillSkippedAndCounted() {
        receive(41, 0);
        links.sweep(START, out::add); // started at 41
        receive(43, START);
        assertThat(links.sweep(START + TIMEOUT - 1, out::add)).isZero();
        assertThat(links.sweep(START + TIMEOUT, out::add)).as("a gap within the run").isEqualTo(1);
        assertThat(out).containsExactly(41L, 43L);
    }

    @Test
    void receive_newSenderEpochAboveOne_startsAgainAfterTheWindow_noGapCounted() {
        receive(1, 0);
        List<Long> got = new ArrayList<>();
        links.receive("a", EPOCH + 1, 7, 107L, 0, got::add);
        assertThat(links.sweep(START, got::add)).isZero();
        assertThat(got).containsExactly(107L);
    }

    // ------------------------------------------------------------------------------------------ epochs, forget

    @Test
    void receive_newSenderEpoch_restartsLinkAtOne() {
        receive(1, 0);
        receive(2, 0);
        receive(4, 0); // held under the old epoch
        List<Long> got = new ArrayList<>();
        assertThat(links.receive("a", EPOCH + 1, 1, 101L, 0, got::add)).isZero();
        assertThat(links.receive("a", EPOCH + 1, 2, 102L, 0, got::add)).isZero();
        assertThat(got).containsExactly(101L, 102L);
        assertThat(links.held()).as("what the old run held is dropped").isZero();
        assertThat(out).containsExactly(1L, 2L);
    }

    @Test
    void receive_newSenderEpochStartingAboveOne_heldAsGap() {
        receive(1, 0);
        List<Long> got = new ArrayList<>();
        links.receive("a", EPOCH + 1, 2, 102L, 0, got::add);
        assertThat(got).isEmpty();
        links.receive("a", EPOCH + 1, 1, 101L, 0, got::add);
        assertThat(got).containsExactly(101L, 102L);
    }

    @Test
    void forget_dropsHeldMessages_andStartsTheLinkAfresh() {
        receive(1, 0);
        receive(2, 0);
        receive(5, 0);
        receive(6, 0);
        assertThat(links.held()).isEqualTo(2);
        links.forget("a");
        assertThat(links.held()).isZero();
        assertThat(links.sweep(10 * TIMEOUT, out::add)).isZero();
        assertThat(out).containsExactly(1L, 2L);
        // same epoch: the returning node's link starts at 1 again
        receive(1, 0);
        assertThat(out).containsExactly(1L, 2L, 1L);
    }

    @Test
    void forget_unknownNode_noEffect() {
        receive(1, 0);
        receive(3, 0);
        links.forget("zz");
        assertThat(links.held()).isEqualTo(1);
    }

    // ------------------------------------------------------------------------------------------ concurrency

    private static List<Long> deliverConcurrently(OrderedLinks<Long> l, long[] order, int threads) throws Exception {
        List<Long> seen = new ArrayList<>(order.length);
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                try {
                    start.await();
                    for (int i; (i = next.getAndIncrement()) < order.length; ) {
                        long seq = order[i];
                        // the consumer is called under the link's lock: a plain list must see no races
                        l.receive("sender", 42, seq, seq, System.nanoTime(), seen::add);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            w.start();
            workers.add(w);
        }
        start.countDown();
        for (Thread w : workers) {
            w.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(w.isAlive()).isFalse();
        }
        assertThat(failure.get()).isNull();
        return seen; // join() orders every worker's writes before this read
    }

    /** Exactly 1..n in order; on failure names the first wrong position instead of printing n numbers. */
    private static void assertOneToN(List<Long> seen, int n) {
        assertThat(seen).hasSize(n);
        int wrong = IntStream.range(0, n).filter(i -> seen.get(i) != i + 1).findFirst().orElse(-1);
        assertThat(wrong).as("first position out of order, around: %s",
                wrong < 0 ? "" : seen.subList(Math.max(0, wrong - 3), Math.min(n, wrong + 3))).isEqualTo(-1);
    }

    @Test
    void receive_fourThreadsShuffled100000_consumerSeesExactlyOneToNInOrder() throws Exception {
        int n = 100_000;
        List<Long> seqs = new ArrayList<>(range(1, n));
        Collections.shuffle(seqs, new Random(11));
        long[] order = seqs.stream().mapToLong(Long::longValue).toArray();
        OrderedLinks<Long> l = new OrderedLinks<>(TimeUnit.HOURS.toNanos(1), TimeUnit.HOURS.toNanos(1));
        assertOneToN(deliverConcurrently(l, order, 4), n);
        assertThat(l.held()).isZero();
    }

    @Test
    void receive_fourThreadsEveryMessageTwice_eachHandedOnOnceInOrder() throws Exception {
        int n = 50_000;
        List<Long> seqs = new ArrayList<>(range(1, n));
        seqs.addAll(range(1, n));
        Collections.shuffle(seqs, new Random(12));
        long[] order = seqs.stream().mapToLong(Long::longValue).toArray();
        OrderedLinks<Long> l = new OrderedLinks<>(TimeUnit.HOURS.toNanos(1), TimeUnit.HOURS.toNanos(1));
        assertOneToN(deliverConcurrently(l, order, 4), n);
        assertThat(l.held()).isZero();
    }
}
