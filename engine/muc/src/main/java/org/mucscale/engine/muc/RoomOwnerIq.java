package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.mucscale.engine.muc.Stanzas.Condition;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

import static org.mucscale.engine.muc.Stanzas.NS_MUC_OWNER;
import static org.mucscale.engine.muc.Stanzas.NS_MUC_USER;

/**
 * A room's muc#owner requests (XEP-0045 10): the configuration form, its submission (a new {@link RoomSettings}
 * swapped in whole, with what the change does to occupants, storage and the directory) and destruction.
 *
 * <p>Thread: owned by the room's shard thread ({@link RoomShard}); nothing here is synchronised.
 */
final class RoomOwnerIq {
    private final Room room;
    private final Jid jid;
    private final RoomShard shard;
    private final ServiceContext ctx;
    private final Delivery delivery;
    private final Occupants occupants;
    private final Affiliations affiliations;

    RoomOwnerIq(Room room, RoomShard shard, Occupants occupants, Affiliations affiliations) {
        this.room = room;
        this.jid = room.jid;
        this.shard = shard;
        this.ctx = shard.ctx;
        this.delivery = ctx.delivery;
        this.occupants = occupants;
        this.affiliations = affiliations;
    }

    void get(Command c, XmlElement query) {
        if (!RoomPermissions.mayConfigure(affiliations.of(c.from.bare()))) {
            room.reply(c, Condition.FORBIDDEN, "only owners may configure the room");
            return;
        }
        room.result(c, XmlElement.builder("query", NS_MUC_OWNER).child(RoomConfigForm.form(room, ownersAndAdmins()))
                .build());
    }

    private Map<Affiliation, List<Jid>> ownersAndAdmins() {
        Map<Affiliation, List<Jid>> out = new LinkedHashMap<>();
        out.put(Affiliation.OWNER, affiliations.withAffiliation(Affiliation.OWNER));
        out.put(Affiliation.ADMIN, affiliations.withAffiliation(Affiliation.ADMIN));
        return out;
    }

    void set(Command c, XmlElement query) {
        if (!RoomPermissions.mayConfigure(affiliations.of(c.from.bare()))) {
            room.reply(c, Condition.FORBIDDEN, "only owners may configure or destroy the room");
            return;
        }
        XmlElement destroy = query.child("destroy");
        if (destroy != null) {
            room.destroy(destroy.attribute("jid"), destroy.childText("reason"), destroy.childText("password"), c);
            return;
        }
        XmlElement form = query.child("x", Stanzas.NS_DATA);
        if (form == null) {
            room.reply(c, Condition.BAD_REQUEST, "expected a data form or a destroy request");
            return;
        }
        String formType = form.attribute("type");
        if ("cancel".equals(formType)) {
            if (room.locked) {
                room.destroy(null, "the owner cancelled the room's creation", null, c);
            } else {
                room.result(c, null);
            }
            return;
        }
        if (!"submit".equals(formType)) {
            room.reply(c, Condition.BAD_REQUEST, "the form must be of type submit or cancel");
            return;
        }
        RoomConfigForm.Submission sub;
        try {
            sub = RoomConfigForm.parse(form, ctx.config);
        } catch (IllegalArgumentException e) {
            room.reply(c, Condition.NOT_ACCEPTABLE, e.getMessage());
            return;
        }
        if (sub.ownersOrNull() != null && sub.ownersOrNull().isEmpty()) {
            room.reply(c, Condition.NOT_ACCEPTABLE, "a room needs at least one owner");
            return;
        }
        Occupant owner = occupants.byRealJid(c.from);
        if (!shard.content.admitConfiguration(c, jid, owner == null ? null : owner.nick, sub)) {
            return;
        }
        apply(c, sub);
    }

    /**
     * Swaps in the submitted configuration and carries out what the change means: owners and admins replaced,
     * non-members removed from a room made members-only (322), storage and directory updated, and, unless the room was
     * being created, the occupants told (104, and 172/173 when anonymity changed).
     */
    private void apply(Command c, RoomConfigForm.Submission sub) {
        boolean wasLocked = room.locked;
        RoomSettings before = room.settings();
        RoomSettings after = sub.applyTo(before);
        room.settings(after);
        room.locked = false;
        room.result(c, null);
        if (sub.ownersOrNull() != null) {
            replaceAffiliation(Affiliation.OWNER, sub.ownersOrNull());
        }
        if (sub.adminsOrNull() != null) {
            replaceAffiliation(Affiliation.ADMIN, sub.adminsOrNull());
        }
        if (!before.membersOnly() && after.membersOnly()) {
            for (Occupant o : occupants.snapshot()) {
                if (!o.affiliation.atLeast(Affiliation.MEMBER)) {
                    room.presence.removeOccupant(o, "unavailable", new int[] {322}, null, null, null, false);
                }
            }
        }
        occupants.invalidatePresences();
        if (after.persistent()) {
            shard.storeWrites.save(room.snapshot());
        } else if (before.persistent()) {
            shard.storeWrites.delete(jid);
        }
        room.updateDirectory();
        if (!wasLocked) {
            // XEP-0045 10.2.1: tell occupants the configuration changed (104), and about anonymity (172/173)
            XmlElement.Builder x = XmlElement.builder("x", NS_MUC_USER)
                    .child(XmlElement.builder("status").attribute("code", "104").build());
            if (before.nonAnonymous() != after.nonAnonymous()) {
                x.child(XmlElement.builder("status").attribute("code", after.nonAnonymous() ? "172" : "173").build());
            }
            RenderedStanza note = RenderedStanza.render(XmlElement.builder("message")
                    .attribute("from", jid.toString()).attribute("type", "groupchat").child(x.build()).build());
            occupants.deliverToAll(note);
        }
        if (occupants.count() == 0 && !after.persistent()) {
            shard.removeRoom(room);
        }
    }

    private void replaceAffiliation(Affiliation aff, List<Jid> jids) {
        List<Jid> old = affiliations.withAffiliation(aff);
        old.removeAll(jids);
        for (Jid j : old) {
            room.admin.applyAffiliation(j, Affiliation.NONE, null, null);
        }
        for (Jid j : jids) {
            if (affiliations.of(j) != aff) {
                room.admin.applyAffiliation(j, aff, null, null);
            }
        }
    }
}
