package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.mucscale.engine.muc.MucService;
import org.mucscale.engine.stanza.Jid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rooms moving between live nodes: the hand-off this node sends after a room's release (HANDOFF, on the ordered link,
 * then SWITCHED to every other member), the rooms it awaits as hand-offs (their stanzas wait on the room thread) and
 * the rooms handed to it before its own view agreed ({@code held}), and what it knows of the other nodes' views
 * (announced by SWITCHED, or presumed for a while after a change) to tell whether another node still places a room at
 * itself (a claim). Serves I1 (no empty room while another node may still hold it: claims, SWITCHED, the await), I2
 * (the room's stanzas wait in arrival order on its room thread) and L1 (a hand-off that never comes is taken from the
 * maps after {@code handoff-timeout}, extended while claimed, never past the late-switch limit);
 * docs/cluster-protocol.md sections 4 and 6 ("Hand-off queues", "{@code held}", "SWITCHED + peerViews", "Presumed
 * claims").
 *
 * <p>State and owners. {@code awaitingHandoff}: added to by room threads ({@link #arriving}) and transport threads
 * ({@link #await}), removed and re-added by the cluster thread (hand-offs, SWITCHED, the tick's deadlines, retries);
 * a concurrent map whose entries each of those only puts if absent or removes. {@code held}: the cluster thread's
 * (added at a hand-off, cleared at each view switch), read by any thread that places a room. {@code peerViews}: written
 * on the cluster thread only (SWITCHED, and ClusterNode's view changes), read by room threads (claims) and by the
 * early forwards. {@code previous} and {@code viewChangedNanos}: the cluster thread's, set before each switch, read
 * by room threads (volatile).
 */
final class HandOffs {
    private static final Logger LOG = LoggerFactory.getLogger(HandOffs.class);

    private final String local;
    /** ClusterNode's view (volatile there, replaced by the cluster thread). */
    private final Supplier<View> view;
    private final BooleanSupplier closed;
    /** ClusterNode's: nodes that announced their leave (their announced views still claim rooms); read only here. */
    private final Set<String> leavingNodes;
    /** ClusterNode's: nodes that announced their leave and left the view; read only here. */
    private final Set<String> leftGracefully;
    /** ClusterNode's: nodes that left without a word; read only here. */
    private final Set<String> crashedNodes;
    private final EngineMembers engines;
    /** The replicated room map: whether a room presumed elsewhere exists at all. */
    private final ClusterMap rooms;
    private final RoomAdoption adoption;
    private final ReplicatedRooms replicated;
    private final Outbox outbox;
    private final OrderedLinks<?> links;
    private final long handoffTimeoutNanos;
    /** The longest a room's stanzas wait for a previous owner that has not switched views yet. */
    private final long lateSwitchLimitNanos;
    private final ClusterListener listener;

    /** Rooms taken over from a hand-off before this node's own view agreed (cleared at each view change). */
    private final Set<Jid> held = ConcurrentHashMap.newKeySet();
    /** Rooms waiting for a hand-off, with the deadline after which they are taken over from the maps. */
    private final ConcurrentHashMap<Jid, Long> awaitingHandoff = new ConcurrentHashMap<>();
    /**
     * The view each other node last said it switched to ({@link Wire#SWITCHED}, sent after its hand-offs): a room that
     * such a view places at that node is still there ({@link #claimOf}). Kept for leaving nodes until they are gone.
     * Written on the cluster thread only; read by room threads (claims).
     */
    private final ConcurrentHashMap<String, List<String>> peerViews = new ConcurrentHashMap<>();

    /** The view before the last change, and when it changed (for {@link #claimOf}; set by {@link #viewChanging}). */
    private volatile View previous;
    private volatile long viewChangedNanos;

    HandOffs(String local, Supplier<View> view, BooleanSupplier closed, Set<String> leavingNodes,
             Set<String> leftGracefully, Set<String> crashedNodes, EngineMembers engines, ClusterMap rooms,
             RoomAdoption adoption, ReplicatedRooms replicated, Outbox outbox, OrderedLinks<?> links,
             long handoffTimeoutNanos, long lateSwitchLimitNanos, ClusterListener listener) {
        this.local = local;
        this.view = view;
        this.closed = closed;
        this.leavingNodes = leavingNodes;
        this.leftGracefully = leftGracefully;
        this.crashedNodes = crashedNodes;
        this.engines = engines;
        this.rooms = rooms;
        this.adoption = adoption;
        this.replicated = replicated;
        this.outbox = outbox;
        this.links = links;
        this.handoffTimeoutNanos = handoffTimeoutNanos;
        this.lateSwitchLimitNanos = lateSwitchLimitNanos;
        this.listener = listener;
    }

    /** Whether this node holds {@code room} ahead of its view, or awaits it (any thread; never blocks). */
    boolean holdsOrAwaits(Jid room) {
        return held.contains(room) || awaitingHandoff.containsKey(room);
    }

    /** The room's stanzas wait here for its hand-off, up to the hand-off timeout from now (if not awaited yet). */
    void await(Jid room) {
        awaitingHandoff.putIfAbsent(room, System.nanoTime() + handoffTimeoutNanos);
    }

    /** Awaited again with a deadline already past: the next tick adopts it from the maps. */
    void retryFromMaps(Jid room) {
        awaitingHandoff.put(room, System.nanoTime());
    }

    /** At each view switch (cluster thread): rooms handed over ahead of this node's view are its view's now. */
    void clearHeld() {
        held.clear();
    }

    /** Before a switch away from {@code old} (cluster thread): presumed claims run from now. */
    void viewChanging(View old) {
        previous = old;
        viewChangedNanos = System.nanoTime();
    }

    /** The view each other node last announced (cluster thread writes; others read). */
    ConcurrentHashMap<String, List<String>> peerViews() {
        return peerViews;
    }

    /**
     * On the tick (cluster thread): rooms whose hand-off did not come in time, and that no node that still runs the
     * engine claims any more (or claims past the late-switch limit), are taken over from the replicated state.
     */
    void adoptOverdue(long now) {
        List<Jid> overdue = new ArrayList<>();
        awaitingHandoff.forEach((room, deadline) -> {
            // a node that still places the room at itself (as it announced, or presumably, and it runs the
            // plugin) has not finished its switch yet: wait on for its hand-off, up to the limit (one whose engine
            // died while it stays a member must not hold the room for good)
            Claim c;
            if (now - deadline >= 0 && ((c = claimOf(room)) == null
                    || !c.announced() && !engines.runsEngine(c.node())
                    || now - (deadline - handoffTimeoutNanos) - lateSwitchLimitNanos >= 0)) {
                overdue.add(room);
            }
        });
        if (!overdue.isEmpty()) {
            overdue.forEach(awaitingHandoff::remove);
            LOG.warn("no hand-off for {} rooms within the hand-off timeout; taking them over from the replicated "
                    + "state", overdue.size());
            adoption.adoptFromMaps(overdue, true, null);
        }
    }

    /**
     * Whether a stanza for {@code room}, which is not on this node, is to wait on its room thread (RoomPlacement's
     * arriving, room threads): it is awaited as a hand-off, taken over, or another node still places it at itself.
     */
    boolean arriving(Jid room) {
        if (awaitingHandoff.containsKey(room)) {
            return true;
        }
        if (adoption.holds(room, view.get())) {
            return true;
        }
        // alone too: the last other member may be leaving, its rooms still on their way here
        if (!local.equals(view.get().owner(room))) {
            return false;
        }
        Claim c = claimOf(room);
        if (c == null || !c.announced() && !(c.servedAlone() && engines.runsEngine(c.node()))
                && !replicatedAnywhere(room)) {
            return false; // no other node has it: a new room
        }
        awaitingHandoff.putIfAbsent(room, System.nanoTime() + handoffTimeoutNanos);
        return true;
    }

    /**
     * {@code node} places a room at itself, in a view it announced, or in the view it is presumed to have; in a
     * presumed view of {@code node} alone its rooms were never replicated.
     */
    private record Claim(String node, boolean announced, boolean servedAlone) {
    }

    /**
     * The other node that, as far as this node knows, still places {@code room} at itself, or null.
     * <ul>
     *   <li>Its view is the one it last announced ({@link Wire#SWITCHED}: it has switched to it and handed off what
     *   it moved). While it places the room at itself, the room's stanzas here wait for its hand-off, however late its
     *   view change comes (Openfire told one node of a join 1.1 s after the other, and that node's switch took 5 s
     *   more under load: stanzas forwarded to the newcomer after its 2 s of waiting were refused as for an unknown
     *   room, and a run of 56-79 messages was lost).</li>
     *   <li>A node that has announced no view to this node is presumed, for the state-read timeout after this node's
     *   view changed, to be in this node's previous view, or, if this node was alone, in the view of the others before
     *   this node came. Only presumed, so the room is waited for only if the maps have it
     *   ({@link #replicatedAnywhere}) or that node served alone and runs the engine (a node alone replicates nothing,
     *   so a room it created then is not in the maps: a newcomer's user joining it must not create a second one), and
     *   beyond the hand-off timeout only if it runs the engine ({@link EngineMembers}: inside Openfire a member may
     *   not run the plugin at all).</li>
     *   <li>A newcomer to a clustered view is not waited for: rooms it served alone come as its hand-offs.</li>
     * </ul>
     */
    private Claim claimOf(Jid room) {
        View v = view.get();
        View p = System.nanoTime() - viewChangedNanos - lateSwitchLimitNanos < 0 ? previous : null;
        String key = room.toString();
        Claim c = firstClaim(v.members(), key, v, p);
        return c != null ? c : firstClaim(leavingNodes, key, v, p);
    }

    private Claim firstClaim(Iterable<String> nodes, String room, View now, View previous) {
        for (String n : nodes) {
            Claim c = n.equals(local) ? null : claimBy(n, room, now, previous);
            if (c != null) {
                return c;
            }
        }
        return null;
    }

    /** {@code previous}: null once presumptions have lapsed. */
    private Claim claimBy(String node, String room, View now, View previous) {
        List<String> announced = peerViews.get(node);
        if (announced != null) {
            return node.equals(Rendezvous.owner(room, announced)) ? new Claim(node, true, false) : null;
        }
        List<String> presumed = null;
        if (previous != null && !previous.clustered()) {
            presumed = now.without(local);
        } else if (previous != null && previous.members().contains(node)) {
            presumed = previous.members();
        }
        return presumed != null && node.equals(Rendezvous.owner(room, presumed))
                ? new Claim(node, false, presumed.size() == 1) : null;
    }

    /**
     * Whether the room has replicated state (every room on a clustered node has; a node that was alone copies its rooms
     * before it switches views). One read, on a room thread, only for the first stanza of a room that is not here and
     * that another node is presumed to have ({@link #claimOf}); if it fails, the room is taken to exist.
     */
    private boolean replicatedAnywhere(Jid room) {
        try {
            return rooms.get(ReplicatedRooms.roomKey(room)) != null;
        } catch (RuntimeException e) {
            return true;
        }
    }

    /**
     * {@code from} switched to {@code members} (on the cluster thread). Its hand-offs came before this on the link and
     * were taken before it here, so a room still awaited that no node places at itself any more was not on any: it
     * starts now, from the maps if they have it, else as a new room.
     */
    void onSwitched(String from, List<String> members) {
        if (closed.getAsBoolean() || from == null || from.equals(local)) {
            return;
        }
        peerViews.put(from, members);
        List<Jid> unclaimed = new ArrayList<>();
        for (Jid room : awaitingHandoff.keySet()) {
            if (claimOf(room) == null && awaitingHandoff.remove(room) != null) {
                unclaimed.add(room);
            }
        }
        if (!unclaimed.isEmpty()) {
            LOG.info("{} switched views without handing over {} rooms awaited here; they start here", from,
                    unclaimed.size());
            adoption.adoptFromMaps(unclaimed, false, null);
        }
    }

    /**
     * Tells the other members this node places rooms over {@code next} now and has handed off what moved. They all run
     * the engine (rule J1: the view has no other members), so none gets a message it cannot load; to a member that
     * just started, this is also what counts this node in there (J2).
     */
    void announceSwitch(View next) {
        if (!next.clustered()) {
            return;
        }
        for (String other : next.without(local)) {
            tell(other, next);
        }
    }

    private void tell(String other, View v) {
        try {
            outbox.sendNow(other, Wire.switched(links.epoch(), links.nextSeq(other), v.members()));
        } catch (RuntimeException e) {
            LOG.warn("telling {} of this node's switch to {} failed: {}", other, v.members(), e.toString());
        }
    }

    void handOff(MucService service, List<Jid> localRooms, View next) {
        List<Jid> moving = new ArrayList<>();
        for (Jid room : localRooms) {
            if (!local.equals(next.owner(room))) {
                moving.add(room);
            }
        }
        if (moving.isEmpty()) {
            return;
        }
        try {
            service.release(moving).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warn("releasing {} rooms did not finish: {}", moving.size(), e.toString());
        }
        for (Jid room : moving) {
            replicated.forget(room); // the new owner starts from what is in the map
            String owner = next.owner(room);
            outbox.sendNow(owner, Wire.handoff(links.epoch(), links.nextSeq(owner), room));
            listener.handedOff();
        }
        LOG.info("handed {} rooms to their new owners", moving.size());
    }

    void onHandoff(Jid room) {
        if (closed.getAsBoolean()) {
            return;
        }
        awaitingHandoff.remove(room);
        if (!local.equals(view.get().owner(room))) {
            held.add(room); // the sender's view is ahead of ours
        }
        try {
            // a leaving node hands its rooms over after it announced its leave: its occupants go as they would here
            Set<String> gone = new HashSet<>(leftGracefully);
            gone.addAll(crashedNodes);
            adoption.adoptFromMaps(List.of(room), false, gone);
        } catch (RuntimeException e) {
            // run as a task of the cluster thread, whose executor would keep the exception unseen
            awaitingHandoff.put(room, System.nanoTime()); // the tick takes it from the maps
            LOG.warn("adopting {} handed over failed; trying again", room, e);
        }
    }
}
