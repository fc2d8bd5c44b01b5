package org.mucscale.engine.muc;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.mucscale.engine.stanza.Jid;

/**
 * Per-user limits that span rooms, so span room threads: joins (room creations included), invitations and error
 * replies per user, and rooms created per user. One per service, shared by every room thread.
 *
 * <p>Concurrency (design note): no lock anywhere. A user's entry is found with {@link ConcurrentHashMap#get} (no
 * lock); only a user's first appearance inserts ({@code computeIfAbsent} locks one bin, once). An entry's whole state
 * (three {@link Gcra} rates and the room count) is one immutable {@link State} swapped by compare-and-set, so every
 * decision is atomic: a new state object per join, invitation, creation or error reply, never per accepted message
 * (groupchat and private messages use per-room state only, {@link FloodGuard}).
 *
 * <p>Memory: an entry whose rates are full again and which owns no room carries no information. A sweep (by whichever
 * room thread first finds it due, at most once per half {@code rate-memory-seconds}) swaps such an entry's state to
 * {@link #DEAD} and removes it; since that swap is a compare-and-set on the same reference every update uses, an
 * update either happened before (and the entry was not idle, so it stays) or sees {@code DEAD} and retries on a fresh
 * entry. Entries are thus bounded by the users active in the last sweep period, and nothing is ever miscounted.
 */
final class UserLimits {
    private static final long EMPTY_TAT = Long.MIN_VALUE / 2;

    /**
     * One user's state: when the join, invitation and error-reply buckets are full again ({@link Gcra}), and rooms
     * created.
     */
    record State(long joinsTat, long invitesTat, long errorsTat, int rooms) {
    }

    private static final State FRESH = new State(EMPTY_TAT, EMPTY_TAT, EMPTY_TAT, 0);
    /** The state of a swept entry: whoever finds it looks the user up again. */
    private static final State DEAD = new State(EMPTY_TAT, EMPTY_TAT, EMPTY_TAT, -1);

    static final class Entry {
        final AtomicReference<State> state = new AtomicReference<>(FRESH);
    }

    /** The reservation of creators who have no cap (service admins); never in the map, releasing it does nothing. */
    static final Entry EXEMPT = new Entry();

    private final ConcurrentHashMap<Jid, Entry> users = new ConcurrentHashMap<>();
    private final AtomicLong nextSweepNs = new AtomicLong(Long.MIN_VALUE);

    private Entry entry(Jid bare) {
        Entry e = users.get(bare);
        return e != null ? e : users.computeIfAbsent(bare, k -> new Entry());
    }

    /** Takes one join token of this user; false when over the rate. */
    boolean admitJoin(Jid bare, long now, MucConfig cfg) {
        return admit(bare, now, cfg, cfg.userJoinsPerMinute, cfg.userJoinBurst, State::joinsTat,
                (s, tat) -> new State(tat, s.invitesTat(), s.errorsTat(), s.rooms()));
    }

    /** Takes one invitation token of this user; false when over the rate. */
    boolean admitInvite(Jid bare, long now, MucConfig cfg) {
        return admit(bare, now, cfg, cfg.userInvitesPerMinute, cfg.userInviteBurst, State::invitesTat,
                (s, tat) -> new State(s.joinsTat(), tat, s.errorsTat(), s.rooms()));
    }

    /**
     * Takes one error-reply token of this user; false when over the rate: the refused stanza then goes unanswered.
     * A flood's stanzas are refused anyway, and each error would cross the XMPP server again (as expensive there as
     * any delivery), so past a budget no honest client reaches, a flooder gets no more of them.
     */
    boolean admitError(Jid bare, long now, MucConfig cfg) {
        return admit(bare, now, cfg, cfg.userErrorsPerMinute, cfg.userErrorBurst, State::errorsTat,
                (s, tat) -> new State(s.joinsTat(), s.invitesTat(), tat, s.rooms()));
    }

    /** A user's state with one budget's theoretical arrival time replaced. */
    private interface WithTat {
        State apply(State s, long tat);
    }

    /** One token of the budget {@code tat} reads and {@code with} replaces, by compare-and-set on the user's state. */
    private boolean admit(Jid bare, long now, MucConfig cfg, int perMinute, int burst,
                          java.util.function.ToLongFunction<State> tat,
                          WithTat with) {
        sweepIfDue(now, cfg);
        while (true) {
            Entry e = entry(bare);
            State s = e.state.get();
            if (s == DEAD) {
                users.remove(bare, e);
                continue;
            }
            long next = Gcra.admit(tat.applyAsLong(s), now, perMinute, burst);
            if (next == Gcra.REFUSED) {
                return false;
            }
            if (e.state.compareAndSet(s, with.apply(s, next))) {
                return true;
            }
        }
    }

    /**
     * Counts one more room created by this user, unless they already have {@code max}: the entry to give back with
     * {@link #releaseRoom} when the room goes away, or null when at the cap.
     */
    Entry reserveRoom(Jid bare, int max) {
        while (true) {
            Entry e = entry(bare);
            State s = e.state.get();
            if (s == DEAD) {
                users.remove(bare, e);
                continue;
            }
            if (s.rooms() >= max) {
                return null;
            }
            if (e.state.compareAndSet(s, new State(s.joinsTat(), s.invitesTat(), s.errorsTat(), s.rooms() + 1))) {
                return e;
            }
        }
    }

    /** A room this entry's user created is gone. An entry owning a room is never swept, so it is still live. */
    void releaseRoom(Entry e) {
        if (e == EXEMPT) {
            return;
        }
        while (true) {
            State s = e.state.get();
            if (e.state.compareAndSet(s, new State(s.joinsTat(), s.invitesTat(), s.errorsTat(), s.rooms() - 1))) {
                return;
            }
        }
    }

    /** Rooms this user has created that still exist (tests, admin). */
    int roomsOf(Jid bare) {
        Entry e = users.get(bare);
        return e == null ? 0 : Math.max(0, e.state.get().rooms());
    }

    int size() {
        return users.size();
    }

    private void sweepIfDue(long now, MucConfig cfg) {
        long due = nextSweepNs.get();
        if (now - due < 0 || !nextSweepNs.compareAndSet(due, now + cfg.rateMemorySeconds * 500_000_000L)) {
            return;
        }
        sweep(now);
    }

    /** Removes entries that say nothing: every rate full again and no room owned. */
    void sweep(long now) {
        for (Iterator<Map.Entry<Jid, Entry>> it = users.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Jid, Entry> me = it.next();
            Entry e = me.getValue();
            State s = e.state.get();
            if (s != DEAD && s.rooms() == 0 && s.joinsTat() - now <= 0 && s.invitesTat() - now <= 0
                    && s.errorsTat() - now <= 0 && e.state.compareAndSet(s, DEAD)) {
                users.remove(me.getKey(), e);
            }
        }
    }
}
