package org.mucscale.engine.muc;

import java.util.List;

import org.mucscale.engine.muc.Stanzas.Condition;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

import static org.mucscale.engine.muc.Stanzas.NS_MUC_ADMIN;

/**
 * A room's muc#admin requests (XEP-0045 8 and 9): listing and changing roles (kick, voice, moderator status) and
 * affiliations (member, admin, owner, ban), and what an affiliation change does to the user's sessions in the room.
 * Who may do what is {@link RoomPermissions}'; this class finds the target and carries the change out.
 *
 * <p>Thread: owned by the room's shard thread ({@link RoomShard}), like the {@link Affiliations} and
 * {@link Occupants} it changes; nothing here is synchronised.
 */
final class RoomAdminIq {
    private final Room room;
    private final ServiceContext ctx;
    private final Occupants occupants;
    private final Affiliations affiliations;

    RoomAdminIq(Room room, ServiceContext ctx, Occupants occupants, Affiliations affiliations) {
        this.room = room;
        this.ctx = ctx;
        this.occupants = occupants;
        this.affiliations = affiliations;
    }

    void get(Command c, Occupant sender, XmlElement query) {
        XmlElement item = query.child("item");
        if (item == null) {
            room.reply(c, Condition.BAD_REQUEST, "the query needs an item with a role or an affiliation");
            return;
        }
        Affiliation actorAff = affiliations.of(c.from.bare());
        XmlElement.Builder q = XmlElement.builder("query", NS_MUC_ADMIN);
        String affText = item.attribute("affiliation");
        String roleText = item.attribute("role");
        if (affText != null) {
            Affiliation wanted = Affiliation.fromXml(affText);
            if (wanted == null) {
                room.reply(c, Condition.BAD_REQUEST, "unknown affiliation '" + affText + "'");
                return;
            }
            if (!RoomPermissions.mayListAffiliation(actorAff, sender == null ? null : sender.role, wanted,
                    room.settings().membersOnly(), room.settings().memberListRoles())) {
                room.reply(c, Condition.FORBIDDEN, "only admins and owners may list affiliations");
                return;
            }
            for (Jid listed : affiliations.withAffiliation(wanted)) {
                q.child(XmlElement.builder("item").attribute("affiliation", wanted.xmlName())
                        .attribute("jid", listed.toString()).build());
            }
        } else if (roleText != null) {
            Role wanted = Role.fromXml(roleText);
            if (wanted == null) {
                room.reply(c, Condition.BAD_REQUEST, "unknown role '" + roleText + "'");
                return;
            }
            if (sender == null || !RoomPermissions.mayChangeRoles(sender.role)) {
                room.reply(c, Condition.FORBIDDEN, "only moderators may list roles");
                return;
            }
            for (int i = 0; i < occupants.count(); i++) {
                Occupant o = occupants.at(i);
                if (o.role == wanted) {
                    q.child(XmlElement.builder("item").attribute("affiliation", o.affiliation.xmlName())
                            .attribute("role", o.role.xmlName()).attribute("nick", o.nick)
                            .attribute("jid", o.realJid.toString()).build());
                }
            }
        } else {
            room.reply(c, Condition.BAD_REQUEST, "the item needs a role or an affiliation");
            return;
        }
        room.result(c, q.build());
    }

    void set(Command c, Occupant sender, XmlElement query) {
        List<XmlElement> items = query.elements("item");
        if (items.isEmpty()) {
            room.reply(c, Condition.BAD_REQUEST, "the query needs at least one item");
            return;
        }
        for (XmlElement item : items) {
            RoomPermissions.Refusal problem;
            if (item.attribute("role") != null) {
                problem = changeRole(sender, item);
            } else if (item.attribute("affiliation") != null) {
                problem = changeAffiliation(c, sender, item);
            } else {
                problem = new RoomPermissions.Refusal(Condition.BAD_REQUEST,
                        "each item needs a role or an affiliation");
            }
            if (problem != null) {
                room.reply(c, problem.condition(), problem.text());
                return;
            }
        }
        room.result(c, null);
    }

    private RoomPermissions.Refusal changeRole(Occupant actor, XmlElement item) {
        Role role = Role.fromXml(item.attribute("role"));
        if (role == null) {
            return new RoomPermissions.Refusal(Condition.BAD_REQUEST, "unknown role '" + item.attribute("role") + "'");
        }
        String nick = item.attribute("nick");
        if (nick == null) {
            return new RoomPermissions.Refusal(Condition.BAD_REQUEST, "a role change needs the occupant's nick");
        }
        if (actor == null || !RoomPermissions.mayChangeRoles(actor.role)) {
            return new RoomPermissions.Refusal(Condition.FORBIDDEN, "only moderators may change roles");
        }
        Occupant target = occupants.byNick(nick);
        if (target == null) {
            return new RoomPermissions.Refusal(Condition.ITEM_NOT_FOUND,
                    "no occupant with the nickname '" + nick + "'");
        }
        RoomPermissions.Refusal refusal = RoomPermissions.roleChangeRefusal(actor.affiliation, target.role,
                target.affiliation, role);
        if (refusal != null) {
            return refusal;
        }
        String reason = item.childText("reason");
        if (role == Role.NONE) {
            for (Occupant session : occupants.sessionsOf(target)) {
                room.presence.removeOccupant(session, "unavailable", new int[] {307}, reason, actor.nick, null, true);
            }
            return null;
        }
        if (target.role != role) {
            room.voiceRequests.settled(target);
            boolean visibleBefore = room.presence.broadcastsPresenceOf(target, occupants.count());
            occupants.setRole(target, role);
            room.presence.presenceChanged(target, visibleBefore, room.presence.reasonAndActor(reason, actor.nick));
        }
        return null;
    }

    private RoomPermissions.Refusal changeAffiliation(Command c, Occupant actorOccupant, XmlElement item) {
        Affiliation aff = Affiliation.fromXml(item.attribute("affiliation"));
        if (aff == null) {
            return new RoomPermissions.Refusal(Condition.BAD_REQUEST,
                    "unknown affiliation '" + item.attribute("affiliation") + "'");
        }
        Jid target;
        String jidText = item.attribute("jid");
        if (jidText != null) {
            target = Jid.tryParse(jidText);
            if (target == null) {
                return new RoomPermissions.Refusal(Condition.JID_MALFORMED, "'" + jidText + "' is not a valid JID");
            }
            target = target.bare();
        } else if (item.attribute("nick") != null) {
            Occupant o = occupants.byNick(item.attribute("nick"));
            if (o == null) {
                return new RoomPermissions.Refusal(Condition.ITEM_NOT_FOUND,
                        "no occupant with the nickname '" + item.attribute("nick") + "'");
            }
            target = o.bareJid;
        } else {
            return new RoomPermissions.Refusal(Condition.BAD_REQUEST, "an affiliation change needs a jid");
        }
        RoomPermissions.Refusal refusal = RoomPermissions.affiliationChangeRefusal(affiliations.of(c.from.bare()),
                affiliations.of(target), aff, affiliations.owners(), ctx.isServiceAdmin(target));
        if (refusal != null) {
            return refusal;
        }
        applyAffiliation(target, aff, item.childText("reason"), actorOccupant == null ? null : actorOccupant.nick);
        return null;
    }

    void setAffiliation(Jid user, Affiliation aff) {
        Jid bare = Stanzas.userKey(user);
        affiliations.set(bare, aff);
        if (aff == Affiliation.NONE || aff == Affiliation.OUTCAST) {
            room.registration.forget(bare);
        }
        room.saveIfPersistent();
    }

    /** Stores the affiliation and updates every session of that user in the room (roles, removal, presence). */
    void applyAffiliation(Jid user, Affiliation aff, String reason, String actorNick) {
        Jid bare = Stanzas.userKey(user);
        setAffiliation(bare, aff);
        for (Occupant o : occupants.sessionsOfUser(bare)) {
            Affiliation before = o.affiliation;
            boolean visibleBefore = room.presence.broadcastsPresenceOf(o, occupants.count());
            o.affiliation = aff;
            o.invalidatePresence();
            if (aff == Affiliation.OUTCAST) {
                room.presence.removeOccupant(o, "unavailable", new int[] {301}, reason, actorNick, null, true);
            } else if (room.settings().membersOnly() && !aff.atLeast(Affiliation.MEMBER)) {
                room.presence.removeOccupant(o, "unavailable", new int[] {321}, reason, actorNick, null, true);
            } else {
                o.role = RoomPermissions.roleAfterAffiliationChange(o.role, before, aff, room.settings().moderated());
                room.presence.presenceChanged(o, visibleBefore, room.presence.reasonAndActor(reason, actorNick));
            }
        }
    }

    /** A user registered with the room (XEP-0045 7.10): at least a member from now on. */
    void registered(Jid user) {
        if (affiliations.of(user).atLeast(Affiliation.MEMBER)) {
            room.saveIfPersistent(); // the reservation is stored with the affiliation
        } else {
            applyAffiliation(user, Affiliation.MEMBER, null, null);
        }
    }

    /** A user cancelled their registration: a member by registration is a member no more. */
    void unregistered(Jid user, Affiliation before) {
        if (before == Affiliation.MEMBER) {
            applyAffiliation(user, Affiliation.NONE, null, null);
        } else {
            room.saveIfPersistent();
        }
    }
}
