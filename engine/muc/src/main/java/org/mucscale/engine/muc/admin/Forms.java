package org.mucscale.engine.muc.admin;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.mucscale.engine.muc.Role;
import org.mucscale.engine.muc.RoomAdminBridge.RoomView;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * {@link RoomSettings} as the muc#roomconfig form an owner submits (XEP-0045 10.2): the room then checks and applies
 * it as any owner's submission, and tells its occupants (104). Stateless.
 */
final class Forms {
    private Forms() {
    }

    /**
     * The form fields for what {@code s} gives; with {@code fillAbsent}, also every field it does not give, from
     * {@code template} (the service's room defaults), so the result describes the whole configuration.
     */
    static Map<String, List<String>> fields(RoomSettings s, RoomView template, boolean fillAbsent) {
        Map<String, List<String>> f = new LinkedHashMap<>();
        text(f, "muc#roomconfig_roomname", s.naturalName, fillAbsent ? "" : null);
        text(f, "muc#roomconfig_roomdesc", s.description, fillAbsent ? "" : null);
        bool(f, "muc#roomconfig_persistentroom", s.persistent, fillAbsent ? Boolean.TRUE : null);
        bool(f, "muc#roomconfig_publicroom", s.publicRoom, fillAbsent ? template.isPublic() : null);
        bool(f, "muc#roomconfig_moderatedroom", s.moderated, fillAbsent ? template.moderated() : null);
        bool(f, "muc#roomconfig_membersonly", s.membersOnly, fillAbsent ? template.membersOnly() : null);
        String password = s.password != null ? s.password : fillAbsent ? "" : null;
        if (password != null) {
            f.put("muc#roomconfig_passwordprotectedroom", List.of(password.isEmpty() ? "0" : "1"));
            f.put("muc#roomconfig_roomsecret", List.of(password));
        }
        Integer max = s.maxUsers != null ? s.maxUsers : fillAbsent ? Integer.valueOf(template.maxOccupants()) : null;
        if (max != null) {
            if (max < 1 || max > 1_000_000) {
                throw new AdminException(AdminException.Problem.BAD_REQUEST,
                        "maxUsers must be between 1 and 1000000, was " + max);
            }
            f.put("muc#roomconfig_maxusers", List.of(Integer.toString(max)));
        }
        Boolean anyone = s.canAnyoneDiscoverJID != null ? s.canAnyoneDiscoverJID
                : fillAbsent ? Boolean.valueOf(template.nonAnonymous()) : null;
        if (anyone != null) {
            f.put("muc#roomconfig_whois", List.of(anyone ? "anyone" : "moderators"));
        }
        bool(f, "muc#roomconfig_changesubject", s.canOccupantsChangeSubject,
                fillAbsent ? template.participantsChangeSubject() : null);
        String pm = s.allowPM != null ? s.allowPM : fillAbsent ? template.allowPrivateMessages() : null;
        if (pm != null) {
            if (!List.of("anyone", "participants", "moderators", "none").contains(pm)) {
                throw new AdminException(AdminException.Problem.BAD_REQUEST,
                        "allowPM must be anyone, participants, moderators or none, was '" + pm + "'");
            }
            f.put("muc#roomconfig_allowpm", List.of(pm));
        }
        bool(f, "muc#roomconfig_enablelogging", s.logEnabled, fillAbsent ? template.loggingEnabled() : null);
        bool(f, "muc#roomconfig_enablearchiving", s.archivingEnabled,
                fillAbsent ? template.archivingEnabled() : null);
        Set<Role> roles = s.broadcastPresenceRoles != null ? s.broadcastPresenceRoles
                : fillAbsent ? template.presenceBroadcastRoles() : null;
        if (roles != null) {
            List<String> names = new ArrayList<>();
            for (Role r : roles) {
                if (r == Role.NONE) {
                    throw new AdminException(AdminException.Problem.BAD_REQUEST,
                            "broadcastPresenceRoles may hold moderator, participant and visitor, not none");
                }
                names.add(r.xmlName());
            }
            f.put("muc#roomconfig_presencebroadcast", names);
        }
        return f;
    }

    private static void text(Map<String, List<String>> f, String var, String given, String absent) {
        String v = given != null ? given : absent;
        if (v != null) {
            f.put(var, List.of(v));
        }
    }

    private static void bool(Map<String, List<String>> f, String var, Boolean given, Boolean absent) {
        Boolean v = given != null ? given : absent;
        if (v != null) {
            f.put(var, List.of(v ? "1" : "0"));
        }
    }

    static List<String> texts(List<Jid> jids) {
        List<String> out = new ArrayList<>(jids.size());
        for (Jid j : jids) {
            out.add(j.toString());
        }
        return out;
    }

    /** {@code <iq type='set'><query xmlns='muc#owner'><x type='submit'>…</x></query></iq>} to the room. */
    static XmlElement submit(Jid room, Map<String, List<String>> fields) {
        XmlElement.Builder x = XmlElement.builder("x", RoomAdmin.NS_DATA).attribute("type", "submit")
                .child(field("FORM_TYPE", List.of("http://jabber.org/protocol/muc#roomconfig")));
        fields.forEach((var, values) -> x.child(field(var, values)));
        return XmlElement.builder("iq").attribute("type", "set").attribute("to", room.toString())
                .child(XmlElement.builder("query", RoomAdmin.NS_OWNER).child(x.build()).build()).build();
    }

    private static XmlElement field(String var, List<String> values) {
        XmlElement.Builder f = XmlElement.builder("field").attribute("var", var);
        for (String v : values) {
            f.child(XmlElement.builder("value").text(v).build());
        }
        return f.build();
    }
}
