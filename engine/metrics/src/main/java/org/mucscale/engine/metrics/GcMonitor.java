package org.mucscale.engine.metrics;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Every garbage collection, from the JVM's GC notifications (not from polling the total collection time, which hides
 * a 5 s pause among many short ones).
 *
 * <p><b>Pauses and cycles.</b> A notification is a <em>pause</em> when the application threads were stopped for its
 * duration: the stop-the-world collectors (Serial, Parallel, G1 Young/Old Generation, G1 Concurrent GC's remark and
 * cleanup) and the "Pauses" beans of ZGC and Shenandoah. The "Cycles" beans of ZGC and Shenandoah (action
 * "end of GC cycle") report a concurrent cycle whose duration is mostly spent running alongside the application; they
 * are counted as cycles, never as pauses. Durations come from {@link GcInfo#getDuration()}, which the JVM gives in
 * whole milliseconds, so a sub-millisecond pause shows as 0 ms (counted all the same).
 *
 * <p><b>Concurrency.</b> The JVM's notification thread calls {@link #handle}; {@link #recentPauses} and
 * {@link #lastHeapByPool} are read by the sampler and the HTTP threads. The ring of recent events is bounded
 * ({@code ringCapacity}, oldest overwritten: that is its purpose) and guarded by its own monitor; this is not the
 * message path.
 */
public final class GcMonitor implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GcMonitor.class);

    /** One collection as the dashboard shows it. */
    public record GcEvent(long wallTimeMs, String collector, String action, String cause, long durationMs,
                          boolean pause, long heapBeforeBytes, long heapAfterBytes) {
    }

    /** Heap pool usage around the most recent collection that touched it. */
    public record PoolUsage(long beforeBytes, long afterBytes) {
    }

    private final Consumer<GcEvent> sink;
    private final long jvmStartMs;
    private final GcEvent[] ring;
    private int ringNext;
    private long ringTotal;
    private final List<NotificationEmitter> registered = new ArrayList<>();
    private final NotificationListener listener = this::onNotification;
    private volatile Map<String, PoolUsage> lastHeapByPool = Map.of();
    private final AtomicLong allocatedBytesAtLastGc = new AtomicLong();
    private volatile long heapUsedAfterLastGc = -1;
    private final java.util.Set<String> heapPools;

    /**
     * @param sink         called on the notification thread for every collection (records histograms)
     * @param ringCapacity how many recent collections {@link #recentPauses} keeps
     */
    public GcMonitor(Consumer<GcEvent> sink, int ringCapacity) {
        if (ringCapacity < 1) {
            throw new IllegalArgumentException("ringCapacity must be at least 1, was " + ringCapacity);
        }
        this.sink = sink;
        this.ring = new GcEvent[ringCapacity];
        this.jvmStartMs = ManagementFactory.getRuntimeMXBean().getStartTime();
        java.util.Set<String> heap = new java.util.HashSet<>();
        for (java.lang.management.MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == java.lang.management.MemoryType.HEAP) {
                heap.add(pool.getName());
            }
        }
        this.heapPools = java.util.Set.copyOf(heap);
    }

    /** Registers on every collector bean that emits notifications. Idempotent per instance. */
    public synchronized void start() {
        if (!registered.isEmpty()) {
            return;
        }
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (bean instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(listener, null, null);
                registered.add(emitter);
            }
        }
    }

    /** Removes every listener this monitor added, so a plugin reload leaves nothing behind. */
    @Override
    public synchronized void close() {
        for (NotificationEmitter emitter : registered) {
            try {
                emitter.removeNotificationListener(listener);
            } catch (ListenerNotFoundException e) {
                LOG.debug("GC listener was already gone", e);
            }
        }
        registered.clear();
    }

    /** How many collector beans this monitor listens to (0 after close). */
    public synchronized int listenerCount() {
        return registered.size();
    }

    private void onNotification(Notification notification, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        try {
            handle(GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData()));
        } catch (RuntimeException e) {
            // A notification thread must not die for our sake; a broken event is logged and skipped.
            LOG.warn("could not read a GC notification", e);
        }
    }

    private void handle(GarbageCollectionNotificationInfo info) {
        GcInfo gc = info.getGcInfo();
        long before = 0;
        long after = 0;
        Map<String, PoolUsage> pools = new LinkedHashMap<>(lastHeapByPool);
        for (Map.Entry<String, MemoryUsage> e : gc.getMemoryUsageBeforeGc().entrySet()) {
            MemoryUsage afterUsage = gc.getMemoryUsageAfterGc().get(e.getKey());
            if (afterUsage == null || !isHeapPool(e.getKey())) {
                continue;
            }
            before += e.getValue().getUsed();
            after += afterUsage.getUsed();
            pools.put(e.getKey(), new PoolUsage(e.getValue().getUsed(), afterUsage.getUsed()));
        }
        lastHeapByPool = Collections.unmodifiableMap(pools);
        // The heap grows only by allocation and shrinks only by collection, so what it gained since the previous
        // collection ended is what was allocated in between.
        long previousAfter = heapUsedAfterLastGc;
        if (previousAfter >= 0 && before > previousAfter) {
            allocatedBytesAtLastGc.addAndGet(before - previousAfter);
        }
        heapUsedAfterLastGc = after;
        boolean pause = isPause(info.getGcName(), info.getGcAction());
        GcEvent event = new GcEvent(jvmStartMs + gc.getStartTime(), info.getGcName(), info.getGcAction(),
                info.getGcCause(), gc.getDuration(), pause, before, after);
        synchronized (ring) {
            ring[ringNext] = event;
            ringNext = (ringNext + 1) % ring.length;
            ringTotal++;
        }
        sink.accept(event);
    }

    /** Pause or concurrent cycle, by collector name and action (see the class comment). */
    static boolean isPause(String collector, String action) {
        String a = action == null ? "" : action.toLowerCase(Locale.ROOT);
        String c = collector == null ? "" : collector.toLowerCase(Locale.ROOT);
        if (a.contains("cycle") || c.endsWith(" cycles")) {
            return false;
        }
        return true;
    }

    private boolean isHeapPool(String pool) {
        // Non-heap pools (Metaspace, code cache) also appear in GcInfo; the JVM says which pools are heap.
        return heapPools.contains(pool);
    }

    /** Recent collections, oldest first, at most the ring's capacity. */
    public List<GcEvent> recentEvents() {
        synchronized (ring) {
            List<GcEvent> out = new ArrayList<>(ring.length);
            int n = (int) Math.min(ringTotal, ring.length);
            int start = (int) ((ringNext - n + ring.length) % ring.length);
            for (int i = 0; i < n; i++) {
                out.add(ring[(start + i) % ring.length]);
            }
            return out;
        }
    }

    /** Recent pauses only (concurrent cycles left out), oldest first. */
    public List<GcEvent> recentPauses() {
        List<GcEvent> all = recentEvents();
        all.removeIf(e -> !e.pause());
        return all;
    }

    /** Heap pools as the most recent collection left them: usage before and after. */
    public Map<String, PoolUsage> lastHeapByPool() {
        return lastHeapByPool;
    }

    /**
     * Bytes allocated on the heap since this monitor started, estimated from heap growth between collections plus the
     * growth since the last one. Monotonic enough for a rate; exact only for stop-the-world collectors.
     */
    public long allocatedBytesEstimate() {
        long base = allocatedBytesAtLastGc.get();
        long afterLast = heapUsedAfterLastGc;
        if (afterLast < 0) {
            return base;
        }
        long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        return base + Math.max(0, used - afterLast);
    }
}
