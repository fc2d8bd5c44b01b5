package org.mucscale.openfire;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.concurrent.atomic.AtomicInteger;
import org.jivesoftware.openfire.streammanagement.StreamManager;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;

/**
 * The stanzas for one event loop's channels, run once on that event loop ({@link EventLoopWriteBatches}). A plain
 * batch is filled by a room thread and then handed over. An open batch ({@code ManagedRuns}) is handed over at its
 * first entry and takes more ({@link #append}) until the loop starts on it: {@code published} counts the entries the
 * filler has published, and the loop's {@link #take} swaps in {@link #CLOSED} and reads exactly that many. Fixed
 * capacity, so no array is replaced while the loop may read it.
 *
 * <p>An entry decided uncounted carries its session's stream manager ({@code managers}), because the decision was made
 * on the room thread and the write happens here, later: if the client enabled stream management in between, Openfire
 * wrote its {@code <enabled/>} first and the client counts this stanza, so it is counted here, at its write
 * ({@link LateCounts}). Why that is exact when it finds stream management off: see {@link LateCounts}.
 *
 * <p>Owner: the filling room thread until handed over, then the event loop.
 */
final class LoopBatch implements Runnable {
    static final int OPEN_CAPACITY = 256;
    static final int CLOSED = -1;
    final EventLoop loop;
    private final EventLoopWriteBatches owner;
    /** Counted by a stream manager: never dropped by the slow-recipient bound. */
    final boolean counted;
    /** Null for a plain batch; for an open one, the entries published so far, or {@link #CLOSED}. */
    private final AtomicInteger published;
    /** An open batch was handed to its loop (the filler's own flag). */
    boolean queued;
    Channel[] channels;
    RenderedStanza[] stanzas;
    Jid[] recipients;
    /** Per entry of an uncounted batch, its session's stream manager (null: none); null for a counted batch. */
    StreamManager[] managers;
    int size;

    LoopBatch(EventLoop loop, EventLoopWriteBatches owner) {
        this(loop, owner, 32, false, null);
    }

    private LoopBatch(EventLoop loop, EventLoopWriteBatches owner, int capacity, boolean counted,
                      AtomicInteger published) {
        this.loop = loop;
        this.owner = owner;
        this.counted = counted;
        this.published = published;
        int n = Math.max(1, capacity);
        channels = new Channel[n];
        stanzas = new RenderedStanza[n];
        recipients = new Jid[n];
        managers = counted ? null : new StreamManager[n]; // a counted batch needs no late count
    }

    static LoopBatch open(EventLoop loop, EventLoopWriteBatches owner, boolean counted) {
        return new LoopBatch(loop, owner, OPEN_CAPACITY, counted, new AtomicInteger());
    }

    void add(Channel channel, RenderedStanza stanza, Jid recipient, StreamManager sm) {
        if (size == channels.length) {
            int n = size * 2;
            channels = java.util.Arrays.copyOf(channels, n);
            stanzas = java.util.Arrays.copyOf(stanzas, n);
            recipients = java.util.Arrays.copyOf(recipients, n);
            managers = java.util.Arrays.copyOf(managers, n); // add fills plain batches only: never counted
        }
        channels[size] = channel;
        stanzas[size] = stanza;
        recipients[size] = recipient;
        managers[size] = sm;
        size++;
    }

    /**
     * Adds an entry to an open batch, or answers false when it is full or its loop has started on it (then the
     * entry is not in it). The entry is written before the count that publishes it, so the loop sees it whole.
     */
    boolean append(Channel channel, RenderedStanza stanza, Jid recipient, StreamManager sm) {
        int n = published.get();
        if (n == CLOSED || n == channels.length) {
            return false;
        }
        channels[n] = channel;
        stanzas[n] = stanza;
        recipients[n] = recipient;
        if (managers != null) {
            managers[n] = sm;
        }
        return published.compareAndSet(n, n + 1);
    }

    /** The entries to run: all of a plain batch; an open batch's published ones, after which it takes no more. */
    int take() {
        return published == null ? size : published.getAndSet(CLOSED);
    }

    @Override
    public void run() {
        int size = take();
        int done = 0;
        int gone = 0;
        for (int i = 0; i < size; i++) {
            Channel ch = channels[i];
            if (!ch.isActive()) {
                gone++;
                continue;
            }
            boolean isCounted = counted;
            RenderedStanza request = null;
            StreamManager sm = counted ? null : managers[i];
            if (sm != null && sm.isEnabled()) {
                // enabled since the room thread decided: the client counts it, so the server must
                request = owner.lateCounts.count(sm, stanzas[i], recipients[i]);
                isCounted = owner.lateCounts.counts();
            }
            if (write(ch, stanzas[i], recipients[i], isCounted, isCounted ? null : sm)) {
                done++;
            }
            if (request != null) {
                write(ch, request, recipients[i], true, null);
            }
        }
        for (int i = 0; i < size; i++) {
            Channel ch = channels[i];
            // one flush per channel: later stanzas for the same channel ride along (a batch is short, and a
            // repeated flush of an already flushed channel finds nothing to write)
            if (ch.isActive() && (i + 1 == size || channels[i + 1] != ch)) {
                ch.flush();
            }
        }
        java.util.function.LongConsumer latency = owner.writeLatency();
        if (latency != null) {
            long now = System.nanoTime();
            RenderedStanza previous = null;
            for (int i = 0; i < size; i++) {
                RenderedStanza s = stanzas[i];
                // one sample per message: its copies in this batch are adjacent (one room's fan-out loop)
                if (s != previous && s.arrivalNs() != 0) {
                    latency.accept(now - s.arrivalNs());
                }
                previous = s;
            }
        }
        owner.written.add(done);
        if (gone > 0) {
            owner.closed.add(gone);
        }
    }

    /**
     * Writes one entry into its channel, or holds it behind what waits for a slow recipient; answers whether it was a
     * delivery (an {@code <r/>} after the stanza that made it due is not one). {@code sm}: the session's stream
     * manager for an uncounted stanza, so that a held one is counted at its later write if need be.
     */
    private boolean write(Channel ch, RenderedStanza stanza, Jid recipient, boolean isCounted, StreamManager sm) {
        HeldWrites held = ch.attr(EventLoopWriteBatches.HELD).get();
        // counted stanzas are never held back while nothing waits: Openfire writes its own for the session
        // into the channel whatever its writability, and the client must get them in the order counted
        if ((held == null || held.isEmpty()) && (isCounted || ch.isWritable())) {
            EventLoopWriteBatches.writeTo(ch, stanza, EventLoopWriteBatches.recipientText(stanza, recipient));
            return !UnackedStanzas.isRequest(stanza);
        }
        if (held == null) {
            held = new HeldWrites(ch, owner);
            ch.attr(EventLoopWriteBatches.HELD).set(held);
            ch.pipeline().addFirst(held);
        }
        held.hold(stanza, recipient, isCounted, sm);
        if (ch.isWritable()) {
            held.drain(); // it drained since the last writability event: keep order, write what waits
        }
        return false;
    }
}
