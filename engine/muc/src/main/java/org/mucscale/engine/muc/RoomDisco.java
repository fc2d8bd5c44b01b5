package org.mucscale.engine.muc;

import org.mucscale.engine.muc.Stanzas.Condition;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * What a room tells service discovery (XEP-0030, XEP-0045 6.4 and 6.5): its identity, features and muc#roominfo
 * form, and its occupant list as the presence policy lets it be seen.
 *
 * <p>Thread: owned by the room's shard thread ({@link RoomShard}); it only reads the room.
 */
final class RoomDisco {
    private final Room room;
    private final Jid jid;
    private final ServiceContext ctx;
    private final Occupants occupants;

    RoomDisco(Room room, ServiceContext ctx, Occupants occupants) {
        this.room = room;
        this.jid = room.jid;
        this.ctx = ctx;
        this.occupants = occupants;
    }

    void info(Command c, String node) {
        if (Registration.NODE_RESERVED_NICK.equals(node)) {
            room.result(c, room.registration.reservedNickInfo(c.from));
            return;
        }
        if (node != null) {
            room.reply(c, Condition.ITEM_NOT_FOUND, "no such node");
            return;
        }
        RoomSettings settings = room.settings();
        XmlElement.Builder q = XmlElement.builder("query", Stanzas.NS_DISCO_INFO);
        q.child(XmlElement.builder("identity").attribute("category", "conference").attribute("type", "text")
                .attribute("name", settings.displayName(jid)).build());
        q.child(Stanzas.feature(Stanzas.NS_MUC));
        q.child(Stanzas.feature(settings.membersOnly() ? "muc_membersonly" : "muc_open"));
        q.child(Stanzas.feature(settings.moderated() ? "muc_moderated" : "muc_unmoderated"));
        q.child(Stanzas.feature(settings.password() != null ? "muc_passwordprotected" : "muc_unsecured"));
        q.child(Stanzas.feature(settings.persistent() ? "muc_persistent" : "muc_temporary"));
        q.child(Stanzas.feature(settings.isPublic() ? "muc_public" : "muc_hidden"));
        q.child(Stanzas.feature(settings.nonAnonymous() ? "muc_nonanonymous" : "muc_semianonymous"));
        q.child(Stanzas.feature(Stanzas.NS_SID));
        q.child(Stanzas.feature(Stanzas.NS_STABLE_ID));
        if (ctx.config.occupantIds) {
            q.child(Stanzas.feature(Stanzas.NS_OCCUPANT_ID));
        }
        q.child(Stanzas.feature(VoiceRequests.FORM_TYPE));
        if (settings.registrationOpen()) {
            q.child(Stanzas.feature(Registration.NS_REGISTER));
        }
        q.child(Stanzas.feature(Stanzas.NS_SELF_PING));
        if (settings.archivingEnabled()) {
            q.child(Stanzas.feature(RoomArchive.NS_MAM)).child(Stanzas.feature(RoomArchive.NS_MAM_EXTENDED));
        }
        q.child(Stanzas.feature(Moderation.NS_MODERATE));
        q.child(Stanzas.feature(Moderation.NS_MODERATE_0));
        q.child(Stanzas.feature(Stanzas.NS_DISCO_INFO));
        q.child(Stanzas.feature(Stanzas.NS_DISCO_ITEMS));
        q.child(Stanzas.feature(Stanzas.NS_PING));
        XmlElement form = XmlElement.builder("x", Stanzas.NS_DATA).attribute("type", "result")
                .child(Stanzas.formField("FORM_TYPE", "hidden", null, "http://jabber.org/protocol/muc#roominfo"))
                .child(Stanzas.formField("muc#roominfo_description", "text-single", "Description", settings.description()))
                .child(Stanzas.formField("muc#roominfo_subject", "text-single", "Subject", room.messages.subject()))
                .child(Stanzas.formField("muc#roominfo_occupants", "text-single", "Number of occupants",
                        Integer.toString(occupants.nicknameCount()))) // nicknames, not sessions
                .child(Stanzas.formField("muc#roomconfig_roomname", "text-single", "Name", settings.name()))
                .child(Stanzas.formField("muc#roomconfig_maxusers", "text-single", "Maximum occupants",
                        Integer.toString(settings.maxOccupants())))
                .child(Stanzas.formField("muc#roomconfig_changesubject", "boolean", "Occupants may change the subject",
                        settings.participantsChangeSubject() ? "1" : "0"))
                .child(Stanzas.formField(Room.FIELD_PRESENCE_POLICY, "text-single", "Presence policy",
                        settings.presencePolicy().name().toLowerCase(java.util.Locale.ROOT)))
                .build();
        q.child(form);
        room.result(c, q.build());
    }

    void items(Command c, Occupant sender) {
        XmlElement.Builder q = XmlElement.builder("query", Stanzas.NS_DISCO_ITEMS);
        // the occupant list; large rooms under a restricted presence policy show only what their presence shows
        for (int i = 0; i < occupants.count(); i++) {
            Occupant o = occupants.at(i);
            if (!occupants.isFirstSession(o)) {
                continue; // one item per nickname
            }
            if (room.settings().presencePolicy() == PresencePolicy.FULL
                    || room.presence.broadcastsPresenceOf(o, occupants.count()) || o == sender) {
                q.child(XmlElement.builder("item").attribute("jid", o.occupantJid.toString()).build());
            }
        }
        room.result(c, q.build());
    }
}
