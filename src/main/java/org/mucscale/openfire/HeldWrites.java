package org.mucscale.openfire;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import java.util.ArrayDeque;
import java.util.Iterator;
import org.jivesoftware.openfire.streammanagement.StreamManager;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;

/**
 * One slow recipient's waiting stanzas, in order, and the pipeline handler that writes them when its channel
 * becomes writable again. Touched only on the channel's event loop. Stays in the pipeline once added (cheap: it
 * only passes events on); it holds no stanza once the recipient has caught up.
 */
final class HeldWrites extends ChannelInboundHandlerAdapter {
    private final Channel channel;
    private final EventLoopWriteBatches owner;
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    private long bytes;
    /** Removal was asked for; until the recipient catches up, what does not fit is dropped, not asked again. */
    private boolean removing;

    HeldWrites(Channel channel, EventLoopWriteBatches owner) {
        this.channel = channel;
        this.owner = owner;
    }

    boolean isEmpty() {
        return waiting.isEmpty();
    }

    /**
     * Queues a stanza behind the others, then keeps the recipient within the bound (see the class note). A
     * {@code counted} stanza (its stream manager numbered it) is never dropped or shed: the client's {@code h}
     * must keep meaning what the server sent, so it waits whatever the bound. {@code sm}: an uncounted stanza's
     * stream manager, checked again when it is written ({@link LateCounts}); null otherwise.
     */
    void hold(RenderedStanza stanza, Jid recipient, boolean counted, StreamManager sm) {
        String to = EventLoopWriteBatches.recipientText(stanza, recipient);
        int length = stanza.prefixUtf8().length + ByteBufUtil.utf8Bytes(to) + stanza.suffixUtf8().length;
        long max = owner.recipientMaxQueuedBytes;
        long inChannel = pendingInChannel();
        boolean sheddable = !counted && EventLoopWriteBatches.isPresence(stanza);
        if (removing && bytes + inChannel + length > max) {
            if (!counted) {
                drop(1); // the recipient is being removed: what does not fit goes (the removal's presence fits)
                return;
            }
            waiting.addLast(new Waiting(stanza, recipient, to, length, false, true, null));
            bytes += length;
            return;
        }
        waiting.addLast(new Waiting(stanza, recipient, to, length, sheddable, counted, counted ? null : sm));
        bytes += length;
        while (bytes + inChannel > max) {
            if (!shedOldestPresence()) {
                remove(recipient);
                break;
            }
        }
        long total = bytes + inChannel;
        if (total > owner.slowPeakBytes.get()) {
            owner.slowPeakBytes.accumulateAndGet(total, Math::max);
        }
    }

    private long pendingInChannel() {
        ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        return out == null ? 0 : out.totalPendingWriteBytes();
    }

    private boolean shedOldestPresence() {
        for (Iterator<Waiting> it = waiting.iterator(); it.hasNext(); ) {
            Waiting w = it.next();
            if (w.presence) {
                it.remove();
                bytes -= w.length;
                owner.presencesShed.increment();
                owner.droppedSink.accept(1);
                return true;
            }
        }
        return false;
    }

    private void remove(Jid recipient) {
        int n = 0;
        for (Iterator<Waiting> it = waiting.iterator(); it.hasNext(); ) {
            Waiting w = it.next();
            if (!w.counted) { // counted stanzas stay: their stream manager expects them written or resent
                it.remove();
                bytes -= w.length;
                n++;
            }
        }
        drop(n);
        removing = true;
        owner.slowRemoved.increment();
        owner.removedSink.run();
        EventLoopWriteBatches.LOG.info("MUC Scale: {} reads too slowly (more than {} bytes waiting); removing it from its rooms",
                recipient, owner.recipientMaxQueuedBytes);
        try {
            owner.slowRecipient.accept(recipient);
        } catch (RuntimeException e) {
            EventLoopWriteBatches.LOG.warn("MUC Scale: could not remove the slow recipient {}", recipient, e);
        }
    }

    private void drop(int n) {
        if (n > 0) {
            owner.slowDropped.add(n);
            owner.droppedSink.accept(n);
        }
    }

    /** Writes what waits while the channel takes it; the recipient is no longer slow once nothing waits. */
    void drain() {
        int n = 0;
        while (!waiting.isEmpty() && channel.isWritable()) {
            Waiting w = waiting.pollFirst();
            bytes -= w.length;
            // held since before its client enabled stream management: counted now, at its write (LateCounts)
            RenderedStanza request = w.sm != null && w.sm.isEnabled()
                    ? owner.lateCounts.count(w.sm, w.stanza, w.recipient) : null;
            EventLoopWriteBatches.writeTo(channel, w.stanza, w.escapedTo);
            if (request != null) {
                EventLoopWriteBatches.writeTo(channel, request, "");
            }
            n++;
        }
        if (n > 0) {
            owner.written.add(n);
            channel.flush();
        }
        if (waiting.isEmpty()) {
            removing = false;
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            drain();
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (!waiting.isEmpty()) {
            owner.closed.add(waiting.size());
            waiting.clear();
            bytes = 0;
        }
        super.channelInactive(ctx);
    }

    /** One waiting stanza with its escaped recipient and size. */
    private record Waiting(RenderedStanza stanza, Jid recipient, String escapedTo, int length, boolean presence,
                           boolean counted, StreamManager sm) {
    }
}
