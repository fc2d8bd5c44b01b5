package org.mucscale.engine.muc;

import java.util.HashMap;
import java.util.Map;

import org.mucscale.engine.muc.Stanzas.Condition;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * Registration with a room (XEP-0045 7.10, {@code jabber:iq:register}) and reserved nicknames (7.12). A user who
 * registers reserves a nickname (nobody else may join or register with it) and becomes a member, so a members-only
 * room admits them. Only when the owner opened registration ({@link #FIELD_OPEN}); closed by default, because an open
 * registration makes a members-only room open to anyone who asks.
 *
 * <p>Runs on the room's thread only. A reservation belongs to its user's affiliation: it is stored with it (the
 * affiliation row's reason column, see the runtime's room repository) and goes when the affiliation does.
 */
final class Registration {
    static final String NS_REGISTER = "jabber:iq:register";
    static final String FORM_TYPE = "http://jabber.org/protocol/muc#register";
    static final String FIELD_NICK = "muc#register_roomnick";
    /** XEP-0045 registers no field for this; Openfire's name, so rooms moved from Openfire keep their setting. */
    static final String FIELD_OPEN = "x-muc#roomconfig_registration";
    /** The disco node that tells a user their reserved nickname (XEP-0045 7.12). */
    static final String NODE_RESERVED_NICK = "x-roomuser-item";

    private final Room room;
    private final ServiceContext ctx;
    private final Map<Jid, String> nickByUser = new HashMap<>();
    private final Map<String, Jid> userByNickKey = new HashMap<>();

    Registration(Room room, ServiceContext ctx) {
        this.room = room;
        this.ctx = ctx;
    }

    // ------------------------------------------------------------------------------------------------ protocol

    /** An IQ get or set in {@code jabber:iq:register} to the room. */
    void handle(Command c, boolean get, XmlElement query) {
        Jid user = Stanzas.userKey(c.from);
        Affiliation aff = room.affiliationOf(user);
        if (aff == Affiliation.OUTCAST) {
            Room.reply(ctx, c, Condition.FORBIDDEN, "you are banned from this room");
            return;
        }
        if (get) {
            String nick = nickByUser.get(user);
            if (nick != null) {
                room.result(c, XmlElement.builder("query", NS_REGISTER).child(XmlElement.builder("registered").build())
                        .textChild("username", nick).build());
            } else if (!room.settings().registrationOpen()) {
                Room.reply(ctx, c, Condition.NOT_ALLOWED, "this room does not accept registrations");
            } else {
                room.result(c, XmlElement.builder("query", NS_REGISTER)
                        .textChild("instructions", "Choose the nickname to reserve in " + room.jid
                                + "; registering makes you a member of the room.")
                        .child(form()).build());
            }
            return;
        }
        if (query.child("remove") != null) {
            unregister(c, user, aff);
            return;
        }
        if (!room.settings().registrationOpen()) {
            Room.reply(ctx, c, Condition.NOT_ALLOWED, "this room does not accept registrations");
            return;
        }
        XmlElement form = query.child("x", Stanzas.NS_DATA);
        if (form == null) {
            Room.reply(ctx, c, Condition.BAD_REQUEST, "registration needs the muc#register data form");
            return;
        }
        if ("cancel".equals(form.attribute("type"))) {
            room.result(c, null);
            return;
        }
        String formType = null;
        String wanted = null;
        for (XmlElement f : form.elements("field")) {
            if ("FORM_TYPE".equals(f.attribute("var"))) {
                formType = f.childText("value");
            } else if (FIELD_NICK.equals(f.attribute("var"))) {
                wanted = f.childText("value");
            }
        }
        if (!"submit".equals(form.attribute("type")) || !FORM_TYPE.equals(formType)) {
            Room.reply(ctx, c, Condition.BAD_REQUEST, "registration needs a submitted form of type " + FORM_TYPE);
            return;
        }
        if (wanted == null || wanted.isEmpty()) {
            Room.reply(ctx, c, Condition.BAD_REQUEST, FIELD_NICK + " is required");
            return;
        }
        String nick = Nicknames.normalize(wanted, ctx.config.maxNicknameLength);
        if (nick == null) {
            Room.reply(ctx, c, Condition.NOT_ACCEPTABLE, "the nickname is not acceptable (empty, too long, or"
                    + " contains control, formatting or unassigned characters)");
            return;
        }
        String key = Nicknames.key(nick);
        Jid holder = userByNickKey.get(key);
        Occupant inRoom = room.occupant(nick);
        if ((holder != null && !holder.equals(user)) || (inRoom != null && !inRoom.bareJid.equals(user))) {
            Room.reply(ctx, c, Condition.CONFLICT, "that nickname is reserved or in use in this room");
            return;
        }
        reserve(user, nick);
        room.result(c, null);
        room.admin.registered(user);
    }

    private void unregister(Command c, Jid user, Affiliation aff) {
        if (nickByUser.get(user) == null) {
            Room.reply(ctx, c, Condition.ITEM_NOT_FOUND, "you are not registered with this room");
            return;
        }
        forget(user);
        room.result(c, null);
        room.admin.unregistered(user, aff);
    }

    private XmlElement form() {
        return XmlElement.builder("x", Stanzas.NS_DATA).attribute("type", "form")
                .textChild("title", "Registration with " + room.jid)
                .child(Stanzas.formField("FORM_TYPE", "hidden", null, FORM_TYPE))
                .child(XmlElement.builder("field").attribute("var", FIELD_NICK).attribute("type", "text-single")
                        .attribute("label", "Desired nickname").child(XmlElement.builder("required").build()).build())
                .build();
    }

    /** disco#info on {@link #NODE_RESERVED_NICK}: the asker's reserved nickname, or an empty query. */
    XmlElement reservedNickInfo(Jid asker) {
        XmlElement.Builder q = XmlElement.builder("query", Stanzas.NS_DISCO_INFO)
                .attribute("node", NODE_RESERVED_NICK);
        String nick = nickByUser.get(Stanzas.userKey(asker));
        if (nick != null) {
            q.child(XmlElement.builder("identity").attribute("category", "conference").attribute("type", "text")
                    .attribute("name", nick).build());
        }
        return q.build();
    }

    // ------------------------------------------------------------------------------------------------ state

    /** True when {@code nickKey} is reserved by a user other than {@code bare} (their joins get a conflict). */
    boolean reservedByOther(String nickKey, Jid bare) {
        Jid holder = userByNickKey.get(nickKey);
        return holder != null && !holder.equals(Stanzas.userKey(bare));
    }

    /** The user lost their affiliation (none or outcast): the reservation goes with it. */
    void forget(Jid bare) {
        String nick = nickByUser.remove(bare);
        if (nick != null) {
            userByNickKey.remove(Nicknames.key(nick));
        }
    }

    void reserve(Jid bare, String nick) {
        forget(bare);
        nickByUser.put(bare, nick);
        userByNickKey.put(Nicknames.key(nick), bare);
    }

    /** Reservations by bare JID, for the stored room. */
    Map<Jid, String> reservedNicks() {
        return nickByUser;
    }
}
