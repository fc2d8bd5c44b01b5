package org.mucscale.engine.muc;

import org.mucscale.engine.muc.Stanzas.Condition;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

import static org.mucscale.engine.muc.Stanzas.NS_MUC;
import static org.mucscale.engine.muc.Stanzas.NS_MUC_USER;

/**
 * A room's presence: joins (XEP-0045 7.2), presence changes, nickname changes (7.6), leaving and removal (kick, ban,
 * members-only), and the rendering and broadcast of occupants' presence under the room's presence policy (one render
 * per audience: with and without the real JID).
 *
 * <p>Thread: owned by the room's shard thread ({@link RoomShard}), like the {@link Occupants} it changes; nothing
 * here is synchronised.
 */
final class RoomPresence {
    private final Room room;
    private final Jid jid;
    private final RoomShard shard;
    private final ServiceContext ctx;
    private final Delivery delivery;
    private final Occupants occupants;

    RoomPresence(Room room, RoomShard shard, Occupants occupants) {
        this.room = room;
        this.jid = room.jid;
        this.shard = shard;
        this.ctx = shard.ctx;
        this.delivery = ctx.delivery;
        this.occupants = occupants;
    }

    /** The id of the presence being handled, echoed in the self-presence (muc#stable_id); null otherwise. */
    private String reflectId;

    void handle(Command c) {
        reflectId = c.stanza.attribute("id");
        try {
            handlePresenceInner(c);
        } finally {
            reflectId = null;
        }
    }

    private void handlePresenceInner(Command c) {
        XmlElement s = c.stanza;
        String type = s.attribute("type");
        Occupant self = occupants.byRealJid(c.from);
        if ("error".equals(type)) {
            // a bounce from an occupant's server: the occupant is gone (XEP-0045 status 333)
            if (self != null) {
                removeOccupant(self, "unavailable", new int[] {333}, null, null, null, true);
            }
            return;
        }
        if ("unavailable".equals(type)) {
            if (self != null) {
                leave(self, s);
            }
            return;
        }
        if (type != null) {
            return; // probes and subscriptions are not meaningful for rooms
        }
        if (c.to.resource() == null) {
            room.reply(c, Condition.JID_MALFORMED, "a nickname is required to join a room");
            return;
        }
        String nick = Nicknames.normalize(c.to.resource(), ctx.config.maxNicknameLength);
        if (nick == null) {
            room.reply(c, Condition.JID_MALFORMED, "the nickname is not acceptable (empty, too long, or contains control,"
                    + " formatting or unassigned characters)");
            return;
        }
        XmlElement shown = shard.content.admitStatus(c, jid, nick); // its <status> texts, as others will see them
        if (self != null) {
            if (shown == null) {
                return;
            }
            if (Nicknames.key(nick).equals(self.nickKey)) {
                if (s.child("x", NS_MUC) != null && room.guard.admitRejoin(Stanzas.userKey(c.from))) {
                    rejoin(self, shown, s.child("x", NS_MUC));
                } else {
                    updatePresence(self, shown);
                }
            } else if (shard.content.admitNickname(c, jid, nick)) {
                changeNick(self, nick, c, shown);
            }
            return;
        }
        if (shown != null && shard.content.admitNickname(c, jid, nick)) {
            join(c, shown, nick, !nick.equals(c.to.resource()));
        } else if (room.locked && occupants.count() == 0) {
            shard.removeRoom(room); // created for this refused join: nobody could ever enter it
        }
    }

    private void join(Command c, XmlElement s, String nick, boolean nickModified) {
        Jid bare = c.from.bare();
        Affiliation aff = room.affiliationOf(bare);
        boolean creating = room.locked && occupants.count() == 0 && aff == Affiliation.OWNER;
        if (!creating && !room.guard.admitJoin(c, Stanzas.userKey(c.from))) {
            return;
        }
        RoomPermissions.Refusal refusal = RoomPermissions.joinRefusal(room.locked, room.settings().membersOnly(), aff);
        if (refusal != null) {
            room.reply(c, refusal.condition(), refusal.text());
            return;
        }
        if (RoomPermissions.needsPassword(room.settings().password(), aff)) {
            XmlElement x = s.child("x", NS_MUC);
            String given = x == null ? null : x.childText("password");
            if (given == null || !given.equals(room.settings().password())) {
                room.reply(c, Condition.NOT_AUTHORIZED, given == null ? "this room needs a password"
                        : "the password is not correct");
                return;
            }
        }
        String key = Nicknames.key(nick);
        Occupant sameNick = occupants.firstUnder(key); // another session of the same user may share its nickname
        if ((sameNick != null && !sameNick.bareJid.equals(Stanzas.userKey(bare)))
                || room.registration.reservedByOther(key, bare)) {
            room.reply(c, Condition.CONFLICT, "that nickname is in use in this room or reserved by another user");
            return;
        }
        if (sameNick == null && occupants.count() >= room.settings().maxOccupants()
                && !RoomPermissions.mayExceedCapacity(aff)) {
            room.reply(c, Condition.SERVICE_UNAVAILABLE_WAIT, "the room is full (" + room.settings().maxOccupants()
                    + " occupants)");
            return;
        }
        Jid occupantJid;
        try {
            occupantJid = jid.withResource(nick);
        } catch (Jid.InvalidJidException e) {
            room.reply(c, Condition.JID_MALFORMED, "the nickname is not acceptable: " + e.getMessage());
            return;
        }
        Occupant o = new Occupant(nick, occupantJid, c.from, sameNick != null ? sameNick.role
                : RoomPermissions.defaultRole(aff, room.settings().moderated()), aff,
                s, room.guard.budgetOf(Stanzas.userKey(c.from)).messages);
        if (ctx.config.occupantIds) {
            o.occupantId = ctx.occupantId(jid, o.bareJid);
        }
        othersPresenceTo(o, occupants.count() + 1); // 1. the existing occupants' presence to the joiner
        occupants.add(o);
        // 2. the joiner's presence to the others (not for a further session: the nickname is already there),
        // 3. self-presence
        int[] selfCodes = selfCodes(creating, nickModified);
        broadcastPresence(sameNick == null && broadcastsPresenceOf(o, occupants.count()), o, null, null, null,
                selfCodes, null, null);
        // 4. history
        room.messages.sendHistory(o, s.child("x", NS_MUC));
        // 5. subject (always, empty when none: XEP-0045 7.2.15)
        room.messages.sendSubject(o);
        ctx.listener.occupantJoined(jid, c.arrivalNs);
    }

    /** Every other occupant's presence (one per nickname, per policy with {@code count} occupants) to {@code o}. */
    private void othersPresenceTo(Occupant o, int count) {
        boolean seesJids = room.settings().nonAnonymous() || o.isModerator();
        for (int i = 0; i < occupants.count(); i++) {
            Occupant other = occupants.at(i);
            if (broadcastsPresenceOf(other, count) && occupants.isFirstSession(other)
                    && !other.nickKey.equals(o.nickKey)) {
                delivery.deliver(cachedPresence(other, seesJids), o.realJid);
            }
        }
    }

    /**
     * A join presence (with the MUC {@code <x/>}) from a session that already is this occupant: its client has no
     * room state, e.g. a new session that took the full JID over from the one that joined (a resource conflict, whose
     * old session leaves no unavailable presence here), or a client that lost track. It gets the whole join answer
     * again (others' presences, self-presence, history as it asks, subject), as Openfire's own MUC does ("client-only
     * join"); for the others it is a presence update, under the same rate as one. Treated as a plain update, the new
     * session would get one self-presence and never learn who is in the room.
     */
    private void rejoin(Occupant o, XmlElement presence, XmlElement mucX) {
        othersPresenceTo(o, occupants.count());
        updatePresence(o, presence, selfCodes(false, false), true);
        room.messages.sendHistory(o, mucX);
        room.messages.sendSubject(o);
    }

    private int[] selfCodes(boolean creating, boolean nickModified) {
        RoomSettings settings = room.settings();
        int n = 1 + (settings.nonAnonymous() ? 1 : 0) + (settings.loggingEnabled() ? 1 : 0) + (creating ? 1 : 0)
                + (nickModified ? 1 : 0);
        int[] codes = new int[n];
        int i = 0;
        codes[i++] = 110;
        if (settings.nonAnonymous()) {
            codes[i++] = 100;
        }
        if (settings.loggingEnabled()) {
            codes[i++] = 170;
        }
        if (creating) {
            codes[i++] = 201;
        }
        if (nickModified) {
            codes[i] = 210;
        }
        return codes;
    }

    /**
     * A presence change (show/status) of an occupant. Each one is broadcast to the whole room, so they share the
     * occupant message rate: over the limit the new presence is kept (joiners see it) but not broadcast, and the
     * refusal is counted; no error is sent, because clients treat presence errors from a room as leaving it.
     */
    private void updatePresence(Occupant o, XmlElement presence) {
        updatePresence(o, presence, new int[] {110}, false);
    }

    /** As above, with {@code selfCodes}; over the rate {@code o} still gets its own copy if {@code answerAlways}. */
    private void updatePresence(Occupant o, XmlElement presence, int[] selfCodes, boolean answerAlways) {
        o.presence = presence;
        o.invalidatePresence();
        MucConfig cfg = ctx.config;
        if (!(cfg.moderatorsExempt && o.isModerator())) {
            if (o.presenceBucket == null) {
                o.presenceBucket = new TokenBucket(cfg.occupantBurst, ctx.clock.nanoTime());
            }
            if (!o.presenceBucket.tryTake(ctx.clock.nanoTime(), cfg.occupantMessagesPerSecond, cfg.occupantBurst)) {
                ctx.listener.floodRejected(jid, MucListener.FloodLimit.OCCUPANT_RATE);
                if (answerAlways) {
                    broadcastPresence(false, o, null, null, null, selfCodes, null, null);
                }
                return;
            }
        }
        broadcastPresence(o, null, null, null, selfCodes, null, null);
    }

    /**
     * After a role or affiliation change: broadcast the new presence; if the change hides the occupant under the
     * room's presence policy (e.g. a moderator demoted in a MODERATORS_ONLY room), the others get it as unavailable
     * so nobody keeps a stale entry.
     */
    void presenceChanged(Occupant o, boolean visibleBefore, XmlElement reasonAndActor) {
        boolean visibleNow = broadcastsPresenceOf(o, occupants.count());
        if (visibleBefore && !visibleNow) {
            broadcastPresence(true, o, "unavailable", null, null, null, reasonAndActor, null);
            broadcastPresence(false, o, null, null, null, new int[] {110}, reasonAndActor, null);
        } else {
            broadcastPresence(visibleNow, o, null, null, null, new int[] {110}, reasonAndActor, null);
        }
    }

    private void leave(Occupant o, XmlElement unavailable) {
        room.guard.leaving(o);
        removeOccupant(o, "unavailable", null, null, null, unavailable, true);
    }

    private void changeNick(Occupant o, String newNick, Command c, XmlElement presence) {
        String newKey = Nicknames.key(newNick);
        if (!occupants.isOnlySession(o)) {
            room.reply(c, Condition.NOT_ACCEPTABLE, "other sessions of yours share this nickname; leave with them first");
            return;
        }
        if (occupants.nickTaken(newKey) || room.registration.reservedByOther(newKey, o.bareJid)) {
            room.reply(c, Condition.CONFLICT, "that nickname is in use in this room or reserved by another user");
            return;
        }
        Jid newOccupantJid;
        try {
            newOccupantJid = jid.withResource(newNick);
        } catch (Jid.InvalidJidException e) {
            room.reply(c, Condition.JID_MALFORMED, "the nickname is not acceptable: " + e.getMessage());
            return;
        }
        if (!room.guard.admitNickChange(c, o)) {
            return;
        }
        // unavailable from the old nick with 303 and the new nick, then available from the new nick (XEP-0045 7.6)
        broadcastPresence(o, "unavailable", new int[] {303}, newNick, new int[] {110, 303}, null, null);
        occupants.rename(o, newNick, newOccupantJid);
        o.presence = presence;
        o.invalidatePresence();
        broadcastPresence(o, null, null, null, new int[] {110}, null, null);
    }

    /**
     * Removes an occupant, telling the others (per presence policy) and the occupant itself.
     *
     * @param codes status codes for everyone (kick 307, ban 301 ...), or null
     */
    void removeOccupant(Occupant o, String type, int[] codes, String reason, String actorNick,
                                XmlElement unavailable, boolean destroyIfEmpty) {
        if (unavailable != null) {
            o.presence = unavailable;
        }
        // the others see the nickname leave only with its last session
        boolean visible = broadcastsPresenceOf(o, occupants.count()) && occupants.isOnlySession(o);
        o.role = Role.NONE;
        o.invalidatePresence();
        int[] selfCodes;
        if (codes == null) {
            selfCodes = new int[] {110};
        } else {
            selfCodes = new int[codes.length + 1];
            selfCodes[0] = 110;
            System.arraycopy(codes, 0, selfCodes, 1, codes.length);
        }
        XmlElement extra = reasonAndActor(reason, actorNick);
        broadcastPresence(visible, o, type, codes, null, selfCodes, extra, null);
        occupants.detach(o);
        ctx.listener.occupantLeft(jid);
        if (destroyIfEmpty && occupants.count() == 0 && !room.settings().persistent()) {
            shard.removeRoom(room);
        }
    }

    static XmlElement occupantIdElement(Occupant o) {
        return XmlElement.builder("occupant-id", Stanzas.NS_OCCUPANT_ID).attribute("id", o.occupantId).build();
    }

    static XmlElement reasonAndActor(String reason, String actorNick) {
        if (reason == null && actorNick == null) {
            return null;
        }
        XmlElement.Builder b = XmlElement.builder("item"); // a carrier, its children are copied into the item
        if (actorNick != null) {
            b.child(XmlElement.builder("actor").attribute("nick", actorNick).build());
        }
        if (reason != null) {
            b.child(XmlElement.builder("reason").text(reason).build());
        }
        return b.build();
    }

    /** A moderator approved a visitor's voice request (XEP-0045 8.6): broadcast as a role change. */
    void grantVoice(Occupant visitor, Occupant moderator) {
        boolean visibleBefore = broadcastsPresenceOf(visitor, occupants.count());
        occupants.setRole(visitor, Role.PARTICIPANT);
        presenceChanged(visitor, visibleBefore, reasonAndActor(null, moderator.nick));
    }

    /** Whether {@code o}'s presence goes to others, given the room size. */
    boolean broadcastsPresenceOf(Occupant o, int roomSize) {
        if (!room.settings().presenceBroadcastRoles().contains(o.role)) {
            return false;
        }
        return switch (room.settings().presencePolicy()) {
            case FULL -> true;
            case MODERATORS_ONLY -> o.role == Role.MODERATOR || o.affiliation.atLeast(Affiliation.ADMIN);
            case NONE_ABOVE_N -> roomSize <= ctx.config.presenceBroadcastLimit || o.role == Role.MODERATOR;
        };
    }

    private RenderedStanza cachedPresence(Occupant o, boolean withJid) {
        if (withJid) {
            if (o.presenceWithJid == null) {
                o.presenceWithJid = RenderedStanza.render(presenceOf(o, null, true, null, null, null, null));
            }
            return o.presenceWithJid;
        }
        if (o.presenceWithoutJid == null) {
            o.presenceWithoutJid = RenderedStanza.render(presenceOf(o, null, false, null, null, null, null));
        }
        return o.presenceWithoutJid;
    }

    /**
     * Sends {@code o}'s presence to every other occupant (per policy; moderators, or everyone in a non-anonymous
     * room, see the real JID) and to {@code o} itself with {@code selfCodes}. One render per audience.
     */
    void broadcastPresence(Occupant o, String type, int[] codes, String newNick, int[] selfCodes,
                                   XmlElement reasonAndActor, XmlElement destroy) {
        broadcastPresence(broadcastsPresenceOf(o, occupants.count()), o, type, codes, newNick, selfCodes,
                reasonAndActor, destroy);
    }

    void broadcastPresence(boolean others, Occupant o, String type, int[] codes, String newNick,
                                   int[] selfCodes, XmlElement reasonAndActor, XmlElement destroy) {
        if (others && occupants.count() > 0) { // o itself is skipped, or already detached
            RenderedStanza withJid = null;
            RenderedStanza withoutJid = null;
            for (int i = 0; i < occupants.count(); i++) {
                Occupant r = occupants.at(i);
                if (r == o) {
                    continue;
                }
                if (room.settings().nonAnonymous() || r.isModerator()) {
                    if (withJid == null) {
                        withJid = RenderedStanza.render(presenceOf(o, type, true, codes, newNick, reasonAndActor,
                                destroy));
                    }
                    delivery.deliver(withJid, r.realJid);
                } else {
                    if (withoutJid == null) {
                        withoutJid = RenderedStanza.render(presenceOf(o, type, false, codes, newNick, reasonAndActor,
                                destroy));
                    }
                    delivery.deliver(withoutJid, r.realJid);
                }
            }
        }
        if (selfCodes != null) {
            XmlElement self = presenceOf(o, type, true, selfCodes, newNick, reasonAndActor, destroy).toBuilder()
                    .attribute("to", o.realJid.toString()).attribute("id", reflectId).build();
            delivery.send(self);
        }
    }

    /** {@code o}'s presence as the room shows it: the user's own children plus the muc#user item. */
    private XmlElement presenceOf(Occupant o, String type, boolean withJid, int[] codes, String newNick,
                                  XmlElement reasonAndActor, XmlElement destroy) {
        XmlElement.Builder p = XmlElement.builder("presence").attribute("from", o.occupantJid.toString());
        if (type != null) {
            p.attribute("type", type);
        }
        if (o.presence != null) {
            for (Object child : o.presence.children()) {
                if (child instanceof XmlElement e) {
                    if ("x".equals(e.name()) && (NS_MUC.equals(e.namespace()) || NS_MUC_USER.equals(e.namespace()))
                            || Stanzas.isRoomAssigned(e)) {
                        continue;
                    }
                    if (type != null && !"status".equals(e.name())) {
                        continue; // unavailable presence carries only the status text
                    }
                    p.child(e);
                }
            }
        }
        XmlElement.Builder item = XmlElement.builder("item").attribute("affiliation", o.affiliation.xmlName())
                .attribute("role", o.role.xmlName());
        if (withJid) {
            item.attribute("jid", o.realJid.toString());
        }
        if (newNick != null) {
            item.attribute("nick", newNick);
        }
        if (reasonAndActor != null) {
            for (XmlElement e : reasonAndActor.elements()) {
                item.child(e);
            }
        }
        if (o.occupantId != null) {
            p.child(occupantIdElement(o));
        }
        XmlElement.Builder x = XmlElement.builder("x", NS_MUC_USER).child(item.build());
        if (destroy != null && "destroy".equals(destroy.name())) {
            x.child(destroy);
        }
        if (codes != null) {
            for (int code : codes) {
                x.child(XmlElement.builder("status").attribute("code", Integer.toString(code)).build());
            }
        }
        return p.child(x.build()).build();
    }
}
