package org.mucscale.engine.metrics;

import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Snapshot;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.mucscale.engine.port.Clock;

import java.util.concurrent.atomic.LongAdder;

/**
 * A Dropwizard {@link Reservoir} that keeps every value of a sliding time window in HdrHistogram form, so p99.9 and
 * max are right to the histogram's precision (3 significant digits for latencies) instead of being sampled away as in
 * Dropwizard's decaying or sliding reservoirs.
 *
 * <p><b>Concurrency.</b> Any number of threads write ({@link #update}): a {@link Recorder} makes that wait-free and
 * allocation-free (a few atomic increments). Readers (JMX, Prometheus, the dashboard sampler) take the synchronized
 * read side: each read swaps the recorder's active histogram out (only if anything was recorded since the last read)
 * and adds it into the ring slot of the current time bucket ({@code intervalNs} wide, aligned to the clock) and into
 * the window's running sum, from which a slot is subtracted once when its bucket leaves the window. Every recorded
 * value therefore lands in exactly one slot, however often anyone reads, and a read costs the new values, not the
 * window: a scrape reads every reservoir, and re-merging the whole window per read was most of what a Prometheus
 * scrape cost a node. Snapshots are kept until the window changes. Values above the
 * highest trackable value are clamped to it (and counted in {@link #clampedCount()}), never dropped; negatives count
 * as 0.
 *
 * <p>A value belongs to the bucket in which a reader first collects it, so it may count up to one read interval late;
 * {@link MucScaleMetrics} drains every reservoir each dashboard sample (5 s by default), which bounds that delay.
 *
 * <p>The dashboard sampler is the single consumer of {@link #drainSinceLastDrain}: it gets each value once, in the
 * sample it was recorded in, independently of the window.
 */
public final class HdrWindowReservoir implements Reservoir {

    private final Recorder recorder;
    private final long lowestDiscernibleValue;
    private final long highestTrackableValue;
    private final int significantDigits;
    private final long intervalNs;
    private final int windowBuckets;
    private final Clock clock;
    private final LongAdder clamped = new LongAdder();

    /** Set by writers after recording, cleared by the reader before it swaps: nothing new means nothing to swap. */
    private volatile boolean recorded;

    // Read side; guarded by this.
    private final Histogram[] slots;
    private final long[] slotBucket;
    /** Whether a slot's values are in {@link #merged}. */
    private final boolean[] slotInWindow;
    /** The sum of the slots in the window. */
    private final Histogram merged;
    private final Histogram sinceLastDrain;
    private Histogram recycle;
    private long totalCount;
    /** Changes whenever {@link #merged} does; {@link #snapshot} was taken at {@link #snapshotVersion}. */
    private long version;
    private long snapshotVersion = -1;
    private HdrSnapshot snapshot;

    /**
     * @param lowestDiscernibleValue smallest value told apart from 0 (e.g. 1000 ns: HdrHistogram rounds it down to a
     *                               power of two, so latencies below 1 ms are kept in 512 ns steps)
     * @param highestTrackableValue  values above are clamped
     * @param significantDigits      precision, 1..5
     * @param windowNs               how far back a snapshot reaches
     * @param intervalNs             granularity: the window slides in steps of this
     */
    public HdrWindowReservoir(long lowestDiscernibleValue, long highestTrackableValue, int significantDigits,
                              long windowNs, long intervalNs, Clock clock) {
        if (lowestDiscernibleValue < 1 || highestTrackableValue < 2 * lowestDiscernibleValue) {
            throw new IllegalArgumentException("need 1 <= lowestDiscernibleValue and highestTrackableValue >= twice it, was "
                    + lowestDiscernibleValue + " and " + highestTrackableValue);
        }
        if (intervalNs <= 0 || windowNs < intervalNs) {
            throw new IllegalArgumentException("need 0 < intervalNs <= windowNs, was interval " + intervalNs
                    + " ns, window " + windowNs + " ns");
        }
        this.lowestDiscernibleValue = lowestDiscernibleValue;
        this.highestTrackableValue = highestTrackableValue;
        this.significantDigits = significantDigits;
        this.intervalNs = intervalNs;
        this.windowBuckets = (int) Math.min(1024, (windowNs + intervalNs - 1) / intervalNs);
        this.clock = clock;
        this.recorder = new Recorder(lowestDiscernibleValue, highestTrackableValue, significantDigits);
        // One more slot than the window holds, so the bucket being filled never evicts one still inside the window.
        this.slots = new Histogram[windowBuckets + 1];
        this.slotBucket = new long[windowBuckets + 1];
        this.slotInWindow = new boolean[windowBuckets + 1];
        java.util.Arrays.fill(slotBucket, Long.MIN_VALUE);
        this.merged = newCompatibleHistogram();
        this.sinceLastDrain = newCompatibleHistogram();
    }

    /** A reservoir for latencies in nanoseconds: 512 ns steps below 1 ms, then 3 significant digits, up to 100 s. */
    public static HdrWindowReservoir forNanos(long windowNs, long intervalNs, Clock clock) {
        return new HdrWindowReservoir(1_000L, 100_000_000_000L, 3, windowNs, intervalNs, clock);
    }

    /** A reservoir for sizes and counts: 2 significant digits, up to ten million. */
    public static HdrWindowReservoir forCounts(long windowNs, long intervalNs, Clock clock) {
        return new HdrWindowReservoir(1L, 10_000_000L, 2, windowNs, intervalNs, clock);
    }

    @Override
    public void update(long value) {
        if (value > highestTrackableValue) {
            clamped.increment();
            value = highestTrackableValue;
        } else if (value < 0) {
            value = 0;
        }
        recorder.recordValue(value);
        if (!recorded) {
            recorded = true; // after recording: a reader that clears it and swaps then takes this value
        }
    }

    /** How many values were above the trackable range and recorded as its top. */
    public long clampedCount() {
        return clamped.sum();
    }

    public long highestTrackableValue() {
        return highestTrackableValue;
    }

    /** Number of values recorded since creation (a read-side call: collects pending values first). */
    public synchronized long totalCount() {
        collect(clock.nanoTime());
        return totalCount;
    }

    /** Number of values in the current window. */
    @Override
    public synchronized int size() {
        return (int) Math.min(Integer.MAX_VALUE, windowHistogram().getTotalCount());
    }

    @Override
    public synchronized Snapshot getSnapshot() {
        Histogram window = windowHistogram();
        if (snapshot == null || snapshotVersion != version) {
            snapshot = new HdrSnapshot(window);
            snapshotVersion = version;
        }
        return snapshot;
    }

    /** A copy of the window's histogram, for callers that want HdrHistogram directly. */
    public synchronized Histogram windowCopy() {
        return windowHistogram().copy();
    }

    /**
     * Copies every value recorded since the previous call into {@code into} (which is reset first). One consumer
     * only (the dashboard sampler): a second one would split the values between them.
     */
    public synchronized void drainSinceLastDrain(Histogram into) {
        collect(clock.nanoTime());
        into.reset();
        into.add(sinceLastDrain);
        sinceLastDrain.reset();
    }

    /** An empty histogram of this reservoir's shape. */
    public Histogram newCompatibleHistogram() {
        return new Histogram(lowestDiscernibleValue, highestTrackableValue, significantDigits);
    }

    private Histogram windowHistogram() {
        collect(clock.nanoTime());
        return merged;
    }

    /**
     * Moves what the recorder holds into the slot of the current bucket and into the window's sum, after taking the
     * slots that left the window out of that sum; returns the current bucket.
     */
    private long collect(long now) {
        long bucket = Math.floorDiv(now, intervalNs);
        for (int i = 0; i < slots.length; i++) {
            if (slotInWindow[i] && slotBucket[i] <= bucket - windowBuckets) {
                leaveWindow(i);
            }
        }
        int index = (int) Math.floorMod(bucket, (long) slots.length);
        if (slotBucket[index] != bucket) {
            if (slots[index] == null) {
                slots[index] = newCompatibleHistogram();
            } else {
                if (slotInWindow[index]) { // not reached while the clock moves forward: the loop above took it out
                    leaveWindow(index);
                }
                slots[index].reset();
            }
            slotBucket[index] = bucket;
            slotInWindow[index] = true;
        }
        if (recorded) {
            recorded = false;
            Histogram interval = recorder.getIntervalHistogram(recycle);
            recycle = interval;
            long n = interval.getTotalCount();
            if (n > 0) {
                totalCount += n;
                slots[index].add(interval);
                merged.add(interval);
                sinceLastDrain.add(interval);
                version++;
            }
        }
        return bucket;
    }

    private void leaveWindow(int slot) {
        merged.subtract(slots[slot]);
        slotInWindow[slot] = false;
        version++;
    }
}
