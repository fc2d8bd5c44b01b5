package org.mucscale.engine.muc;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Bounded queue: many producers (transport threads), one consumer (a room shard thread). Lock-free (Vyukov's bounded
 * queue with a sequence per slot). {@link #offer} returns false when full (overflow policy REJECT_WITH_ERROR: the
 * caller answers the sender with resource-constraint), never blocks, never throws.
 *
 * <pre>
 *   slot i: sequence[i] == pos      -> free for the producer that claimed tail position pos
 *           sequence[i] == pos + 1  -> filled, readable by the consumer at head position pos
 * </pre>
 */
final class ManyToOneCommandQueue<E> {
    private final int mask;
    private final AtomicReferenceArray<E> items;
    private final AtomicLongArray sequences;
    private final AtomicLong tail = new AtomicLong();
    private long head; // consumer only

    /** Capacity is rounded up to a power of two. */
    ManyToOneCommandQueue(int requestedCapacity) {
        int capacity = Integer.highestOneBit(Math.max(2, requestedCapacity - 1)) << 1;
        mask = capacity - 1;
        items = new AtomicReferenceArray<>(capacity);
        sequences = new AtomicLongArray(capacity);
        for (int i = 0; i < capacity; i++) {
            sequences.set(i, i);
        }
    }

    int capacity() {
        return mask + 1;
    }

    boolean offer(E e) {
        while (true) {
            long pos = tail.get();
            int index = (int) (pos & mask);
            long seq = sequences.get(index);
            long diff = seq - pos;
            if (diff == 0) {
                if (tail.compareAndSet(pos, pos + 1)) {
                    items.lazySet(index, e);
                    sequences.set(index, pos + 1);
                    return true;
                }
            } else if (diff < 0) {
                return false; // full
            }
            // else another producer claimed it: retry
        }
    }

    /** Consumer only. */
    E poll() {
        int index = (int) (head & mask);
        if (sequences.get(index) != head + 1) {
            return null;
        }
        E e = items.get(index);
        items.lazySet(index, null);
        sequences.set(index, head + mask + 1);
        head++;
        return e;
    }

    /** Approximate size (for metrics and tests). */
    int size() {
        return (int) Math.max(0, tail.get() - head);
    }
}
