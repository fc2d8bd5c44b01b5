package org.mucscale.engine.store;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The bounded write-behind queue: many producers (room threads), one consumer at a time (the writer's
 * lanes take batches under the writer's take lock, which orders their consumer calls).
 *
 * <p>Design: a ring of {@code capacity} slots, each with a sequence number (Vyukov's bounded queue). A producer claims
 * position {@code t} by CAS on {@code tail} when slot {@code t % capacity} has sequence {@code t} (free for this lap),
 * stores the record, then publishes it by setting the sequence to {@code t + 1}. {@link #offer} never blocks, never
 * allocates, and returns false when the ring is full. The single consumer reads published slots from {@code head}
 * without removing them ({@link #peekInto}), and only later frees them ({@link #release}) by setting their sequence to
 * {@code position + capacity}: the writer first publishes what it took as its in-flight batch, then releases, so a
 * concurrent {@link #snapshot} reader always finds a record either here or in the in-flight batch.
 *
 * <p>Who writes: producers write {@code tail}, their claimed slots and sequences; the consumer writes {@code head}
 * and frees slots. Who reads: anyone may call {@link #size} and {@link #snapshot} (both see a consistent-enough view:
 * a snapshot re-checks a slot's sequence after reading it, so it never returns a record from a recycled slot).
 */
final class RecordQueue {
    private final int capacity;
    private final AtomicReferenceArray<RoomLogRecord> slots;
    private final AtomicLongArray sequences;
    private final AtomicLong tail = new AtomicLong();
    // Written only by the consumer; volatile so size() and snapshot() on other threads see progress.
    private volatile long head;

    RecordQueue(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive, was " + capacity);
        }
        this.capacity = capacity;
        this.slots = new AtomicReferenceArray<>(capacity);
        this.sequences = new AtomicLongArray(capacity);
        for (int i = 0; i < capacity; i++) {
            sequences.set(i, i);
        }
    }

    /** Adds a record unless the queue is full. Lock-free, wait-free when uncontended, no allocation. */
    boolean offer(RoomLogRecord record) {
        long t = tail.get();
        while (true) {
            int index = (int) (t % capacity);
            long seq = sequences.get(index);
            long diff = seq - t;
            if (diff == 0) {
                if (tail.compareAndSet(t, t + 1)) {
                    slots.lazySet(index, record);
                    // A release store publishes the record; readers acquire it with a volatile get.
                    sequences.lazySet(index, t + 1);
                    return true;
                }
                t = tail.get();
            } else if (diff < 0) {
                return false;
            } else {
                t = tail.get();
            }
        }
    }

    /**
     * Consumer only: copies up to {@code max} published records, oldest first, into {@code out} starting at index 0,
     * without removing them. Returns how many.
     */
    int peekInto(RoomLogRecord[] out, int max) {
        long h = head;
        int n = 0;
        while (n < max) {
            long position = h + n;
            int index = (int) (position % capacity);
            if (sequences.get(index) != position + 1) {
                break;
            }
            out[n++] = slots.get(index);
        }
        return n;
    }

    /** Consumer only: the oldest published record without removing it, or null. */
    RoomLogRecord peek() {
        long h = head;
        int index = (int) (h % capacity);
        return sequences.get(index) == h + 1 ? slots.get(index) : null;
    }

    /** Consumer only: frees the {@code n} oldest slots (after {@link #peekInto} returned at least n). */
    void release(int n) {
        long h = head;
        for (int i = 0; i < n; i++) {
            long position = h + i;
            int index = (int) (position % capacity);
            slots.lazySet(index, null);
            sequences.lazySet(index, position + capacity);
        }
        head = h + n;
    }

    /** Records waiting (claimed by producers, not yet released by the consumer). */
    int size() {
        long s = tail.get() - head;
        return (int) Math.max(0, Math.min(s, capacity));
    }

    int capacity() {
        return capacity;
    }

    /** Every record ever accepted (claimed positions). */
    long totalOffered() {
        return tail.get();
    }

    /** Any thread: adds to {@code out} the published records of {@code roomJid} now in the queue, oldest first. */
    void snapshot(String roomJid, List<RoomLogRecord> out) {
        long h = head;
        long t = tail.get();
        for (long position = h; position < t; position++) {
            int index = (int) (position % capacity);
            if (sequences.get(index) != position + 1) {
                continue;
            }
            RoomLogRecord r = slots.get(index);
            if (r != null && sequences.get(index) == position + 1 && r.roomJid().equals(roomJid)) {
                out.add(r);
            }
        }
    }
}
