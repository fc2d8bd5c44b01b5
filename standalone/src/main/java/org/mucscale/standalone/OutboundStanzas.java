package org.mucscale.standalone;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.future.WriteFuture;
import org.apache.mina.core.session.IoSession;
import org.mucscale.engine.metrics.MucScaleMetrics;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The component link's outbound side: encodes the engine's stanzas onto the authenticated stream, gathers each room
 * thread's stanzas into one write per flush, bounds the bytes waiting in MINA's write queue and pauses room threads
 * while the server reads too slowly (back-pressure, issue 18). Every stanza that is not sent is counted and logged.
 *
 * <p>Threads: any room thread calls {@link #deliver}/{@link #send}: they read the volatile {@code stream} and append
 * to the calling thread's {@link Batch} (a thread-local: each batch is owned by its thread), which {@link #flush}
 * enqueues as one buffer on MINA's thread-safe write queue. A thread that never flushes (the I/O thread answering bad
 * input) enqueues each stanza at once. Per-caller order is the batch's order, then MINA's queue order. {@code stream}
 * is set by MINA's I/O thread when the handshake completes and cleared when the session closes or the link closes.
 * Paused threads wait on {@code drained} ({@code pausedThreads} is written under it); MINA's I/O thread wakes them
 * from {@link #sent} once the queue is at low water. Counters are adders, the drop log's state atomics.
 */
final class OutboundStanzas {
    private static final Logger LOG = LoggerFactory.getLogger(OutboundStanzas.class);
    static final String COMPONENT_NS = "jabber:component:accept";
    private static final int BATCH_MAX_BYTES = 64 * 1024;
    private static final long DROP_LOG_INTERVAL_NS = TimeUnit.SECONDS.toNanos(10);

    private final ComponentConfig config;
    private final long lowWaterBytes;
    /** The authenticated stream stanzas go to; null while there is none. */
    private volatile IoSession stream;
    /** Takes arrival-to-write nanoseconds of timed messages; null records nothing. */
    private volatile LongConsumer writeLatency;
    private volatile MucScaleMetrics metrics;
    /** The outbound batch of each thread that has called {@link #flush}; absent for every other thread. */
    private final ThreadLocal<Batch> batches = new ThreadLocal<>();
    /** Room threads paused for the write queue wait on this monitor; MINA's thread wakes them below low water. */
    private final Object drained = new Object();
    /** Paused threads (written under {@link #drained}). */
    private volatile int pausedThreads;
    /** The link is stopping: nobody pauses any more. */
    private volatile boolean noBackPressure;

    private final LongAdder stanzasSent = new LongAdder();
    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder droppedQueueFull = new LongAdder();
    private final LongAdder droppedDisconnected = new LongAdder();
    private final LongAdder writeRequests = new LongAdder();
    private final LongAdder backPressurePauses = new LongAdder();
    private final LongAdder backPressureTimeouts = new LongAdder();
    private final AtomicLong lastDropLogNs = new AtomicLong(System.nanoTime() - DROP_LOG_INTERVAL_NS);
    private final AtomicLong dropsSinceLog = new AtomicLong();

    OutboundStanzas(ComponentConfig config) {
        this.config = config;
        this.lowWaterBytes = config.writeQueueHighWaterBytes() / 2;
    }

    // ---------------------------------------------------------------- the stream

    /** The handshake on {@code session} completed: stanzas go there from now on (I/O thread). */
    void streamUp(IoSession session) {
        stream = session;
    }

    /**
     * {@code session} closed (I/O thread). Returns whether it was the stream; if so, paused room threads go on: their
     * stanzas meet the reconnect.
     */
    boolean streamClosed(IoSession session) {
        if (stream != session) {
            return false;
        }
        stream = null;
        wakePaused();
        return true;
    }

    /** Clears the stream for the link's close and returns it (null when there was none). */
    IoSession takeStream() {
        IoSession s = stream;
        stream = null;
        return s;
    }

    IoSession stream() {
        return stream;
    }

    /** Bytes waiting in MINA's write queue of the stream (0 without one). */
    long queuedBytes() {
        IoSession s = stream;
        return s == null ? 0 : s.getScheduledWriteBytes();
    }

    // ---------------------------------------------------------------- writing

    void deliver(RenderedStanza stanza, Jid recipient) {
        IoSession s = stream;
        String to = recipient.toString();
        byte[] prefix = stanza.prefixUtf8();
        byte[] suffix = stanza.suffixUtf8();
        int toBytes = Utf8.escapedAttributeLength(to);
        int length = prefix.length + toBytes + suffix.length;
        Batch b = batchFor(s, length);
        if (!admit(s, length, b)) {
            return;
        }
        IoBuffer buf = b != null ? b.buffer : IoBuffer.allocate(length, false);
        buf.put(prefix);
        Utf8.putEscapedAttribute(buf, to);
        buf.put(suffix);
        if (b != null) {
            b.timed(stanza);
            counted(length);
            return;
        }
        buf.flip();
        WriteFuture written = write(s, buf, length);
        LongConsumer latency = writeLatency;
        if (latency != null && stanza.arrivalNs() != 0) {
            long arrival = stanza.arrivalNs();
            written.addListener(f -> {
                if (((WriteFuture) f).isWritten()) {
                    latency.accept(System.nanoTime() - arrival);
                }
            });
        }
    }

    void send(XmlElement stanza) {
        IoSession s = stream;
        StringBuilder sb = new StringBuilder(256);
        String ns = stanza.namespace();
        // A stanza in the client or component namespace is written in the stream's default namespace.
        stanza.writeTo(sb, ns == null || ns.equals("jabber:client") || ns.equals(COMPONENT_NS) ? ns : COMPONENT_NS);
        byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
        Batch b = batchFor(s, bytes.length);
        if (!admit(s, bytes.length, b)) {
            return;
        }
        if (b != null) {
            b.buffer.put(bytes);
            counted(bytes.length);
            return;
        }
        write(s, IoBuffer.wrap(bytes), bytes.length);
    }

    /** See {@link ComponentConnection#flush}. */
    void flush() {
        Batch b = batches.get();
        if (b == null) {
            batches.set(new Batch());
            return;
        }
        writeBatch(b);
        awaitDrain(b.session);
    }

    /** See {@link ComponentConnection#recordWriteLatency}. */
    void recordWriteLatency(LongConsumer recorder) {
        writeLatency = recorder;
    }

    /** Where drops are counted besides the stats; null counts nowhere else. */
    void metrics(MucScaleMetrics m) {
        this.metrics = m;
    }

    /** The baseline of the delivery benchmark: enqueue an already encoded stanza, with the same admission. */
    void writeForBenchmark(IoBuffer encoded) {
        IoSession s = stream;
        int length = encoded.remaining();
        if (admit(s, length, null)) {
            write(s, encoded, length);
        }
    }

    /**
     * This thread's batch, ready for a stanza to {@code s}, or null when the thread does not batch. A batch for an
     * earlier session (a reconnect happened) is written to that session first; MINA drops it if that one is closed,
     * as it would each stanza.
     */
    private Batch batchFor(IoSession s, int length) {
        Batch b = batches.get();
        if (b == null || s == null) {
            return null;
        }
        if (b.session != s) {
            writeBatch(b);
            b.session = s;
        } else if (b.buffer.position() + length > BATCH_MAX_BYTES) {
            writeBatch(b); // a large fan-out goes out in 64 KiB writes, not one buffer of megabytes
            awaitDrain(s);
        }
        return b;
    }

    private void writeBatch(Batch b) {
        IoBuffer buf = b.buffer;
        if (buf.position() == 0 || b.session == null) {
            return;
        }
        buf.flip();
        WriteFuture written = b.session.write(buf);
        writeRequests.increment();
        // MINA owns the written buffer until its I/O thread has sent it
        b.buffer = Batch.newBuffer();
        LongConsumer latency = writeLatency;
        if (latency != null && b.timedCount > 0) {
            long[] arrivals = java.util.Arrays.copyOf(b.arrivals, b.timedCount);
            written.addListener(f -> {
                if (((WriteFuture) f).isWritten()) {
                    long now = System.nanoTime();
                    for (long arrival : arrivals) {
                        latency.accept(now - arrival);
                    }
                }
            });
        }
        b.timedCount = 0;
        b.lastTimed = null;
    }

    private void counted(int length) {
        stanzasSent.increment();
        bytesSent.add(length);
    }

    private boolean admit(IoSession s, int length, Batch batch) {
        if (s == null) {
            droppedDisconnected.increment();
            reportDrop("no stream to the server is up (reconnecting)", true);
            return false;
        }
        long gathered = batch == null ? 0 : batch.buffer.position();
        if (s.getScheduledWriteBytes() + gathered + length > config.writeQueueMaxBytes()) {
            droppedQueueFull.increment();
            if (config.writeQueueOverflow() == StandaloneSettings.WriteQueueOverflow.RECONNECT) {
                reportDrop("the write queue to the server is full (" + config.writeQueueMaxBytes()
                        + " bytes); reconnecting", true);
                s.closeNow();
            } else {
                reportDrop("the write queue to the server is full (" + config.writeQueueMaxBytes() + " bytes)", true);
            }
            return false;
        }
        return true;
    }

    private WriteFuture write(IoSession s, IoBuffer buf, int length) {
        WriteFuture f = s.write(buf);
        writeRequests.increment();
        counted(length);
        return f;
    }

    /** One thread's outbound stanzas since its last flush; touched by that thread only. */
    private static final class Batch {
        IoSession session;
        IoBuffer buffer = newBuffer();
        /** Arrival times of the timed messages in this batch, one per message (its copies are adjacent). */
        long[] arrivals = new long[16];
        int timedCount;
        RenderedStanza lastTimed;

        void timed(RenderedStanza stanza) {
            if (stanza.arrivalNs() == 0 || stanza == lastTimed) {
                return;
            }
            lastTimed = stanza;
            if (timedCount == arrivals.length) {
                arrivals = java.util.Arrays.copyOf(arrivals, timedCount * 2);
            }
            arrivals[timedCount++] = stanza.arrivalNs();
        }

        static IoBuffer newBuffer() {
            return IoBuffer.allocate(16 * 1024, false).setAutoExpand(true);
        }
    }

    // ---------------------------------------------------------------- back-pressure

    /** See {@link ComponentConnection#stopBackPressure}. */
    void stopBackPressure() {
        noBackPressure = true;
        wakePaused();
    }

    /** MINA's I/O thread wrote something of {@code session}: paused threads go on once its queue is at low water. */
    void sent(IoSession session) {
        if (pausedThreads > 0 && session.getScheduledWriteBytes() <= lowWaterBytes) {
            wakePaused();
        }
    }

    /**
     * Pauses the calling room thread while more than the high-water mark waits for {@code s}, until the queue is at
     * low water, the stream goes, the link stops or {@code writeQueueMaxWait} has passed.
     */
    private void awaitDrain(IoSession s) {
        long maxWaitNs = config.writeQueueMaxWait().toNanos();
        if (s == null || maxWaitNs == 0 || noBackPressure
                || s.getScheduledWriteBytes() <= config.writeQueueHighWaterBytes()) {
            return;
        }
        backPressurePauses.increment();
        long deadline = System.nanoTime() + maxWaitNs;
        synchronized (drained) {
            pausedThreads++;
            try {
                while (s.getScheduledWriteBytes() > lowWaterBytes && !noBackPressure && stream == s) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        backPressureTimeouts.increment();
                        reportDrop("the server has not read for " + config.writeQueueMaxWait().toMillis()
                                + " ms; room threads go on and the write queue's limit applies", false);
                        return;
                    }
                    // in slices, so a wake-up that raced the check costs at most one slice
                    drained.wait(Math.max(1, Math.min(100, TimeUnit.NANOSECONDS.toMillis(left))));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // a stop that ran out of patience: go on
            } finally {
                pausedThreads--;
            }
        }
    }

    private void wakePaused() {
        synchronized (drained) {
            drained.notifyAll();
        }
    }

    /** Counts a dropped stanza ({@code dropped}) and logs at most once per 10 s, with the count since the last line. */
    private void reportDrop(String why, boolean dropped) {
        if (dropped) {
            dropsSinceLog.incrementAndGet();
            MucScaleMetrics m = metrics;
            if (m != null) {
                m.outboundDropped(1);
            }
        }
        long now = System.nanoTime();
        long last = lastDropLogNs.get();
        if (now - last >= DROP_LOG_INTERVAL_NS && lastDropLogNs.compareAndSet(last, now)) {
            LOG.warn("component {}: {} stanza(s) not sent in the last {} s: {} (totals: queue full {}, disconnected {})",
                    config.domain(), dropsSinceLog.getAndSet(0), TimeUnit.NANOSECONDS.toSeconds(now - last), why,
                    droppedQueueFull.sum(), droppedDisconnected.sum());
        }
    }

    // ---------------------------------------------------------------- counts

    long stanzasSent() {
        return stanzasSent.sum();
    }

    long bytesSent() {
        return bytesSent.sum();
    }

    long droppedQueueFull() {
        return droppedQueueFull.sum();
    }

    long droppedDisconnected() {
        return droppedDisconnected.sum();
    }

    long writeRequests() {
        return writeRequests.sum();
    }

    long backPressurePauses() {
        return backPressurePauses.sum();
    }

    long backPressureTimeouts() {
        return backPressureTimeouts.sum();
    }
}
