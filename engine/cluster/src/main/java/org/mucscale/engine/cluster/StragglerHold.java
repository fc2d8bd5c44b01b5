package org.mucscale.engine.cluster;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.mucscale.engine.stanza.Jid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sender order across a graceful leave (docs/cluster-protocol.md, invariant I2, finding F1). When a node L announces
 * its leave, its rooms move to other nodes while L still runs: L forwards what still reaches it (stragglers) to the
 * rooms' new owners, and each entry node E, once it has handled L's LEAVING, forwards the same senders' next stanzas to
 * those owners itself. The two travel two links (L to N, E to N), so a new owner N could handle E's later stanza before
 * L's earlier one. The rule, with the message {@link Wire#PASSED} ({@code string entryNode}, wire version 4):
 * <ol>
 *   <li><b>Entry node</b> ({@link #routedAround}): right after it switched to the view without L, E sends L
 *   {@code PASSED(E)}: on the E-to-L link it comes after every stanza E forwarded to L.</li>
 *   <li><b>Leaving node</b> ({@link #passed} with the entry node as sender): once its room threads have run what was
 *   queued before (they forward on stanzas that were queued to a room before it moved), L sends
 *   {@code PASSED(E)} to every other member: on each L-to-N link it comes after every straggler of E's that L sent
 *   there.</li>
 *   <li><b>New owner</b> ({@link #hold}): a forward from E for a room that moved from L to this node (rendezvous over
 *   the members without L places it here, and with L at L) waits here, from the moment this node learns of L's leave,
 *   until L's {@code PASSED(E)} arrives; then every held forward of E's goes on in arrival order, on the thread that
 *   handles L's message, so after the stragglers before it on L's link.</li>
 *   <li><b>New owner that is the entry node</b> ({@link #holdEntering}): L sends its {@code PASSED(E)} to E as well.
 *   A stanza that enters at N itself for such a room (N = E: the sender's session is here, and L forwards N's
 *   stragglers back here) waits from the moment N learns of L's leave until L's {@code PASSED(N)} arrives, and then
 *   goes on after the stragglers before it on L's link. Without this, N's user's next stanzas overtook the ones L still
 *   passed back (and before the leaving node forwarded them back at all, it held them for a hand-off that never came,
 *   confirmed and lost: the loss RealOpenfireRollingUpgradeIT saw).</li>
 * </ol>
 * Bounds (L1): a held forward goes on without L's word after {@code timeoutNanos} (the hand-off timeout) from the
 * first forward held for that entry node (logged, counted as given up), when L or E is no longer a member or L no
 * longer leaving, and nothing is held for an entry node or leaving node that did not publish wire version 4 (it would
 * never tell). Held forwards are not confirmed ({@link #stopBeforeHeld}), so an entry node keeps them until they are
 * handled (I4).
 *
 * <p>Gaps: a forward E sends N before N has learnt of L's leave goes back to L (N's view still places the room there)
 * and may come back after E's later ones; a join moves rooms from live owners too and is not
 * covered (no node leaves, so there is no LEAVING to start from).
 *
 * <p>Threads: every field below is guarded by this object's monitor. The leaving nodes' records are started by the
 * cluster thread ({@link #leaving}) or by the transport thread that takes a {@code PASSED} first, and ended by the
 * cluster thread ({@link #retain}, {@link #releaseOverdue}); transport threads hold and let go of forwards
 * ({@link #hold}, {@link #passed}), each under a link's inbox lock. Lock order: a link's inbox, this monitor, then
 * what handing a forward on takes (the resend gate and after it). The cluster thread never holds the resend gate when
 * it comes here.
 */
final class StragglerHold {
    private static final Logger LOG = LoggerFactory.getLogger(StragglerHold.class);
    /** The first wire version that sends and reads {@link Wire#PASSED}. */
    static final int WIRE_VERSION = 4;

    /** A forward held here, as its link handed it on. */
    record Held(String fromNode, Wire.Message message) {
    }

    /** What a leaving node has told this node, and the forwards that wait for it, per entry node. */
    private static final class Leaving {
        final long run;
        /** The leaving node sends PASSED (it published wire version 4 when this node learnt of its leave). */
        boolean tells;
        /** Entry nodes whose forwards go on unheld: the leaving node passed theirs on, or the wait was given up. */
        final Set<String> passed = new HashSet<>();
        /** A given-up wait was logged at WARN for this leave. */
        boolean warned;
        /** Entry node to its held forwards, in arrival order, and when the first was held. */
        final Map<String, Waiting> waiting = new LinkedHashMap<>();

        Leaving(long run, boolean tells) {
            this.run = run;
            this.tells = tells;
        }
    }

    private static final class Waiting {
        final long sinceNanos;
        final ArrayDeque<Held> held = new ArrayDeque<>();
        /** Stanzas that entered at this node (the entry node is this one), each to be placed again. */
        final ArrayDeque<Runnable> entered = new ArrayDeque<>();

        Waiting(long sinceNanos) {
            this.sinceNanos = sinceNanos;
        }
    }

    private final String local;
    private final long timeoutNanos;
    private final LongSupplier clock;
    private final Supplier<List<String>> members;
    private final Predicate<String> readsPassed;
    private final Consumer<Held> handOn;
    private final BiConsumer<String, String> sendPassed;
    private final Supplier<CompletableFuture<?>> behindRoomThreads;
    private final ClusterListener listener;
    /** Leaving node to its record. */
    private final Map<String, Leaving> leaving = new HashMap<>();
    /** Whether any record is open: read without the monitor on every forward (written under it). */
    private volatile boolean active;

    /**
     * @param members this node's view now
     * @param readsPassed whether a node published wire version 4 or later (as this node knows it now)
     * @param handOn hands a held forward on as a forward just taken from its link
     * @param sendPassed sends {@code PASSED(entry)} to a node: (node, entry)
     * @param behindRoomThreads completes once every room thread has run what was queued to it before the call
     */
    StragglerHold(String local, long timeoutNanos, LongSupplier clock, Supplier<List<String>> members,
                  Predicate<String> readsPassed, Consumer<Held> handOn, BiConsumer<String, String> sendPassed,
                  Supplier<CompletableFuture<?>> behindRoomThreads, ClusterListener listener) {
        this.local = local;
        this.timeoutNanos = timeoutNanos;
        this.clock = clock;
        this.members = members;
        this.readsPassed = readsPassed;
        this.handOn = handOn;
        this.sendPassed = sendPassed;
        this.behindRoomThreads = behindRoomThreads;
        this.listener = listener;
    }

    /**
     * {@code node} (run {@code run}) announced its leave (cluster thread, before the view without it is used): from now
     * on forwards for its rooms may wait here for its word.
     */
    synchronized void leaving(String node, long run) {
        boolean tells = readsPassed.test(node);
        Leaving l = leaving.get(node);
        if (l == null || l.run != run) {
            leaving.put(node, new Leaving(run, tells));
        } else {
            l.tells = tells; // its PASSED came first: keep what it said
        }
        active = true;
    }

    /** This node switched to a view without the leaving {@code node} (cluster thread): nothing more comes from us. */
    void routedAround(String node) {
        if (readsPassed.test(node)) {
            sendPassed.accept(node, local);
        }
    }

    /**
     * Whether this forward, just taken from {@code fromNode}'s link, waits here for a leaving node's word (transport
     * thread, in link order). Never a straggler itself (from a leaving node) nor a resend (those are ordered by the
     * resend gate and the early forwards).
     */
    boolean hold(String fromNode, Wire.Message m) {
        if (!active || m.resent() || fromNode == null || fromNode.equals(local) || m.room() == null) {
            return false;
        }
        synchronized (this) {
            if (leaving.containsKey(fromNode) || !readsPassed.test(fromNode)) {
                return false;
            }
            Waiting w = waitingFor(fromNode, m.room());
            if (w == null) {
                return false;
            }
            w.held.add(new Held(fromNode, m));
            return true;
        }
    }

    /** Whether {@link #holdEntering} may hold anything (no monitor: read for every stanza entering here). */
    boolean mayHoldEntering() {
        return active;
    }

    /**
     * Whether a stanza that entered at this node for {@code room} waits here (the entry node is this node, rule 4): the
     * room moved here from a leaving node that has not yet said it passed on this node's stanzas, so one of the same
     * sender's earlier stanzas may still be on its way back through it. {@code goOn} places it once the word comes.
     */
    boolean holdEntering(Jid room, Runnable goOn) {
        if (!active || room == null) {
            return false;
        }
        synchronized (this) {
            Waiting w = waitingFor(local, room);
            if (w == null) {
                return false;
            }
            w.entered.add(goOn);
            return true;
        }
    }

    /**
     * Where {@code entry}'s stanza for {@code room} waits (rules 3 and 4; caller holds the monitor): the record of a
     * leaving node that tells, has not yet said it passed {@code entry}'s on, and gave the room to this node; null if
     * none, and then it goes on at once.
     */
    private Waiting waitingFor(String entry, Jid room) {
        String name = room.toString();
        for (Map.Entry<String, Leaving> e : leaving.entrySet()) {
            Leaving l = e.getValue();
            if (l.tells && !l.passed.contains(entry) && movedHereFrom(name, e.getKey())) {
                return l.waiting.computeIfAbsent(entry, n -> new Waiting(clock.getAsLong()));
            }
        }
        return null;
    }

    /** Rendezvous over the members without {@code from} places the room here, and with it at {@code from}. */
    private boolean movedHereFrom(String room, String from) {
        List<String> rest = new ArrayList<>(members.get());
        rest.remove(from);
        if (!local.equals(Rendezvous.owner(room, rest))) {
            return false;
        }
        rest.add(from);
        return from.equals(Rendezvous.owner(room, rest));
    }

    /**
     * {@code PASSED(entry)} from {@code from}'s run {@code run} (transport thread, in link order). From the entry node
     * itself, this node is the leaving one: it passes the word on behind its room threads. From a leaving node: the
     * entry node's held forwards go on, after the stragglers that came before on that node's link.
     */
    void passed(String from, long run, String entry) {
        if (from == null || entry == null) {
            return;
        }
        if (from.equals(entry)) {
            passOn(entry);
            return;
        }
        synchronized (this) {
            Leaving l = leaving.get(from);
            if (l == null) {
                // before the cluster thread handled its LEAVING (which came first on the same link): kept for it,
                // holding nothing until then
                l = new Leaving(run, false);
                leaving.put(from, l);
                active = true;
            } else if (l.run != run) {
                return; // not the run that announced its leave
            }
            l.passed.add(entry);
            Waiting w = l.waiting.remove(entry);
            if (w != null) {
                handOnAll(w);
            }
        }
    }

    private void passOn(String entry) {
        CompletableFuture<?> ran;
        try {
            ran = behindRoomThreads.get();
        } catch (RuntimeException e) {
            ran = CompletableFuture.completedFuture(null); // no room threads to wait for
        }
        ran.whenComplete((ok, failed) -> {
            // a failed barrier (a room still awaited here) has run on every room thread all the same
            // the entry node too: rooms that move to it from here take its own users' later stanzas (rule 4)
            for (String m : members.get()) {
                if (!m.equals(local) && readsPassed.test(m)) {
                    try {
                        sendPassed.accept(m, entry);
                    } catch (RuntimeException e) {
                        LOG.warn("could not tell {} that {}'s stanzas were passed on: {}", m, entry, e.toString());
                    }
                }
            }
        });
    }

    /** Each tick (cluster thread): what waited past the timeout goes on without the leaving node's word. */
    synchronized void releaseOverdue(long nowNanos) {
        if (!active) {
            return;
        }
        for (Map.Entry<String, Leaving> e : leaving.entrySet()) {
            Iterator<Map.Entry<String, Waiting>> it = e.getValue().waiting.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<String, Waiting> w = it.next();
                if (nowNanos - w.getValue().sinceNanos - timeoutNanos >= 0) {
                    it.remove();
                    giveUp(e.getKey(), e.getValue(), w.getKey(), w.getValue(),
                            "it did not say within " + timeoutNanos / 1_000_000 + " ms that it passed them on");
                }
            }
        }
    }

    /**
     * The membership changed, or a leaving node was counted in again (cluster thread): records of nodes no longer
     * leaving end, and forwards held for them or from entry nodes that are no longer members go on.
     */
    synchronized void retain(Collection<String> stillLeaving, Collection<String> memberList) {
        if (!active) {
            return;
        }
        Iterator<Map.Entry<String, Leaving>> it = leaving.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, Leaving> e = it.next();
            Leaving l = e.getValue();
            boolean ended = !stillLeaving.contains(e.getKey()) || !memberList.contains(e.getKey());
            Iterator<Map.Entry<String, Waiting>> w = l.waiting.entrySet().iterator();
            while (w.hasNext()) {
                Map.Entry<String, Waiting> one = w.next();
                if (ended || !memberList.contains(one.getKey())) {
                    w.remove();
                    giveUp(e.getKey(), l, one.getKey(), one.getValue(),
                            ended ? "it is no longer a leaving member" : "the entry node is no longer a member");
                }
            }
            if (ended) {
                it.remove();
            }
        }
        active = !leaving.isEmpty();
    }

    /**
     * {@code entry}'s forwards held for {@code node}'s word go on without it: counted, and said once per leave (at
     * WARN: a straggler may still come after them, which is the order this class keeps), the rest at DEBUG.
     */
    private void giveUp(String node, Leaving l, String entry, Waiting w, String why) {
        l.passed.add(entry); // not waited for again in this leave
        int n = w.held.size() + w.entered.size();
        if (!l.warned) {
            l.warned = true;
            LOG.warn("letting {} held forwards from {} go without the word of leaving node {} that it passed on "
                    + "{}'s stragglers ({}): one may still arrive after them, out of its sender's order (said once per "
                    + "leave; counted in mucscale.cluster.straggler-hold.given-up)", n, entry, node, entry, why);
        } else {
            LOG.debug("letting {} forwards from {} go that waited for {}: {}", n, entry, node, why);
        }
        listener.stragglerHoldGivenUp(n);
        handOnAll(w);
    }

    /**
     * Lowers each link's confirmation ({@code node -> [epoch, upTo]}) to just before its first held forward: a held
     * forward is not handled yet, so its entry node must keep it (read after the links' progress, which moves after a
     * forward is held; a forward let go meanwhile was queued to its room thread before the barrier).
     */
    synchronized void stopBeforeHeld(Map<String, long[]> upTo) {
        if (!active) {
            return;
        }
        for (Leaving l : leaving.values()) {
            for (Waiting w : l.waiting.values()) {
                Held first = w.held.peekFirst();
                long[] es = first == null ? null : upTo.get(first.fromNode());
                if (es != null && first.message().epoch() == es[0]) {
                    es[1] = Math.min(es[1], first.message().seq() - 1);
                }
            }
        }
    }

    private void handOnAll(Waiting w) {
        for (Held h : w.held) {
            try {
                handOn.accept(h);
            } catch (RuntimeException e) {
                LOG.warn("could not hand on a forward held for {}: {}", h.message().room(), e.toString());
            }
        }
        for (Runnable r : w.entered) {
            try {
                r.run();
            } catch (RuntimeException e) {
                LOG.warn("could not place a stanza held for its room's hand-off: {}", e.toString());
            }
        }
    }
}
