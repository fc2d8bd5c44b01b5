package org.mucscale.loadgen;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;

/**
 * Counters and latency recorders shared by all connections of one run.
 *
 * <p>Concurrency: MINA processor threads, the pacer and the timer write (LongAdder, HdrHistogram {@link Recorder},
 * both wait-free for writers); the sampler thread reads once per tick. Latencies are in microseconds. The join window
 * stamps are {@link LongAccumulator}s (min/max, lock-free, no allocation per event once a contended cell exists): the
 * processor threads and the timer write them, the run thread reads them once when it writes the results.
 */
final class Stats {
    /** Delivery latency against the scheduled send time, µs. */
    final Recorder deliveryUs = new Recorder(3);
    /** TCP connect to resource bound, µs. */
    final Recorder connectUs = new Recorder(3);
    /** Join presence sent to own occupant presence received, µs. */
    final Recorder joinUs = new Recorder(3);
    /**
     * System.nanoTime of the first join presence any client sent (first sends only, not re-sends): the start of the
     * join window over which joinsPerSec is measured exactly, not at the sampler's 1 s resolution.
     */
    final LongAccumulator firstJoinSentNs = new LongAccumulator(Math::min, Long.MAX_VALUE);
    /** System.nanoTime of the last successful join answer (own occupant presence): the end of the join window. */
    final LongAccumulator lastJoinAnsweredNs = new LongAccumulator(Math::max, Long.MIN_VALUE);

    final LongAdder deliveries = new LongAdder();
    final LongAdder distinctDeliveries = new LongAdder();
    /** Distinct deliveries (also in distinctDeliveries) from senders another process of a sharded run plays. */
    final LongAdder remoteDeliveries = new LongAdder();
    final LongAdder duplicates = new LongAdder();
    final LongAdder reordered = new LongAdder();
    final LongAdder lateBeyondWindow = new LongAdder();
    final LongAdder echoes = new LongAdder();
    final LongAdder bytesReceived = new LongAdder();
    /** Socket reads handed to the scanner: deliveries per read tells how well reads are batched. */
    final LongAdder reads = new LongAdder();

    final LongAdder connected = new LongAdder();
    final LongAdder loggedIn = new LongAdder();
    final LongAdder joined = new LongAdder();
    final LongAdder disconnected = new LongAdder();
    final LongAdder loginFailed = new LongAdder();
    final LongAdder joinFailed = new LongAdder();
    final LongAdder ownerJoinResends = new LongAdder();
    final LongAdder joinResends = new LongAdder();
    final LongAdder roomsCreated = new LongAdder();
    final LongAdder registered = new LongAdder();

    /** Written by the pacer thread only. */
    volatile long messagesSent;
    volatile long wordMessagesSent;
    volatile long expectedDeliveries;
    /** Sharded runs: the recipients in every process (each room's planned size - 1) of every message sent here. */
    volatile long expectedDeliveriesAllShards;
    volatile long sendsSkippedBackpressure;

    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();

    void error(String kind) {
        errors.computeIfAbsent(kind, k -> new LongAdder()).increment();
    }

    long errorCount() {
        long n = 0;
        for (LongAdder a : errors.values()) {
            n += a.sum();
        }
        return n;
    }

    Map<String, Long> errors() {
        Map<String, Long> out = new TreeMap<>();
        errors.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }
}
