package org.mucscale.openfire;

import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import org.jivesoftware.openfire.PacketRouter;
import org.jivesoftware.openfire.XMPPServer;
import org.jivesoftware.openfire.csi.CsiManager;
import org.jivesoftware.openfire.interceptor.InterceptorManager;
import org.jivesoftware.openfire.interceptor.PacketInterceptor;
import org.jivesoftware.openfire.session.LocalClientSession;
import org.jivesoftware.openfire.streammanagement.StreamManager;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xmpp.packet.Packet;

/**
 * The engine's outbound stanzas into Openfire.
 *
 * <p><b>Direct local delivery</b> (setting {@code mucscale.openfire.direct-local-delivery}, on by default): a message
 * or presence for a full JID whose session is a {@link LocalClientSession} on this node goes straight to
 * {@code session.process(packet)}. That is the same call Openfire's routing table ends in, so the recipient's privacy
 * and block lists ({@code canDeliver}), outgoing interceptors ({@code incoming=false}), client state indication and
 * stream management (XEP-0198 acks and resumption) all still apply. What it skips is {@code MessageRouter}/
 * {@code PresenceRouter}: interceptors are not invoked a second time as "incoming, session null" for each occupant
 * copy (other plugins' interceptors still see the copy once, outgoing, on the recipient's session), and the routing
 * table lookup is done here instead of inside the router, once per occupant address while its session stays open
 * ({@link LocalRoutes}). Everything else (bare JIDs, IQs, users on other
 * cluster nodes, remote servers, sessions not yet available) is routed through Openfire's {@link PacketRouter}.
 *
 * <p><b>Raw local delivery</b> (setting {@code mucscale.openfire.raw-local-delivery}, on by default, only with direct
 * local delivery): when nothing in Openfire would act on a copy, the rendered text with the recipient's address spliced
 * in is written straight to the session's connection ({@code deliverRawText}), skipping the per-recipient dom4j copy,
 * packet wrap and re-serialization (about half of Openfire's CPU per delivery, profiled). "Nothing would act" is
 * checked per delivery: the session has neither an active nor a default privacy list (Openfire's XEP-0191 block
 * list is a privacy list), its user has no per-user interceptors, and every global packet interceptor is one known not
 * to touch outgoing client stanzas: mucscale's own, and Openfire's file-transfer and avatar interceptors (both act on
 * incoming stanzas only). Any other interceptor (another plugin's, Openfire's audit or packet copier) sends every copy
 * down the packet path below, so blocking and other plugins are always respected. Sessions whose stream manager
 * (XEP-0198) counts every stanza, or whose client state indication (XEP-0352) is inactive or has queued stanzas, are
 * written by the rules of {@link ManagedSessionWrites}: under those managers' monitors, counted as Openfire counts its
 * own, and what Openfire would hold back for an inactive client goes to it as a packet, so Openfire queues it. Every
 * raw write renews the session's CSI last-push time as Openfire's own delivery does ({@link CsiLastPush}).
 *
 * <p><b>Batched writes</b> (setting {@code mucscale.openfire.batched-writes}, on by default, only with raw local
 * delivery): a room thread's raw deliveries are gathered per Netty event loop and handed over at {@link #flush} as
 * one task per event loop, instead of two thread hand-offs per delivery through Openfire's connection (see
 * {@link EventLoopWriteBatches}). The room's own stanzas to one occupant ({@link #send}: self-presence, history,
 * subject) take the same path when the occupant qualifies, and anything that goes the packet path first hands over
 * what the thread gathered, so one room thread's stanzas to a recipient keep their order.
 *
 * <p><b>Serialize once</b>: a broadcast arrives as one {@link RenderedStanza} with many recipients. It is parsed once
 * ({@link ParsedStanzaCache}: keyed by the rendered stanza's identity, so an occupant's cached presence is parsed once
 * for all joiners too, and room threads do not evict each other's broadcasts) and copied per recipient with only
 * {@code to} changed; Openfire then writes each copy to its socket.
 *
 * <p>Concurrency: called from any engine room thread; the parse cache is lock-free (see its note). Counters are
 * {@link LongAdder}s.
 */
public final class OpenfireDelivery implements Delivery {

    private static final Logger LOG = LoggerFactory.getLogger(OpenfireDelivery.class);

    /** Global interceptors that ignore outgoing stanzas to clients (class names, as they live in other loaders). */
    private static final Set<String> INTERCEPTORS_IGNORING_OUTGOING = Set.of(
            BuiltInMucFilter.class.getName(),
            "org.jivesoftware.openfire.filetransfer.DefaultFileTransferManager$MetaFileTransferInterceptor",
            "org.jivesoftware.openfire.vcard.xep0398.PresenceEnhancer");

    /** The reason a slow recipient and its rooms see with status 333. */
    static final String SLOW_REASON = "Removed because your client did not read the room's traffic fast enough";

    private final LocalRoutes routes;
    private final PacketRouter router;
    private final InterceptorManager interceptors;
    private volatile boolean directLocal;
    private volatile boolean rawLocal;
    private volatile boolean batchedWrites;
    private volatile boolean rawStreamManaged = true;
    private final RenderedPackets renderedPackets;
    /** Openfire's unacknowledged-stanza queues, when laid out as 5.1's ({@link UnackedStanzas}); else null. */
    private final UnackedStanzas unacked;
    /** Renews CSI managers' last-push time at raw writes, when laid out as 5.1's ({@link CsiLastPush}); else null. */
    private final CsiLastPush lastPush = CsiLastPush.resolve();
    private final EventLoopWriteBatches batches = new EventLoopWriteBatches();
    private final ParsedStanzaCache parsed = new ParsedStanzaCache();
    private final LongAdder raw = new LongAdder();
    private final LongAdder counted = new LongAdder();
    /** {@code <r/>} requests written in mucscale's batches, not by Openfire ({@link UnackedStanzas}). */
    private final LongAdder ackRequestsWritten = new LongAdder();
    private final LongAdder direct = new LongAdder();
    private final LongAdder routed = new LongAdder();
    private final LongAdder failed = new LongAdder();
    /** How a managed session's hand-over reaches the packet path and the counters ({@link ManagedSessionWrites}). */
    private final ManagedSessionWrites.Outlet outlet = new ManagedSessionWrites.Outlet() {
        @Override
        public void asPacket(LocalClientSession session, RenderedStanza stanza, Jid recipient) {
            deliverAsPacket(stanza, recipient, session);
        }

        @Override
        public void wroteRaw(int stanzas, boolean countedBySession, int ackRequests) {
            raw.add(stanzas);
            if (countedBySession) {
                counted.add(stanzas);
            }
            if (ackRequests > 0) {
                ackRequestsWritten.add(ackRequests);
            }
        }

        @Override
        public void pushedRaw(CsiManager csi) {
            if (lastPush != null) {
                lastPush.renew(csi, batches.pushTime());
            }
        }
    };

    public OpenfireDelivery(XMPPServer server, boolean directLocal, boolean rawLocal, boolean batchedWrites) {
        this.routes = new LocalRoutes(server.getRoutingTable());
        this.router = server.getPacketRouter();
        this.interceptors = InterceptorManager.getInstance();
        this.directLocal = directLocal;
        this.rawLocal = rawLocal;
        this.batchedWrites = batchedWrites;
        RenderedPackets packets = RenderedPackets.define(Packet.class.getClassLoader(), getClass().getClassLoader());
        this.renderedPackets = packets;
        this.unacked = UnackedStanzas.resolve();
        this.batches.manageWith(packets, unacked, outlet);
    }

    /**
     * Keeps the remembered local sessions in step with Openfire's session events until the returned registration is
     * closed ({@link LocalRoutes#watchSessions}).
     */
    public AutoCloseable watchSessions() {
        return routes.watchSessions();
    }

    /** Turns direct local delivery on or off (dynamic setting). */
    public void directLocal(boolean on) {
        this.directLocal = on;
    }

    /** Turns raw local delivery on or off (dynamic setting; needs direct local delivery). */
    public void rawLocal(boolean on) {
        this.rawLocal = on;
    }

    /** Turns batched raw writes on or off (dynamic setting; needs raw local delivery). */
    public void batchedWrites(boolean on) {
        this.batchedWrites = on;
    }

    /** Turns the raw path for stream-managed sessions on or off (dynamic setting; needs raw local delivery). */
    public void rawStreamManaged(boolean on) {
        this.rawStreamManaged = on;
    }

    /** Bytes one slow recipient may have waiting on the batched path (dynamic setting). */
    public void recipientMaxQueuedBytes(long bytes) {
        batches.recipientMaxQueuedBytes(bytes);
    }

    /**
     * Connects the slow-recipient bound to the engine: a recipient over it is removed from its rooms by
     * {@code service} and the drops and removals are counted in {@code metrics} (dashboard, Prometheus).
     */
    public void slowRecipients(org.mucscale.engine.muc.MucService service,
                               org.mucscale.engine.metrics.MucScaleMetrics metrics) {
        batches.onSlowRecipient(jid -> service.removeSlowRecipient(jid, SLOW_REASON), metrics::outboundDropped,
                metrics::slowRecipientRemoved);
    }

    @Override
    public void deliver(RenderedStanza stanza, Jid recipient) {
        // one routing-table lookup serves both the raw and the packet path
        LocalClientSession local = directLocal && !stanza.prefix().startsWith("<iq") ? localSession(recipient) : null;
        if (local != null && rawLocal && nothingActsOnCopies(local)) {
            writeRaw(local, stanza, recipient);
            return;
        }
        // the slow way queues behind what this thread gathered only if that is handed over first
        batches.release();
        deliverAsPacket(stanza, recipient, local);
    }

    private void deliverAsPacket(RenderedStanza stanza, Jid recipient, LocalClientSession local) {
        Packet packet;
        try {
            packet = StanzaConversion.wrap(parsed.copyFor(stanza, recipient));
        } catch (RuntimeException e) {
            failed.increment();
            LOG.error("MUC Scale could not deliver a stanza to {}: {}", recipient, e.getMessage());
            return;
        }
        deliverPacket(packet, local);
    }

    @Override
    public void send(XmlElement stanza) {
        // one routing-table lookup serves both paths, as in deliver
        Jid recipient = directLocal && !"iq".equals(stanza.name()) ? parseOrNull(stanza.attribute("to")) : null;
        LocalClientSession local = recipient == null ? null : localSession(recipient);
        if (local != null && rawLocal && nothingActsOnCopies(local)) {
            // a room's own stanzas to one occupant (self-presence, history, subject) take the raw path too, so they
            // keep their order with the broadcasts around them
            writeRaw(local, RenderedStanza.render(stanza), recipient);
            return;
        }
        batches.release();
        Packet packet;
        try {
            packet = StanzaConversion.toPacket(stanza);
        } catch (RuntimeException e) {
            failed.increment();
            LOG.error("MUC Scale could not convert an outbound <{}>: {}", stanza.name(), e.getMessage());
            return;
        }
        deliverPacket(packet, local);
    }

    @Override
    public void flush() {
        batches.flush();
    }

    private static Jid parseOrNull(String jid) {
        if (jid == null) {
            return null;
        }
        try {
            return Jid.parse(jid);
        } catch (IllegalArgumentException e) {
            return null; // the packet path below reports it
        }
    }

    private void writeRaw(LocalClientSession local, RenderedStanza stanza, Jid recipient) {
        StreamManager sm = local.getStreamManager();
        boolean counting = sm != null && sm.isEnabled();
        // a session with stanzas gathered for the hand-over is decided there, so its time is renewed there too;
        // whether a managed stanza is counted is decided again at the hand-over, under the stream manager's monitor
        if (counting || batches.holdsManaged(local) || csiMayHold(local.getCsiManager())) {
            writeManaged(local, sm, stanza, recipient);
            return;
        }
        if (batchedWrites && batches.add(local, sm, stanza, recipient)) {
            raw.increment(); // counted at its write if the client enables stream management meanwhile (LateCounts)
            return;
        }
        batches.release(); // batching was just switched off, or this connection is not Netty's: keep order
        if (sm != null) {
            writeManaged(local, sm, stanza, recipient); // decided and written under its monitor, not racing enable
            return;
        }
        local.deliverRawText(StanzaText.forConnection(local.getConnection(), stanza, recipient));
        raw.increment();
    }

    /**
     * Whether Openfire's client state indication may queue what this session gets (it is inactive, or flushing). When
     * not, the stanza is written raw, and the manager's last-push time is renewed under its monitor as
     * {@code queueOrPush} renews it when it pushes ({@link CsiLastPush}; the monitor was taken for the queue's size
     * anyway).
     */
    private boolean csiMayHold(CsiManager csi) {
        if (csi == null) {
            return false;
        }
        synchronized (csi) {
            if (!csi.isActive() || csi.getDelayQueueSize() > 0) {
                return true;
            }
            if (lastPush != null) {
                lastPush.renew(csi, batches.pushTime());
            }
            return false;
        }
    }

    /**
     * A delivery to a session whose stream manager counts it or whose client state indication may queue it, by the
     * rules of {@link ManagedSessionWrites}: batched when this thread batches, else now under the same monitors.
     */
    private void writeManaged(LocalClientSession local, StreamManager sm, RenderedStanza stanza, Jid recipient) {
        if (batchedWrites && batches.addManaged(local, sm, stanza, recipient)) {
            return; // counted when handed over
        }
        batches.release();
        // a counter of its own: a thread-local one would stay on Openfire's threads and pin the plugin
        ManagedSessionWrites.deliverNow(local, sm, stanza, recipient, new StanzaCounter(renderedPackets, unacked),
                outlet);
    }

    /** The session of a full JID when it is a usable client session on this node, else null. */
    private LocalClientSession localSession(Jid recipient) {
        if (recipient.resource() == null) {
            return null;
        }
        LocalClientSession local = routes.find(recipient);
        return local != null && !local.isDetached() ? local : null;
    }

    /** Straight to {@code local} when given (direct local delivery), else through Openfire's router. */
    private void deliverPacket(Packet packet, LocalClientSession local) {
        if (local != null) {
            local.process(packet);
            direct.increment();
            return;
        }
        router.route(packet);
        routed.increment();
    }

    /**
     * True when no part of Openfire would look at or count an outgoing copy to this session, so its rendered text may
     * be written as is (see the class note). Cheap when true: two field reads, two null checks, one map lookup and a
     * walk over the (short, copy-on-write) global interceptor list.
     */
    private boolean nothingActsOnCopies(LocalClientSession session) {
        StreamManager sm = session.getStreamManager();
        if (sm != null && sm.isEnabled() && !rawStreamManaged) {
            return false;
        }
        if (session.getActiveList() != null || session.getDefaultList() != null) {
            return false;
        }
        String user = session.getAddress() == null ? null : session.getAddress().getNode();
        if (user == null || !interceptors.getUserInterceptors(user).isEmpty()) {
            return false;
        }
        for (PacketInterceptor i : interceptors.getInterceptors()) {
            if (!INTERCEPTORS_IGNORING_OUTGOING.contains(i.getClass().getName())) {
                return false;
            }
        }
        return true;
    }

    /** Exposes the counters below as {@code mucscale.openfire.*} gauges (JMX, Prometheus) in the engine's registry. */
    /** Where the batched path reports arrival-to-socket-write latency (see {@link EventLoopWriteBatches}). */
    void recordWriteLatency(java.util.function.LongConsumer recorder) {
        batches.recordWriteLatency(recorder);
    }

    void registerGauges(com.codahale.metrics.MetricRegistry registry) {
        registry.register("mucscale.openfire.delivered.raw", (com.codahale.metrics.Gauge<Long>) this::rawCount);
        registry.register("mucscale.openfire.delivered.batched", (com.codahale.metrics.Gauge<Long>) this::batchedCount);
        registry.register("mucscale.openfire.delivered.raw-counted",
                (com.codahale.metrics.Gauge<Long>) this::rawCountedCount);
        registry.register("mucscale.openfire.delivered.counted-at-write",
                (com.codahale.metrics.Gauge<Long>) batches.lateCounts::countedAtWrite);
        registry.register("mucscale.openfire.ack-requests-batched",
                (com.codahale.metrics.Gauge<Long>) ackRequestsWritten::sum);
        registry.register("mucscale.openfire.rendered-copies-built",
                (com.codahale.metrics.Gauge<Long>) renderedPackets::builtCount);
        registry.register("mucscale.openfire.delivered.direct", (com.codahale.metrics.Gauge<Long>) this::directCount);
        registry.register("mucscale.openfire.delivered.routed", (com.codahale.metrics.Gauge<Long>) this::routedCount);
        registry.register("mucscale.openfire.delivery.failed", (com.codahale.metrics.Gauge<Long>) this::failedCount);
        registry.register("mucscale.openfire.delivery.batch-dropped",
                (com.codahale.metrics.Gauge<Long>) this::batchDroppedCount);
        registry.register("mucscale.openfire.write-batches", (com.codahale.metrics.Gauge<Long>) this::batchCount);
        registry.register("mucscale.openfire.local-routes", (com.codahale.metrics.Gauge<Integer>) routes::size);
        registry.register("mucscale.openfire.delivery.presences-shed",
                (com.codahale.metrics.Gauge<Long>) batches::presencesShedCount);
        registry.register("mucscale.openfire.delivery.slow-dropped",
                (com.codahale.metrics.Gauge<Long>) batches::slowDroppedCount);
        registry.register("mucscale.openfire.delivery.slow-recipients-removed",
                (com.codahale.metrics.Gauge<Long>) batches::slowRemovedCount);
        registry.register("mucscale.openfire.delivery.slow-peak-bytes",
                (com.codahale.metrics.Gauge<Long>) batches::slowPeakBytes);
    }

    /** Stanzas written as rendered text straight to local sessions' connections. */
    public long rawCount() {
        return raw.sum();
    }

    /** Raw stanzas counted by their session's stream manager (XEP-0198; a subset of {@link #rawCount}). */
    public long rawCountedCount() {
        return counted.sum();
    }

    /** Raw stanzas written through per-event-loop batches (a subset of {@link #rawCount}). */
    public long batchedCount() {
        return batches.writtenCount();
    }

    /** Batches handed to Netty event loops. */
    public long batchCount() {
        return batches.batchCount();
    }

    /** Batched stanzas not written because their connection had closed in the meantime. */
    public long batchDroppedCount() {
        return batches.droppedCount();
    }

    /** Stanzas written straight to local sessions as packets. */
    public long directCount() {
        return direct.sum();
    }

    /** Stanzas handed to Openfire's router. */
    public long routedCount() {
        return routed.sum();
    }

    /** Rendered stanzas parsed into dom4j (each broadcast and each cached presence once, unless evicted). */
    public long parseCount() {
        return parsed.parseCount();
    }

    /** Stanzas that could not be converted (each logged). */
    public long failedCount() {
        return failed.sum();
    }
}
