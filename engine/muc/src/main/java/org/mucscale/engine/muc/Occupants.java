package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;

/**
 * A room's occupant registry: every session in the room, in an array (for the fan-out loop, which allocates nothing
 * per recipient) and in two maps, by nickname key (the first session under that nickname, the others chained from
 * it: XEP-0045 multi-session nicknames) and by real JID. {@link #checkInvariants()} verifies the three agree.
 *
 * <p>Thread: owned by the room's shard thread ({@link RoomShard}); nothing here is synchronised.
 */
final class Occupants {
    private final Jid room;
    private final ServiceContext ctx;
    private final Delivery delivery;
    private final FloodGuard guard;
    private final VoiceRequests voiceRequests;
    private Occupant[] all = new Occupant[8];
    private int count;
    private final Map<String, Occupant> byNick = new HashMap<>();
    private final Map<Jid, Occupant> byRealJid = new HashMap<>();

    Occupants(Jid room, ServiceContext ctx, FloodGuard guard, VoiceRequests voiceRequests) {
        this.room = room;
        this.ctx = ctx;
        this.delivery = ctx.delivery;
        this.guard = guard;
        this.voiceRequests = voiceRequests;
    }

    int count() {
        return count;
    }

    Occupant at(int index) {
        return all[index];
    }

    /** Nicknames in the room (several sessions under one nickname count once). */
    int nicknameCount() {
        return byNick.size();
    }

    /** The first session under {@code nick}, or null. */
    Occupant byNick(String nick) {
        return byNick.get(Nicknames.key(nick));
    }

    /** The first session under the nickname key {@code nickKey}, or null. */
    Occupant firstUnder(String nickKey) {
        return byNick.get(nickKey);
    }

    boolean nickTaken(String nickKey) {
        return byNick.containsKey(nickKey);
    }

    /** The session of the full JID {@code realJid}, or null. */
    Occupant byRealJid(Jid realJid) {
        return byRealJid.get(realJid);
    }

    /** Delivers one rendered stanza to every session in the room: the one fan-out loop. */
    void deliverToAll(RenderedStanza rendered) {
        Occupant[] a = all;
        int n = count;
        for (int i = 0; i < n; i++) {
            delivery.deliver(rendered, a[i].realJid);
        }
    }

    void add(Occupant o) {
        if (count == all.length) {
            all = Arrays.copyOf(all, all.length * 2);
        }
        o.index = count;
        all[count++] = o;
        Occupant first = byNick.putIfAbsent(o.nickKey, o);
        if (first != null) { // a further session under the same nickname
            o.nextSession = first.nextSession;
            first.nextSession = o;
        }
        byRealJid.put(o.realJid, o);
        guard.entered(o);
        ctx.occupantCount.incrementAndGet();
        ctx.populationChanged();
    }

    void detach(Occupant o) {
        int last = count - 1;
        Occupant moved = all[last];
        all[o.index] = moved;
        moved.index = o.index;
        all[last] = null;
        count = last;
        Occupant first = byNick.get(o.nickKey);
        if (first == o) {
            if (o.nextSession == null) {
                byNick.remove(o.nickKey);
            } else {
                byNick.put(o.nickKey, o.nextSession);
            }
        } else {
            Occupant prev = first;
            while (prev.nextSession != o) {
                prev = prev.nextSession;
            }
            prev.nextSession = o.nextSession;
        }
        o.nextSession = null;
        byRealJid.remove(o.realJid);
        guard.departed(o);
        voiceRequests.settled(o);
        ctx.occupantCount.decrementAndGet();
        ctx.populationChanged();
    }

    /** Moves the only session under its nickname to {@code newNick} (the caller checked it is free). */
    void rename(Occupant o, String newNick, Jid newOccupantJid) {
        byNick.remove(o.nickKey);
        o.nick = newNick;
        o.nickKey = Nicknames.key(newNick);
        o.occupantJid = newOccupantJid;
        byNick.put(o.nickKey, o);
    }

    /** The first session under its nickname: the one others see (presence, occupant lists, role changes). */
    boolean isFirstSession(Occupant o) {
        return byNick.get(o.nickKey) == o;
    }

    boolean isOnlySession(Occupant o) {
        return o.nextSession == null && byNick.get(o.nickKey) == o;
    }

    /** Every session under {@code o}'s nickname (one, unless the user joined from several clients). */
    List<Occupant> sessionsOf(Occupant o) {
        List<Occupant> list = new ArrayList<>(1);
        for (Occupant s = byNick.get(o.nickKey); s != null; s = s.nextSession) {
            list.add(s);
        }
        return list;
    }

    /** Every session of the user {@code bare} (under any nickname). */
    List<Occupant> sessionsOfUser(Jid bare) {
        List<Occupant> sessions = new ArrayList<>(1);
        for (int i = 0; i < count; i++) {
            if (all[i].bareJid.equals(bare)) {
                sessions.add(all[i]);
            }
        }
        return sessions;
    }

    /** Sets the role of every session under {@code o}'s nickname. */
    void setRole(Occupant o, Role role) {
        for (Occupant s = byNick.get(o.nickKey); s != null; s = s.nextSession) {
            s.role = role;
            s.invalidatePresence();
        }
    }

    /** A copy of the sessions, for loops that remove some. */
    List<Occupant> snapshot() {
        List<Occupant> list = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            list.add(all[i]);
        }
        return list;
    }

    /** The occupants' real addresses now. */
    List<Jid> addresses() {
        List<Jid> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(all[i].realJid);
        }
        return out;
    }

    void invalidatePresences() {
        for (int i = 0; i < count; i++) {
            all[i].invalidatePresence();
        }
    }

    /** Throws when the array and both maps disagree (tests call this on the shard thread). */
    void checkInvariants() {
        if (byNick.size() > count || byRealJid.size() != count) {
            throw new IllegalStateException(room + ": " + count + " occupants, " + byNick.size() + " nicks, "
                    + byRealJid.size() + " JIDs");
        }
        for (int i = 0; i < count; i++) {
            Occupant o = all[i];
            if (o.index != i || !sessionsOf(o).contains(o) || byRealJid.get(o.realJid) != o
                    || !byNick.get(o.nickKey).bareJid.equals(o.bareJid)) {
                throw new IllegalStateException(room + ": occupant " + o.nick + " is not in every index");
            }
            if (!o.occupantJid.resource().equals(o.nick) || o.role == Role.NONE) {
                throw new IllegalStateException(room + ": occupant " + o.nick + " has a stale address or no role");
            }
        }
        for (int i = count; i < all.length; i++) {
            if (all[i] != null) {
                throw new IllegalStateException(room + ": a removed occupant is still referenced");
            }
        }
    }
}
