package org.mucscale.engine.muc;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.mucscale.engine.stanza.Jid;

/**
 * Per-user limits that span rooms, so span room threads: joins (room creations included) and invitations per user,
 * and rooms created per user. One per service, shared by every room thread.
 *
 * <p>Concurrency (design note): no lock anywhere. A user's entry is found with {@link ConcurrentHashMap#get} (no lock);
 * only a user's first appearance inserts ({@code computeIfAbsent} locks one bin, once). Each rate is one
 * {@link AtomicLong} ({@link Gcra}) updated by compare-and-set; the room count is an {@link AtomicInteger}. None of it
 * is on the message path: groupchat and private messages use per-room state only ({@link FloodGuard}).
 *
 * <p>Memory: an entry whose rates are full again and which owns no room carries no information, so a sweep (run by
 * whichever room thread first finds it due, at most once per {@code rate-memory-seconds / 2}) removes it; entries are
 * thus bounded by the users active in the last sweep period. The sweep marks an entry dead (room count
 * {@link #DEAD}) before removing it, so a creation racing with it retries on a fresh entry and no room goes uncounted;
 * a join racing with it may be counted on the removed entry, which at worst gives that user one extra token once.
 */
final class UserLimits {
    static final int DEAD = Integer.MIN_VALUE;

    static final class Entry {
        final AtomicLong joinsTat = new AtomicLong(Long.MIN_VALUE / 2);
        final AtomicLong invitesTat = new AtomicLong(Long.MIN_VALUE / 2);
        /** Rooms this user created that still exist here; {@link #DEAD} once swept. */
        final AtomicInteger rooms = new AtomicInteger();
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
        sweepIfDue(now, cfg);
        return admit(entry(bare).joinsTat, now, cfg.userJoinsPerMinute, cfg.userJoinBurst);
    }

    /** Takes one invitation token of this user; false when over the rate. */
    boolean admitInvite(Jid bare, long now, MucConfig cfg) {
        sweepIfDue(now, cfg);
        return admit(entry(bare).invitesTat, now, cfg.userInvitesPerMinute, cfg.userInviteBurst);
    }

    private static boolean admit(AtomicLong tat, long now, int perMinute, int burst) {
        while (true) {
            long current = tat.get();
            long next = Gcra.admit(current, now, perMinute, burst);
            if (next == Gcra.REFUSED) {
                return false;
            }
            if (tat.compareAndSet(current, next)) {
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
            int n = e.rooms.get();
            if (n == DEAD) {
                users.remove(bare, e); // the sweeper removes it too; either way the next lookup gets a live entry
                continue;
            }
            if (n >= max) {
                return null;
            }
            if (e.rooms.compareAndSet(n, n + 1)) {
                return e;
            }
        }
    }

    void releaseRoom(Entry e) {
        if (e != EXEMPT) {
            e.rooms.decrementAndGet();
        }
    }

    /** Rooms this user has created that still exist (tests, admin). */
    int roomsOf(Jid bare) {
        Entry e = users.get(bare);
        return e == null ? 0 : Math.max(0, e.rooms.get());
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

    /** Removes entries that say nothing: both rates full again and no room owned. */
    void sweep(long now) {
        for (Iterator<Map.Entry<Jid, Entry>> it = users.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Jid, Entry> me = it.next();
            Entry e = me.getValue();
            if (e.joinsTat.get() - now <= 0 && e.invitesTat.get() - now <= 0 && e.rooms.compareAndSet(0, DEAD)) {
                users.remove(me.getKey(), e);
            }
        }
    }
}
