package org.mucscale.loadgen;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;

/**
 * Counters and latency recorders shared by all connections of one run.
 *
 * <p>Concurrency: MINA processor threads, the pacer and the timer write (LongAdder, HdrHistogram {@link Recorder},
 * both wait-free for writers); the sampler thread reads once per tick. Latencies are in microseconds.
 */
final class Stats {
    /** Delivery latency against the scheduled send time, µs. */
    final Recorder deliveryUs = new Recorder(3);
    /** TCP connect to resource bound, µs. */
    final Recorder connectUs = new Recorder(3);
    /** Join presence sent to own occupant presence received, µs. */
    final Recorder joinUs = new Recorder(3);

    final LongAdder deliveries = new LongAdder();
    final LongAdder distinctDeliveries = new LongAdder();
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
