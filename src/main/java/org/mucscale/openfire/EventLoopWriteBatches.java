package org.mucscale.openfire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.channel.VoidChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.util.AttributeKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.jivesoftware.openfire.Connection;
import org.jivesoftware.openfire.session.LocalClientSession;
import org.jivesoftware.openfire.streammanagement.StreamManager;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.Xml;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Raw deliveries gathered per Netty event loop and handed over once per room-thread batch (setting
 * {@code mucscale.openfire.batched-writes}).
 *
 * <p>Why: {@code NettyConnection.deliverRawText} writes through the context of the connection's last handler, which
 * Openfire runs on its c2s "blocking handler" executor, so every delivery is two thread hand-offs (room thread to a
 * {@code socket_c2s-handler} thread, then to the channel's {@code socket_c2s-worker} event loop), each with a task
 * object and a wake-up, before its write. Profiled, those hand-offs were most of what a delivery cost. Here a room
 * thread gathers its deliveries, grouped by the recipient channel's event loop, and at {@link #flush} submits one task
 * per event loop; that task encodes each stanza into a buffer from the channel's allocator, writes it through the
 * channel's whole pipeline (the same outbound handlers as Openfire's own writes: TLS, compression, traffic counting,
 * write timeout) and flushes every channel once. A recipient that gets several stanzas in one batch gets them in one
 * socket write.
 *
 * <p>Concurrency: the gathering state is per thread ({@link ThreadLocal}) and exists only for threads that have called
 * {@link #flush} (the engine's room threads, which promise to call it again after their next deliveries); on any other
 * thread {@link #add} declines and the caller writes at once. A submitted batch belongs to the event loop from then
 * on (the executor's queue is the hand-over); the room thread starts a new one.
 *
 * <p>Order: one room thread's stanzas to one recipient stay in call order, because they all take this path while the
 * session qualifies for raw delivery, and the caller {@link #flush}es before anything it sends the slow way (through
 * the session as a packet), which then queues on the same event loop behind the batch. Openfire's outgoing-bytes
 * statistic catches these writes up at the connection's next write through Openfire (it is computed from the
 * channel's traffic counter, which does see them).
 *
 * <p>Slow recipients (issue 18): a stanza is written into the channel only while the channel is writable (Netty's
 * write-buffer high-water mark); otherwise it waits in that recipient's {@link HeldWrites}, which writes it when the
 * channel becomes writable again. What one recipient has waiting, here plus in the channel's outbound buffer, is
 * bounded by {@code mucscale.openfire.recipient-max-queued-bytes}: beyond it that recipient's oldest waiting presence
 * is dropped first, and when no presence is left the recipient is removed from its rooms (status 333 with a reason,
 * see {@link #onSlowRecipient}) and what waited for it is dropped. All of it is counted. Stanzas that take the slow way
 * through Openfire are not bounded here, and neither are stanzas a stream manager counted: while nothing waits for
 * their recipient they go into the channel past the mark, as Openfire writes its own, because a client must get them
 * in the order they were counted and Openfire's writes for it do not wait here (ManagedRunsTest).
 */
final class EventLoopWriteBatches {
    static final Logger LOG = LoggerFactory.getLogger(EventLoopWriteBatches.class);
    private final ThreadLocal<Gathered> perThread = new ThreadLocal<>();
    /** Builds the copies stream managers keep of counted stanzas; null until {@link #manageWith} is called. */
    private volatile RenderedPackets renderedPackets;
    private volatile ManagedSessionWrites.Outlet outlet;
    /** Openfire's unacknowledged-stanza queues, when laid out as 5.1's; null: counted through {@code sentStanza}. */
    private volatile UnackedStanzas unacked;
    final LongAdder written = new LongAdder();
    private final LongAdder batches = new LongAdder();
    final LongAdder closed = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    /** Takes arrival-to-socket-write nanoseconds, one per message and batch; null records nothing. */
    private volatile java.util.function.LongConsumer writeLatency;
    /** Counts an uncounted stanza at its write when its client enabled stream management since ({@link LateCounts}). */
    final LateCounts lateCounts = new LateCounts();
    final LongAdder presencesShed = new LongAdder();
    final LongAdder slowDropped = new LongAdder();
    final LongAdder slowRemoved = new LongAdder();
    /** The most bytes one slow recipient has had waiting (here and in its channel) since start. */
    final AtomicLong slowPeakBytes = new AtomicLong();
    /** Per channel, the waiting stanzas of a recipient that reads slowly; a fresh key per class loader (plugin reload). */
    static final AttributeKey<HeldWrites> HELD = AttributeKey.newInstance(
            "mucscale.held-writes." + Integer.toHexString(System.identityHashCode(EventLoopWriteBatches.class)));
    /**
     * Per channel, which room thread's {@link ManagedRuns} wrote its session's newest counted stanza, and that stanza's
     * entry in the stream manager; a fresh key per class loader.
     */
    static final AttributeKey<Object[]> LAST = AttributeKey.newInstance(
            "mucscale.last-counted." + Integer.toHexString(System.identityHashCode(EventLoopWriteBatches.class)));
    /** Per channel, the write promise that swallows failures ({@link #quietPromise}); a fresh key per class loader. */
    private static final AttributeKey<ChannelPromise> QUIET = AttributeKey.newInstance(
            "mucscale.quiet-promise." + Integer.toHexString(System.identityHashCode(EventLoopWriteBatches.class)));
    volatile long recipientMaxQueuedBytes = OpenfireSettings.RECIPIENT_MAX_QUEUED_BYTES.defaultValue();
    volatile Consumer<Jid> slowRecipient = jid -> { };
    volatile LongConsumer droppedSink = n -> { };
    volatile Runnable removedSink = () -> { };

    /** Bytes one recipient may have waiting (dynamic setting {@code mucscale.openfire.recipient-max-queued-bytes}). */
    void recipientMaxQueuedBytes(long bytes) {
        this.recipientMaxQueuedBytes = bytes;
    }

    /**
     * Who removes a slow recipient from its rooms (called on a Netty event loop; must not block), and where the drops
     * and removals are counted besides this class's own counters.
     */
    void onSlowRecipient(Consumer<Jid> remove, LongConsumer dropped, Runnable removed) {
        this.slowRecipient = remove;
        this.droppedSink = dropped;
        this.removedSink = removed;
    }

    /**
     * Where counted stanzas' kept copies come from, and how a managed session gets a stanza that must go as a packet
     * (see {@link ManagedSessionWrites}); set once at start.
     */
    void manageWith(RenderedPackets packets, UnackedStanzas unacked, ManagedSessionWrites.Outlet outlet) {
        this.outlet = outlet;
        this.unacked = unacked;
        this.renderedPackets = packets;
        lateCounts.manageWith(packets, unacked);
    }

    /**
     * Gathers {@code stanza} for {@code recipient} on {@code session}'s channel; false when this thread does not batch
     * or the session's channel cannot be reached, and the caller must write it now instead. {@code sm}: the session's
     * stream manager (off when this was decided; null when it has none), checked again at the write ({@link
     * LateCounts}).
     */
    boolean add(LocalClientSession session, StreamManager sm, RenderedStanza stanza, Jid recipient) {
        Gathered g = perThread.get();
        if (g == null) {
            return false;
        }
        return gather(g, NettyChannels.channelOf(session.getConnection()), stanza, recipient, sm);
    }

    /**
     * Gathers a stanza for a session whose stream manager counts it or whose client state indication may hold it back
     * ({@code sm}: its stream manager, null when it has none; whether it counts is decided at the hand-over, under its
     * monitor), to be written, counted or queued at the hand-over ({@link ManagedSessionWrites});
     * false when this thread does not batch or the session's connection is not a Netty channel, and the caller must
     * deliver it now instead.
     */
    boolean addManaged(LocalClientSession session, StreamManager sm, RenderedStanza stanza, Jid recipient) {
        Gathered g = perThread.get();
        RenderedPackets packets = renderedPackets;
        if (g == null || packets == null || NettyChannels.channelOf(session.getConnection()) == null) {
            return false;
        }
        g.managed(packets, unacked, outlet).add(session, sm, stanza, recipient);
        return true;
    }

    /** Whether this thread holds stanzas for {@code session} to hand over with {@link ManagedSessionWrites}. */
    boolean holdsManaged(LocalClientSession session) {
        Gathered g = perThread.get();
        return g != null && g.managed != null && g.managed.holds(session);
    }

    /**
     * A room thread's managed runs of one hand-over ({@link ManagedSessionWrites}), written into batches that are
     * handed to their event loop at their first run and may take later runs until that loop starts on them.
     *
     * <p>Why: a task per session's run cost a task, a queue hand-off and often a wake-up per recipient: 11.9 % of
     * Openfire's CPU with every client stream-managed (JFR, ref-5000-sm, 2026-12-02).
     *
     * <p>Order (the rule of {@link ManagedSessionWrites}: a session's stanzas reach its event loop in the order its
     * stream manager numbered them). A batch already queued on the loop stands before every write queued since, so a
     * run may join it only if none of those was for this session. The rule: a counted run joins only when the newest
     * stanza its stream manager holds ({@code newestBefore}, read under the monitor) is the newest one this thread
     * wrote to the same channel ({@link #LAST}). Then every write for the session so far went in this thread's
     * batches on that loop, all queued no later than the one it joins; Openfire's own counts, another room thread's,
     * a resumption onto a new channel, or an empty queue all make the run start a new batch, queued after everything.
     * Uncounted runs never join. A batch its loop has started on, or a full one, takes nothing more
     * ({@link LoopBatch#append}): the run goes on in a new batch behind it.
     *
     * <p>Owner: the room thread of the {@link Gathered} it belongs to; {@link #end} forgets the batches (their loops'
     * from their first hand-off on). {@link #LAST} is written and read under the session's stream manager's monitor.
     */
    final class ManagedRuns {
        private final ArrayList<LoopBatch> open = new ArrayList<>(8);
        /** Who wrote, in {@link #LAST}: a plain object, so that a channel pins neither a thread nor our classes. */
        private final Object writer = new Object();

        /**
         * Writes {@code session}'s stanzas {@code from} to {@code to} (exclusive); the caller holds its managers'
         * monitors. {@code counted} stanzas are never dropped by the slow-recipient bound; {@code newestBefore} and
         * {@code newestAfter} are the newest stanza its stream manager held before and after counting them (null when
         * not counted). Nothing is written when the session has no connection (detached: its stream manager resends).
         */
        void write(LocalClientSession session, RenderedStanza[] stanzas, Jid[] recipients, int from, int to,
                   boolean counted, Object newestBefore, Object newestAfter) {
            Connection connection = session.getConnection();
            if (connection == null || connection.isClosed()) {
                return;
            }
            Channel ch = NettyChannels.channelOf(connection);
            if (ch == null) {
                for (int i = from; i < to; i++) {
                    session.deliverRawText(UnackedStanzas.isRequest(stanzas[i]) ? stanzas[i].prefix()
                            : StanzaText.forConnection(connection, stanzas[i], recipients[i]));
                }
                return;
            }
            // an uncounted run carries the stream manager: a held stanza is written later and may need counting then
            write(ch, stanzas, recipients, from, to, counted, newestBefore, newestAfter,
                    counted ? null : session.getStreamManager());
        }

        /**
         * As above, for a channel already known (tests drive real Netty channels without an Openfire session);
         * {@code sm}: the session's stream manager for an uncounted run ({@link LateCounts}), else null.
         */
        void write(Channel ch, RenderedStanza[] stanzas, Jid[] recipients, int from, int to, boolean counted,
                   Object newestBefore, Object newestAfter, StreamManager sm) {
            EventLoop loop = ch.eventLoop();
            io.netty.util.Attribute<Object[]> last = counted ? ch.attr(LAST) : null;
            Object[] mine = last == null ? null : last.get();
            boolean mayJoin = newestBefore != null && mine != null && mine[0] == writer
                    && mine[1] == newestBefore;
            int slot = find(loop, counted);
            LoopBatch w = slot < 0 || !mayJoin ? null : open.get(slot);
            for (int i = from; i < to; i++) {
                if (w == null || !w.append(ch, stanzas[i], recipients[i], sm)) {
                    if (w != null && !w.queued) {
                        queue(w); // full before its first hand-off
                    }
                    w = LoopBatch.open(loop, EventLoopWriteBatches.this, counted);
                    w.append(ch, stanzas[i], recipients[i], sm); // a fresh batch takes its first entry
                    if (slot < 0) {
                        slot = open.size();
                        open.add(w);
                    } else {
                        open.set(slot, w);
                    }
                }
            }
            if (w != null && !w.queued) {
                queue(w);
            }
            if (last != null && newestAfter != null) {
                if (mine == null) {
                    mine = new Object[2]; // JDK types only: a channel may outlive this plugin's class loader
                    last.set(mine);
                }
                mine[0] = writer;
                mine[1] = newestAfter;
            }
        }

        private int find(EventLoop loop, boolean counted) {
            for (int i = 0; i < open.size(); i++) {
                LoopBatch w = open.get(i);
                if (w.loop == loop && w.counted == counted) {
                    return i;
                }
            }
            return -1;
        }

        private void queue(LoopBatch w) {
            w.queued = true;
            submit(w);
        }

        /** Ends the hand-over: its batches are their event loops' now. */
        void end() {
            open.clear();
        }
    }

    /** As above, for a channel already known (tests drive real Netty channels without an Openfire session). */
    boolean add(Channel channel, RenderedStanza stanza, Jid recipient) {
        Gathered g = perThread.get();
        return g != null && gather(g, channel, stanza, recipient, null);
    }

    private boolean gather(Gathered g, Channel channel, RenderedStanza stanza, Jid recipient, StreamManager sm) {
        if (channel == null) {
            return false;
        }
        g.writesFor(channel.eventLoop(), this).add(channel, stanza, recipient, sm);
        return true;
    }

    /**
     * The engine's flush on a room thread: hands over what it gathered; from its first call on, the thread batches.
     */
    void flush() {
        Gathered g = perThread.get();
        if (g == null) {
            perThread.set(new Gathered());
            return;
        }
        handOver(g);
    }

    /**
     * Hands over what this thread gathered, if it batches at all, before it writes something the slow way. Never
     * starts batching: Openfire's own threads pass through here and must neither defer nor hold our objects.
     */
    void release() {
        Gathered g = perThread.get();
        if (g != null) {
            handOver(g);
        }
    }

    /**
     * The time this thread's raw writes of the current batch count as pushed to their clients ({@link CsiLastPush}):
     * taken at the batch's first call and shared until its hand-over, so a copy allocates none; now on a thread that
     * does not batch.
     */
    Instant pushTime() {
        Gathered g = perThread.get();
        if (g == null) {
            return Instant.now();
        }
        if (g.pushTime == null) {
            g.pushTime = Instant.now();
        }
        return g.pushTime;
    }

    private void handOver(Gathered g) {
        List<LoopBatch> loops = g.loops;
        for (int i = 0; i < loops.size(); i++) {
            LoopBatch w = loops.get(i);
            if (w.size == 0) {
                continue;
            }
            loops.set(i, new LoopBatch(w.loop, this));
            submit(w);
        }
        if (g.managed != null && !g.managed.isEmpty()) {
            if (g.runs == null) {
                g.runs = new ManagedRuns();
            }
            g.managed.handOver(g.runs);
            g.runs.end();
        }
        g.pushTime = null; // the next batch takes its own
    }

    private void submit(LoopBatch w) {
        try {
            w.loop.execute(w);
            batches.increment();
        } catch (RejectedExecutionException e) {
            // the event loop is shutting down (server stop): its connections are closing anyway
            int n = w.take();
            rejected.add(n);
            LOG.debug("MUC Scale: {} stanzas not written, their event loop is shutting down", n);
        }
    }

    /**
     * Records, for every timed message ({@link RenderedStanza#arrivalNs()}) in a batch, the time from its arrival to
     * the batch's write and flush on the event loop, when its bytes are handed to the socket.
     */
    void recordWriteLatency(java.util.function.LongConsumer recorder) {
        writeLatency = recorder;
    }

    /** Where batches report their write latency, or null. */
    java.util.function.LongConsumer writeLatency() {
        return writeLatency;
    }

    /** Stanzas written through batches. */
    long writtenCount() {
        return written.sum();
    }

    /** Batches submitted to event loops. */
    long batchCount() {
        return batches.sum();
    }

    /** Stanzas not written because the recipient's channel had closed or its event loop refused the batch. */
    long droppedCount() {
        return closed.sum() + rejected.sum();
    }

    /** Presences dropped from slow recipients' queues to stay within the bound. */
    long presencesShedCount() {
        return presencesShed.sum();
    }

    /** Other stanzas dropped for slow recipients (what waited when one was removed, and what came while it was). */
    long slowDroppedCount() {
        return slowDropped.sum();
    }

    /** The most bytes one slow recipient has had waiting, queued here plus in its channel's buffer. */
    long slowPeakBytes() {
        return slowPeakBytes.get();
    }

    /** Recipients removed from their rooms for reading too slowly. */
    long slowRemovedCount() {
        return slowRemoved.sum();
    }

    /** One thread's open batches, one per event loop seen (a handful: Openfire's c2s worker count). */
    private static final class Gathered {
        final List<LoopBatch> loops = new ArrayList<>(4);
        /** Stanzas for stream-managed and CSI-tracked sessions, made on first use. */
        ManagedSessionWrites managed;
        ManagedRuns runs;
        /** This batch's {@link #pushTime}, or null until asked. */
        Instant pushTime;

        ManagedSessionWrites managed(RenderedPackets packets, UnackedStanzas unacked,
                                     ManagedSessionWrites.Outlet outlet) {
            if (managed == null) {
                managed = new ManagedSessionWrites(new StanzaCounter(packets, unacked), outlet);
            }
            return managed;
        }

        LoopBatch writesFor(EventLoop loop, EventLoopWriteBatches owner) {
            for (int i = 0; i < loops.size(); i++) {
                LoopBatch w = loops.get(i);
                if (w.loop == loop) {
                    return w;
                }
            }
            LoopBatch w = new LoopBatch(loop, owner);
            loops.add(w);
            return w;
        }
    }

    /**
     * A promise for our writes that does not fire a failed write into the pipeline: with {@code voidPromise()} a
     * client that closed its socket while stanzas were on their way made Openfire log "Closing connection ... Broken
     * pipe" once per write (3,107 WARN lines when 5,000 clients left in a benchmark), where its own writes, which
     * carry a listener, log nothing. The connection is closed by its read side anyway; a stream manager resends what
     * it counted. One per channel, kept in a channel attribute.
     */
    private static ChannelPromise quietPromise(Channel ch) {
        io.netty.util.Attribute<ChannelPromise> a = ch.attr(QUIET);
        ChannelPromise p = a.get();
        if (p == null) {
            p = new VoidChannelPromise(ch, false);
            a.set(p);
        }
        return p;
    }

    /** Whether a rendered stanza is a presence (its first bytes are {@code <p}). */
    static boolean isPresence(RenderedStanza stanza) {
        byte[] p = stanza.prefixUtf8();
        return p.length > 1 && p[0] == '<' && p[1] == 'p';
    }

    /** What goes between a stanza's prefix and suffix: the escaped recipient, or nothing for an {@code <r/>}. */
    static String recipientText(RenderedStanza stanza, Jid recipient) {
        return UnackedStanzas.isRequest(stanza) ? "" : Xml.escapeAttribute(recipient.toString());
    }

    /** Encodes one stanza into a buffer from the channel's allocator and writes it (not flushed). */
    static int writeTo(Channel ch, RenderedStanza stanza, String escapedTo) {
        byte[] prefix = stanza.prefixUtf8();
        byte[] suffix = stanza.suffixUtf8();
        int length = prefix.length + ByteBufUtil.utf8Bytes(escapedTo) + suffix.length;
        ByteBuf buf = ch.alloc().buffer(length);
        buf.writeBytes(prefix);
        ByteBufUtil.writeUtf8(buf, escapedTo);
        buf.writeBytes(suffix);
        ch.write(buf, quietPromise(ch));
        return length;
    }

}
