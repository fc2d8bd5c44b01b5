package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.mucscale.engine.muc.Forwarded;
import org.mucscale.engine.muc.MucService;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The forwarding log: forwards to rooms' owners, kept ({@link Unconfirmed}) until the owner confirms them and resent
 * to the rooms' new owners when an owner crashes; the confirmations this node owes the nodes that forward to it; and
 * the forwards that reach this node before its view has caught up with their sender's (early forwards). Serves I5 (at
 * least once: unconfirmed, CONFIRM, resend at a crash), defines I4 (a CONFIRM only after the barrier behind every room
 * thread, and never past a forward still parked here or held by the {@link StragglerHold}: F2), and I2 across a crash
 * (the resend gate: resends go before anything newer from this node, and early resends other nodes sent here before
 * this node's own); L1 (early forwards wait at most {@code handoff-timeout}, or the late-switch limit while their
 * sender announced the view that sent them here). docs/cluster-protocol.md section 6: "Unconfirmed + CONFIRM +
 * confirmation barrier", "Resend at a crash", "Resend gate", "Early forwards".
 *
 * <p>State and owners.
 * <ul>
 *   <li>{@code unconfirmed}: one record per owner, added to by every thread that forwards (host, transport, room and
 *   the cluster thread), confirmed on transport threads, taken and forgotten on the cluster thread; each record is
 *   its own monitor.</li>
 *   <li>{@code resending} and {@code resendGate}: the cluster thread's, set and held only inside
 *   {@link #switchResending}; other threads pass the gate (wait) while it is held.</li>
 *   <li>{@code inbound} progress: written by the transport thread of each link in link order ({@code epoch},
 *   {@code seq}), removed by the cluster thread for departed nodes; {@code confirmedEpoch/Seq} and {@code confirming}
 *   by whichever thread completes the confirmation barrier (a known harmless race: at worst a repeated CONFIRM,
 *   cluster-protocol.md section 7).</li>
 *   <li>{@code earlyForwards}: parked by transport threads, admitted by transport threads and the cluster thread, all
 *   under the queue's monitor.</li>
 * </ul>
 * Lock order (cluster-protocol.md section 5): a link's inbox, then the straggler hold, then the resend gate, then the
 * early-forward queue, then the {@code Unconfirmed} monitors; nothing under the gate takes a link's inbox.
 */
final class ForwardingLog {
    private static final Logger LOG = LoggerFactory.getLogger(ForwardingLog.class);

    private final String local;
    private final OrderedLinks<?> links;
    private final Outbox outbox;
    private final ClusterListener listener;
    private final int unconfirmedLimit;
    private final long handoffTimeoutNanos;
    /** The longest a forward waits for this node's view when its sender announced the view that sent it here. */
    private final long lateSwitchLimitNanos;
    private final long replicationTimeoutMs;
    /** ClusterNode's view (volatile there; replaced by the cluster thread, inside the resend gate at a departure). */
    private final Supplier<View> view;
    private final Supplier<MucService> muc;
    private final BooleanSupplier closed;
    /** ClusterNode.servedHereNow: whether this node serves or awaits a room now (never blocks). */
    private final Predicate<Jid> servedHereNow;
    /** Hands a forward from a link on to the rooms (ClusterNode.handOn). */
    private final BiConsumer<String, Wire.Message> handOn;
    /** ClusterNode's: the view each other node announced (SWITCHED); read only here. */
    private final Map<String, List<String>> peerViews;
    /** ClusterNode's: nodes that announced their leave; read only here. */
    private final Set<String> leavingNodes;
    /** Whether a member reads a FORWARD's origin ({@link PeerWireVersions}). */
    private final Predicate<String> readsOrigins;
    private final StragglerHold stragglers;

    ForwardingLog(String local, OrderedLinks<?> links, Outbox outbox, ClusterListener listener, int unconfirmedLimit,
                  long handoffTimeoutNanos, long lateSwitchLimitNanos, long replicationTimeoutMs,
                  Supplier<View> view, Supplier<MucService> muc, BooleanSupplier closed, Predicate<Jid> servedHereNow,
                  BiConsumer<String, Wire.Message> handOn, Map<String, List<String>> peerViews,
                  Set<String> leavingNodes, Predicate<String> readsOrigins, StragglerHold stragglers) {
        this.local = local;
        this.links = links;
        this.outbox = outbox;
        this.listener = listener;
        this.unconfirmedLimit = unconfirmedLimit;
        this.handoffTimeoutNanos = handoffTimeoutNanos;
        this.lateSwitchLimitNanos = lateSwitchLimitNanos;
        this.replicationTimeoutMs = replicationTimeoutMs;
        this.view = view;
        this.muc = muc;
        this.closed = closed;
        this.servedHereNow = servedHereNow;
        this.handOn = handOn;
        this.peerViews = peerViews;
        this.leavingNodes = leavingNodes;
        this.readsOrigins = readsOrigins;
        this.stragglers = stragglers;
    }

    /** Forwards a stanza to its room's owner under the current view (any thread; waits out a resend under way). */
    void forward(Jid room, XmlElement stanza, String entryNode, int hops, boolean resent, Forwarded origin) {
        while (!send(view.get(), room, stanza, entryNode, hops, resent, origin, false)) {
            awaitResends(); // the owner read just left: route again under the view that replaced it
        }
    }

    /** Before a room is placed by the view: what was resent to the rooms' new owners goes first. */
    void awaitResendsIfAny() {
        if (resending) {
            // the view read may be the new one: what was resent to the rooms' new owners goes first
            awaitResends();
        }
    }

    /**
     * On the cluster thread, at a view change with departed nodes: under the resend gate, takes what they never
     * confirmed, switches the view ({@code switchView}), admits the early forwards and resends, in that order.
     */
    void switchResending(Set<String> departed, View next, Runnable switchView) {
        synchronized (resendGate) {
            resending = true;
            try {
                List<Resend> toResend = takeUnconfirmed(departed);
                switchView.run();
                // resends other nodes sent here before this view made this node their rooms' owner go first:
                // what this node kept for the departed owner includes newer messages of the same senders,
                // which those nodes forwarded here after their resends (each link keeps its order)
                admitEarlyForwards();
                resend(next, toResend);
            } finally {
                resending = false;
            }
        }
    }

    /** The progress of the link from {@code fromNode} (its transport thread, in link order). */
    Progress progress(String fromNode) {
        return inbound.computeIfAbsent(fromNode, n -> new Progress());
    }

    /** Departed nodes owe nothing and are owed nothing any more (cluster thread, after the switch). */
    void forgetProgress(Set<String> departed) {
        departed.forEach(inbound::remove);
    }

    /** Parks a forward that came before this node's view caught up with its sender's (its link's thread). */
    void park(String fromNode, Wire.Message m) {
        synchronized (earlyForwards) {
            earlyForwards.add(new EarlyForward(System.nanoTime(), fromNode, m));
        }
    }

    /**
     * Forwards under {@code v}; false if that cannot be done now because the owner under {@code v} is leaving with
     * unconfirmed messages being resent ({@code resending}: this is one of those resends, which go first).
     */
    private boolean send(View v, Jid room, XmlElement stanza, String entryNode, int hops, boolean resent,
                         Forwarded origin, boolean resending) {
        String owner = v.owner(room);
        if (!resending && this.resending && !Thread.holdsLock(resendGate)) {
            return false;
        }
        if (owner == null || owner.equals(local)) {
            // the view changed in between: it is ours now
            muc.get().processForwarded(stanza, entryNode, hops, resent, null, origin);
            return true;
        }
        long seq = links.nextSeq(owner);
        // kept by whoever forwards it, entry node or a node whose view was behind: the one that sent it to the owner
        // is the one the owner confirms it to
        if (unconfirmedLimit > 0 && Unconfirmed.keeps(stanza) && !unconfirmed.computeIfAbsent(owner,
                o -> new Unconfirmed(unconfirmedLimit)).add(seq, room, entryNode, stanza)) {
            return false; // its owner left a moment ago; what it kept is being resent
        }
        byte[] bytes = Wire.forward(links.epoch(), seq, room, entryNode == null ? local : entryNode, hops, resent,
                readsOrigins.test(owner) ? origin : null, stanza);
        outbox.send(owner, bytes);
        listener.forwarded(bytes.length);
        return true;
    }

    /**
     * While a view change resends what departed owners never confirmed, stanzas for rooms wait here, so nothing a
     * sender sent later reaches a room's new owner before the resent ones (the cluster thread holds this gate).
     */
    private final Object resendGate = new Object();
    private volatile boolean resending;

    private void awaitResends() {
        synchronized (resendGate) {
            // nothing: entering means the resends are done (or this is the cluster thread doing them)
        }
    }

    private final ConcurrentHashMap<String, Unconfirmed> unconfirmed = new ConcurrentHashMap<>();

    /** Per node sending to us: the epoch and the newest sequence number handed on in link order (transport threads). */
    static final class Progress {
        volatile long epoch;
        volatile long seq = -1;
        long confirmedEpoch;
        long confirmedSeq = -1;
    }

    private final ConcurrentHashMap<String, Progress> inbound = new ConcurrentHashMap<>();
    private volatile boolean confirming;

    /**
     * On the cluster thread (each tick): for every node that sent us something since the last confirmation, once
     * every room thread has handled what was queued and its writes are confirmed, tell that node how far it got.
     */
    void confirmHandled() {
        MucService service = muc.get();
        if (confirming || service == null || !view.get().clustered()) {
            return;
        }
        Map<String, long[]> upTo = new HashMap<>();
        inbound.forEach((node, p) -> {
            long seq = p.seq;
            long epoch = p.epoch;
            if (seq >= 0 && (seq != p.confirmedSeq || epoch != p.confirmedEpoch)) {
                upTo.put(node, new long[] {epoch, seq});
            }
        });
        stopBeforeParked(upTo);
        if (upTo.isEmpty()) {
            return;
        }
        confirming = true;
        CompletableFuture<Void> barrier;
        try {
            barrier = service.replicationBarrier();
        } catch (RuntimeException e) {
            confirming = false;
            return;
        }
        barrier.orTimeout(replicationTimeoutMs * 2, TimeUnit.MILLISECONDS).whenComplete((ok, failure) -> {
            try {
                if (failure == null && !closed.getAsBoolean()) {
                    upTo.forEach((node, es) -> {
                        Progress p = inbound.get(node);
                        if (p != null && view.get().members().contains(node)) {
                            outbox.send(node, Wire.confirm(links.epoch(), links.nextSeq(node), es[0], es[1]));
                            p.confirmedEpoch = es[0];
                            p.confirmedSeq = es[1];
                        }
                    });
                }
            } finally {
                confirming = false;
            }
        });
    }

    /**
     * A forward parked as an early forward is not handed on yet, though the link's progress moved past it: each
     * link's confirmation stops before its first parked one (read after the progress, which moves after the parking).
     */
    private void stopBeforeParked(Map<String, long[]> upTo) {
        synchronized (earlyForwards) {
            for (EarlyForward e : earlyForwards) {
                long[] es = upTo.get(e.fromNode());
                if (es != null && e.message().epoch() == es[0]) {
                    es[1] = Math.min(es[1], e.message().seq() - 1);
                }
            }
        }
        stragglers.stopBeforeHeld(upTo); // likewise a forward held for a leaving node's stragglers
        upTo.entrySet().removeIf(u -> {
            Progress p = inbound.get(u.getKey());
            long[] es = u.getValue();
            return es[1] < 0 || p != null && es[0] == p.confirmedEpoch && es[1] <= p.confirmedSeq;
        });
    }

    void onConfirm(String fromNode, Wire.Message m) {
        Unconfirmed u = unconfirmed.get(fromNode);
        if (u != null && m.confirmedEpoch() == links.epoch()) {
            u.confirm(m.confirmedSeq());
        }
    }

    /**
     * On the cluster thread, at a view change: what this node forwarded to owners that died (or stopped without
     * handing over) and that they never confirmed. A node that announced its leave hands its rooms over and forwards
     * stragglers itself: nothing of its is resent.
     */
    private List<Resend> takeUnconfirmed(Set<String> departed) {
        List<Resend> all = new ArrayList<>();
        for (String node : departed) {
            // left in the map, refusing additions, so a forward that read the old view routes again instead of
            // starting a fresh record for a node that is gone (removed when the node is back in a view)
            Unconfirmed u = unconfirmed.get(node);
            if (u == null) {
                continue;
            }
            List<Unconfirmed.Kept> list = u.takeUnconfirmed();
            if (leavingNodes.contains(node)) {
                continue;
            }
            for (Unconfirmed.Kept k : list) {
                // the departed owner's accepted mark names it so: skipped where that mark covers it
                all.add(new Resend(k, new Forwarded(node, local, links.epoch(), k.seq())));
            }
            listener.resent(list.size(), u.letGo());
            if (!list.isEmpty() || u.letGo() > 0) {
                LOG.info("sending {} messages again that {} had not confirmed before it left{}", list.size(), node,
                        u.letGo() == 0 ? "" : " (" + u.letGo() + " older ones were let go at the limit)");
            }
        }
        return all;
    }

    /** Drops the records of departed nodes that are members again (before the view that has them is used). */
    void forgetDeparted(List<String> members) {
        for (String m : members) {
            Unconfirmed u = unconfirmed.get(m);
            if (u != null && u.departed()) {
                unconfirmed.remove(m, u);
            }
        }
    }

    /** A message kept for an owner that departed, and which forward it was (the resend's origin). */
    private record Resend(Unconfirmed.Kept kept, Forwarded origin) {
    }

    /** Sends {@code list} to the rooms' owners under {@code next}, marked as resent (on the cluster thread). */
    private void resend(View next, List<Resend> list) {
        for (Resend r : list) {
            Unconfirmed.Kept k = r.kept();
            try {
                send(next, k.room(), k.stanza(), k.entryNode(), 1, true, r.origin(), true);
            } catch (RuntimeException e) {
                LOG.warn("could not resend a message for {}: {}", k.room(), e.toString());
            }
        }
    }

    /**
     * Forwarded stanzas that came before this node's view caught up with their sender's, with their arrival time:
     * resent ones before the view made this node their room's owner, and any that reach a node still alone in its view
     * (it is joining, and the sender already sees it; handled at once, they would meet no room, as the rooms moving
     * here have not been handed over yet).
     */
    private final ConcurrentLinkedQueue<EarlyForward> earlyForwards = new ConcurrentLinkedQueue<>();

    private record EarlyForward(long arrivedNanos, String fromNode, Wire.Message message) {
        /** Whether this node's view has caught up with the sender's for this stanza. */
        boolean due(ForwardingLog log) {
            return message.resent() ? log.servedHereNow.test(message.room())
                    : log.view.get().members().contains(fromNode);
        }

        /**
         * Whether the sender has announced ({@link Wire#SWITCHED}) the view that sent this stanza here: one that makes
         * this node the room's owner (a resend), or one with this node in it. Such a stanza waits for this node's
         * view past the hand-off timeout, up to the late-switch limit: this node's view is the one that lags.
         */
        boolean announcedHere(ForwardingLog log) {
            List<String> v = log.peerViews.get(fromNode);
            if (v == null) {
                return false;
            }
            return message.resent() ? log.local.equals(Rendezvous.owner(message.room().toString(), v))
                    : v.contains(log.local);
        }
    }

    /**
     * A forward from another node while this node is alone in its view: its sender's view is ahead. Not from a node
     * that announced its leave: that one is behind, passing on stragglers (this node's own users' stanzas among them),
     * which must go in at once, before the leaving node's PASSED lets their senders' later stanzas go (StragglerHold
     * rule 4); waiting as early forwards they came seconds late, after those (RealOpenfireRollingUpgradeIT).
     */
    boolean aheadOfUs(String fromNode, Wire.Message m) {
        return !view.get().clustered() && !m.resent() && fromNode != null && !fromNode.equals(local)
                && !leavingNodes.contains(fromNode);
    }

    /**
     * Early forwards whose sender's view this node's has caught up with (or that waited long enough) go in. Called on
     * the cluster thread and, before a newer forwarded stanza is handed on, on the transport thread that has it, so the
     * early ones, which came first on their link, are handled first.
     */
    void admitEarlyForwards() {
        if (earlyForwards.isEmpty() || resending && !Thread.holdsLock(resendGate)) {
            // while the cluster thread resends, it admits them itself, first
            return;
        }
        // lock order: the resend gate, then this queue. The cluster thread holds the gate when it comes here, and
        // handing a stanza on passes the gate (servesHere), so a transport thread takes the gate first: one that
        // passed the check above just before a view change began held this queue and waited for the gate while the
        // cluster thread held the gate and waited for this queue (ClusterEnginesTest hung so in CI once; before
        // that, a wait inside deadlocked ClusterViewLagOrderTest once in ~3 runs)
        synchronized (resendGate) {
            admitEarlyForwardsGated();
        }
    }

    private void admitEarlyForwardsGated() {
        synchronized (earlyForwards) {
            long now = System.nanoTime();
            int n = earlyForwards.size();
            for (int i = 0; i < n; i++) {
                EarlyForward e = earlyForwards.poll();
                if (e == null) {
                    break;
                }
                Wire.Message m = e.message();
                long waited = now - e.arrivedNanos();
                if (e.due(this) || waited > handoffTimeoutNanos
                        && (waited > lateSwitchLimitNanos || !e.announcedHere(this))) {
                    handOn.accept(e.fromNode(), m);
                } else {
                    earlyForwards.add(e); // not yet: back at the end, order among the waiting ones kept
                }
            }
        }
    }


    /** Forwarded messages kept until their owners confirm them (a gauge). */
    public int unconfirmedMessages() {
        int n = 0;
        for (Unconfirmed u : unconfirmed.values()) {
            n += u.size();
        }
        return n;
    }
}
