package org.mucscale.engine.metrics;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The rooms with the most traffic, in bounded memory: the space-saving algorithm (Metwally et al.) over
 * {@code capacity} counters. A room with more than {@code total / capacity} messages in an interval is always listed;
 * a listed count may be high by at most its {@code error}.
 *
 * <p><b>Concurrency.</b> Many threads count ({@link #record}). A room already tracked costs a map lookup and an atomic
 * increment, no lock. A room not tracked takes over the smallest counter under a lock that is only ever
 * <em>tried</em>: if another thread holds it, the message is counted in {@link #unattributed()} instead of waiting
 * (the overflow policy: count, never block, never drop silently). One reader at a time
 * ({@link #snapshotAndReset}, the dashboard sampler) takes the lock to list and zero the counters.
 */
public final class TopRooms {

    /** One tracked room. Counters are replaced, never re-keyed, so a stale reference counts for the right room. */
    private static final class Slot {
        final String room;
        final AtomicLong count;
        /** Over-count inherited from the evicted room; written under the lock, read by the snapshot. */
        volatile long error;

        Slot(String room, long count, long error) {
            this.room = room;
            this.count = new AtomicLong(count);
            this.error = error;
        }
    }

    /** A room and its count in the interval; {@code count - error} is a guaranteed lower bound. */
    public record Entry(String room, long count, long error) {
    }

    private final int capacity;
    private final ConcurrentHashMap<String, Slot> slots;
    private final ReentrantLock lock = new ReentrantLock();
    private final LongAdder unattributed = new LongAdder();

    public TopRooms(int capacity) {
        if (capacity < 1 || capacity > 10_000) {
            throw new IllegalArgumentException("capacity must be between 1 and 10000, was " + capacity);
        }
        this.capacity = capacity;
        this.slots = new ConcurrentHashMap<>(capacity * 2);
    }

    /** Counts {@code n} messages for {@code room}. */
    public void record(String room, long n) {
        Slot slot = slots.get(room);
        if (slot != null) {
            slot.count.addAndGet(n);
            return;
        }
        if (!lock.tryLock()) {
            unattributed.add(n);
            return;
        }
        try {
            slot = slots.get(room);
            if (slot != null) {
                slot.count.addAndGet(n);
            } else if (slots.size() < capacity) {
                slots.put(room, new Slot(room, n, 0));
            } else {
                Slot min = null;
                long minCount = Long.MAX_VALUE;
                for (Slot s : slots.values()) {
                    long c = s.count.get();
                    if (c < minCount) {
                        minCount = c;
                        min = s;
                    }
                }
                slots.remove(min.room, min);
                slots.put(room, new Slot(room, minCount + n, minCount));
            }
        } finally {
            lock.unlock();
        }
    }

    /** Messages that could not be attributed because another thread was replacing a counter. */
    public long unattributed() {
        return unattributed.sum();
    }

    /**
     * The tracked rooms with a non-zero count since the previous call, largest first, at most {@code limit}; then
     * zeroes the counts (rooms stay tracked, so a steady room keeps its counter).
     */
    public List<Entry> snapshotAndReset(int limit) {
        List<Entry> entries = new ArrayList<>();
        lock.lock();
        try {
            for (Slot s : slots.values()) {
                long c = s.count.getAndSet(0);
                if (c > 0) {
                    entries.add(new Entry(s.room, c, Math.min(c, s.error)));
                }
            }
            // Errors belong to the interval that is now closed.
            for (Slot s : slots.values()) {
                s.error = 0;
            }
        } finally {
            lock.unlock();
        }
        entries.sort(Comparator.comparingLong(Entry::count).reversed().thenComparing(Entry::room));
        return entries.size() > limit ? List.copyOf(entries.subList(0, limit)) : List.copyOf(entries);
    }
}
