package org.mucscale.engine.muc;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

import org.mucscale.engine.muc.MucListener.FloodLimit;
import org.mucscale.engine.muc.Stanzas.Condition;
import org.mucscale.engine.stanza.Jid;

/**
 * One room's flood control beyond single messages: the budgets of each user (by bare JID) that must survive leaving
 * and rejoining, and the room-wide budgets for joins and invitations. Runs on the room's thread only (no
 * synchronisation); the limits that span rooms are in {@link UserLimits}, asked from here.
 *
 * <p>A user's {@link UserBudget} (message and presence buckets, join budget) is created at their first join and kept
 * while any of their sessions is an occupant and for {@code rate-memory-seconds} after the last one left, so leaving
 * and rejoining does not refill anything. Memory is bounded: a sweep (at most every half memory period, on a join)
 * drops budgets idle longer than that, so a room holds at most its occupants plus the users admitted in the last
 * one and a half memory periods, which the room join rate bounds.
 *
 * <p>Every refusal is answered with the XEP-0045/RFC 6120 error and a text saying which limit, and counted through
 * {@link MucListener#floodRejected}.
 */
final class FloodGuard {
    /** What one user may still do in this room; shared by all of the user's sessions in it. */
    static final class UserBudget {
        final TokenBucket messages;
        final TokenBucket presence;
        long joinsTat = Long.MIN_VALUE / 2;
        /** Rejoins' own budget (same rate and burst as joins), so a legitimate join never leaves a rejoin without one. */
        long rejoinsTat = Long.MIN_VALUE / 2;
        long lastSeenNs;
        /** Sessions of this user that are occupants now (never forgotten while above zero). */
        int present;

        UserBudget(int burst, long now) {
            messages = new TokenBucket(burst, now);
            presence = new TokenBucket(burst, now);
            lastSeenNs = now;
        }
    }

    private final ServiceContext ctx;
    private final Jid room;
    private final Map<Jid, UserBudget> users = new HashMap<>();
    private long roomJoinsTat = Long.MIN_VALUE / 2;
    private long roomInvitesTat = Long.MIN_VALUE / 2;
    private long nextSweepNs;

    FloodGuard(ServiceContext ctx, Jid room) {
        this.ctx = ctx;
        this.room = room;
        this.nextSweepNs = ctx.clock.nanoTime();
    }

    /** The budget of a user, created on first sight; the room calls this when one of their sessions joins. */
    UserBudget budgetOf(Jid bareJid) {
        long now = ctx.clock.nanoTime();
        UserBudget b = users.get(bareJid);
        if (b == null) {
            sweepIfDue(now);
            b = new UserBudget(ctx.config.occupantBurst, now);
            users.put(bareJid, b);
        }
        b.lastSeenNs = now;
        return b;
    }

    /** An occupant entered: its budget is kept while it stays, and its buckets are the remembered ones. */
    void entered(Occupant o) {
        UserBudget b = budgetOf(o.bareJid);
        b.present++;
        o.presenceBucket = b.presence;
    }

    /** An occupant left by any way (leave, kick, ban, bounce): its budget is remembered from now. */
    void departed(Occupant o) {
        UserBudget b = users.get(o.bareJid);
        if (b != null) {
            b.present = Math.max(0, b.present - 1);
            b.lastSeenNs = ctx.clock.nanoTime();
        }
    }

    /**
     * A join (not the creator's first): the user's budget in this room, the room's, then the user's across rooms.
     * False when refused (the error is sent). Service admins are exempt.
     */
    boolean admitJoin(Command c, Jid bare) {
        if (ctx.isServiceAdmin(bare)) {
            return true;
        }
        MucConfig cfg = ctx.config;
        long now = ctx.clock.nanoTime();
        UserBudget b = budgetOf(bare);
        long userNext = Gcra.admit(b.joinsTat, now, cfg.occupantJoinsPerMinute, cfg.occupantJoinBurst);
        if (userNext == Gcra.REFUSED) {
            refuse(c, FloodLimit.OCCUPANT_JOIN_RATE, Condition.RESOURCE_CONSTRAINT, "you are joining and leaving this"
                    + " room too often: at most " + cfg.occupantJoinsPerMinute + " joins or nickname changes per"
                    + " minute (burst " + cfg.occupantJoinBurst + "); try again later");
            return false;
        }
        long roomNext = Gcra.admit(roomJoinsTat, now, cfg.roomJoinsPerMinute, cfg.roomJoinBurst);
        if (roomNext == Gcra.REFUSED) {
            refuse(c, FloodLimit.ROOM_JOIN_RATE, Condition.RESOURCE_CONSTRAINT, "too many people are joining this room"
                    + " right now: at most " + cfg.roomJoinsPerMinute + " joins per minute; try again shortly");
            return false;
        }
        if (!ctx.userLimits.admitJoin(bare, now, cfg)) {
            refuse(c, FloodLimit.USER_JOIN_RATE, Condition.RESOURCE_CONSTRAINT, "you are joining rooms too fast: at"
                    + " most " + cfg.userJoinsPerMinute + " joins per minute across all rooms (burst "
                    + cfg.userJoinBurst + "); try again later");
            return false;
        }
        b.joinsTat = userNext;
        roomJoinsTat = roomNext;
        return true;
    }

    /**
     * A rejoin (a join presence from a session that already is an occupant): its full answer costs what a join
     * costs (the room's presences to it), so it spends a budget of the join rate and burst in this room, its own so that
     * the user's joins do not use it up; refused, nothing is sent
     * and the caller answers it as a presence update instead. Without this, a client re-sending its join while the
     * server is slow (as clients and load generators do after a few seconds) multiplied the server's work.
     */
    boolean admitRejoin(Jid bare) {
        if (ctx.isServiceAdmin(bare)) {
            return true;
        }
        MucConfig cfg = ctx.config;
        UserBudget b = budgetOf(bare);
        long next = Gcra.admit(b.rejoinsTat, ctx.clock.nanoTime(), cfg.occupantJoinsPerMinute, cfg.occupantJoinBurst);
        if (next == Gcra.REFUSED) {
            return false;
        }
        b.rejoinsTat = next;
        return true;
    }

    /** A nickname change: each one is two presences to the whole room, so it spends the join budgets. */
    boolean admitNickChange(Command c, Occupant o) {
        if (ctx.isServiceAdmin(o.bareJid)) {
            return true;
        }
        MucConfig cfg = ctx.config;
        long now = ctx.clock.nanoTime();
        UserBudget b = budgetOf(o.bareJid);
        long userNext = Gcra.admit(b.joinsTat, now, cfg.occupantJoinsPerMinute, cfg.occupantJoinBurst);
        long roomNext = userNext == Gcra.REFUSED ? Gcra.REFUSED
                : Gcra.admit(roomJoinsTat, now, cfg.roomJoinsPerMinute, cfg.roomJoinBurst);
        if (roomNext == Gcra.REFUSED) {
            refuse(c, FloodLimit.NICK_CHANGE_RATE, Condition.RESOURCE_CONSTRAINT, "you are changing your nickname too"
                    + " often: at most " + cfg.occupantJoinsPerMinute + " joins or nickname changes per minute in this"
                    + " room (burst " + cfg.occupantJoinBurst + "); you keep your current nickname");
            return false;
        }
        b.joinsTat = userNext;
        roomJoinsTat = roomNext;
        return true;
    }

    /** A voluntary leave: never refused (the user must be able to go), but it spends a join token if one is left. */
    void leaving(Occupant o) {
        MucConfig cfg = ctx.config;
        UserBudget b = users.get(o.bareJid);
        if (b != null && !ctx.isServiceAdmin(o.bareJid)) {
            b.joinsTat = Gcra.spendIfAvailable(b.joinsTat, ctx.clock.nanoTime(), cfg.occupantJoinsPerMinute,
                    cfg.occupantJoinBurst);
        }
    }

    /** An invitation from an occupant: the room's budget, then the user's across rooms. False when refused. */
    boolean admitInvite(Command c, Occupant sender) {
        if (ctx.isServiceAdmin(sender.bareJid)) {
            return true;
        }
        MucConfig cfg = ctx.config;
        long now = ctx.clock.nanoTime();
        long roomNext = Gcra.admit(roomInvitesTat, now, cfg.roomInvitesPerMinute, cfg.roomInviteBurst);
        if (roomNext == Gcra.REFUSED) {
            refuse(c, FloodLimit.ROOM_INVITE_RATE, Condition.RESOURCE_CONSTRAINT, "this room is sending too many"
                    + " invitations: at most " + cfg.roomInvitesPerMinute + " per minute; try again later");
            return false;
        }
        if (!ctx.userLimits.admitInvite(sender.bareJid, now, cfg)) {
            refuse(c, FloodLimit.USER_INVITE_RATE, Condition.RESOURCE_CONSTRAINT, "you are sending too many"
                    + " invitations: at most " + cfg.userInvitesPerMinute + " per minute (burst "
                    + cfg.userInviteBurst + "); try again later");
            return false;
        }
        roomInvitesTat = roomNext;
        return true;
    }

    /**
     * A voice request (XEP-0045 8.6): the room sends a form to every moderator on the visitor's behalf, as it sends an
     * invitation on the inviter's behalf, so it spends the same budgets (the room's, then the user's across rooms).
     */
    boolean admitVoiceRequest(Command c, Occupant visitor) {
        MucConfig cfg = ctx.config;
        long now = ctx.clock.nanoTime();
        long roomNext = Gcra.admit(roomInvitesTat, now, cfg.roomInvitesPerMinute, cfg.roomInviteBurst);
        if (roomNext == Gcra.REFUSED) {
            refuse(c, FloodLimit.ROOM_INVITE_RATE, Condition.RESOURCE_CONSTRAINT, "this room is relaying too many"
                    + " invitations and voice requests: at most " + cfg.roomInvitesPerMinute + " per minute; try again"
                    + " later");
            return false;
        }
        if (!ctx.userLimits.admitInvite(visitor.bareJid, now, cfg)) {
            refuse(c, FloodLimit.USER_INVITE_RATE, Condition.RESOURCE_CONSTRAINT, "you are sending too many"
                    + " invitations and voice requests: at most " + cfg.userInvitesPerMinute + " per minute; try"
                    + " again later");
            return false;
        }
        roomInvitesTat = roomNext;
        return true;
    }

    /**
     * A room creation (the first join of a room that does not exist): the node's room cap, the creator's join rate
     * across rooms, and the creator's room count. Returns the creator's count to release when the room goes
     * ({@link UserLimits#EXEMPT} for service admins), or null when refused (the error is sent).
     */
    static UserLimits.Entry admitCreation(ServiceContext ctx, Command c) {
        Jid bare = Stanzas.userKey(c.from);
        if (ctx.isServiceAdmin(bare)) {
            return UserLimits.EXEMPT;
        }
        MucConfig cfg = ctx.config;
        if (ctx.roomCount.get() >= cfg.maxRooms) {
            refuse(ctx, c.roomJid, c, FloodLimit.ROOMS_PER_SERVICE, Condition.RESOURCE_CONSTRAINT, "this service holds"
                    + " its maximum of " + cfg.maxRooms + " rooms; no room can be created now");
            return null;
        }
        if (!ctx.userLimits.admitJoin(bare, ctx.clock.nanoTime(), cfg)) {
            refuse(ctx, c.roomJid, c, FloodLimit.USER_JOIN_RATE, Condition.RESOURCE_CONSTRAINT, "you are joining or"
                    + " creating rooms too fast: at most " + cfg.userJoinsPerMinute + " per minute across all rooms"
                    + " (burst " + cfg.userJoinBurst + "); try again later");
            return null;
        }
        UserLimits.Entry reservation = ctx.userLimits.reserveRoom(bare, cfg.maxRoomsPerUser);
        if (reservation == null) {
            refuse(ctx, c.roomJid, c, FloodLimit.ROOMS_PER_USER, Condition.NOT_ALLOWED, "you already have "
                    + cfg.maxRoomsPerUser + " rooms on this service, the most one user may create; destroy one"
                    + " first");
        }
        return reservation;
    }

    /** A decline with no pending invitation behind it: refused, never relayed. */
    void refuseDecline(Command c) {
        refuse(c, FloodLimit.UNSOLICITED_DECLINE, Condition.NOT_ACCEPTABLE, "there is no pending invitation from that"
                + " address to you for this room, so there is nothing to decline");
    }

    private void refuse(Command c, FloodLimit limit, Condition condition, String text) {
        refuse(ctx, room, c, limit, condition, text);
    }

    private static void refuse(ServiceContext ctx, Jid room, Command c, FloodLimit limit, Condition condition,
                               String text) {
        ctx.listener.floodRejected(room, limit);
        Room.reply(ctx, c, condition, text);
    }

    /** Users with a remembered budget (tests). */
    int rememberedUsers() {
        return users.size();
    }

    private void sweepIfDue(long now) {
        if (now - nextSweepNs < 0) {
            return;
        }
        long memoryNs = ctx.config.rateMemorySeconds * 1_000_000_000L;
        nextSweepNs = now + memoryNs / 2;
        for (Iterator<UserBudget> it = users.values().iterator(); it.hasNext(); ) {
            UserBudget b = it.next();
            if (b.present == 0 && now - b.lastSeenNs > memoryNs) {
                it.remove();
            }
        }
    }
}
