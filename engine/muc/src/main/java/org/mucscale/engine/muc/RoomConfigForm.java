package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/** The XEP-0045 room configuration form (XEP-0004, FORM_TYPE muc#roomconfig): rendering and parsing. */
final class RoomConfigForm {
    private RoomConfigForm() {
    }

    static final String FORM_TYPE = "http://jabber.org/protocol/muc#roomconfig";

    static XmlElement form(Room room, Map<Affiliation, List<Jid>> ownersAndAdmins) {
        RoomSettings r = room.settings();
        XmlElement.Builder x = XmlElement.builder("x", Stanzas.NS_DATA).attribute("type", "form")
                .textChild("title", "Configuration of " + room.jid)
                .child(Stanzas.formField("FORM_TYPE", "hidden", null, FORM_TYPE))
                .child(Stanzas.formField("muc#roomconfig_roomname", "text-single", "Room name", nz(r.name())))
                .child(Stanzas.formField("muc#roomconfig_roomdesc", "text-single", "Description", nz(r.description())))
                .child(bool("muc#roomconfig_persistentroom", "Keep the room when the last occupant leaves",
                        r.persistent()))
                .child(bool("muc#roomconfig_publicroom", "List the room in the directory", r.isPublic()))
                .child(bool("muc#roomconfig_moderatedroom", "Only participants with voice may speak", r.moderated()))
                .child(bool("muc#roomconfig_membersonly", "Only members may join", r.membersOnly()))
                .child(bool("muc#roomconfig_passwordprotectedroom", "A password is required to join",
                        r.password() != null))
                .child(Stanzas.formField("muc#roomconfig_roomsecret", "text-private", "Password", nz(r.password())))
                .child(listSingle("muc#roomconfig_maxusers", "Maximum occupants", Integer.toString(r.maxOccupants()),
                        "10", "20", "30", "50", "100", "200", "500", "1000", "5000", "10000"))
                .child(listSingle("muc#roomconfig_whois", "Who may discover real JIDs",
                        r.nonAnonymous() ? "anyone" : "moderators", "moderators", "anyone"))
                .child(bool("muc#roomconfig_changesubject", "Participants may change the subject",
                        r.participantsChangeSubject()))
                .child(listSingle("muc#roomconfig_allowpm", "Who may send private messages",
                        r.allowPrivateMessages().xmlName(), "anyone", "participants", "moderators", "none"))
                .child(bool("muc#roomconfig_enablelogging", "Log messages publicly", r.loggingEnabled()))
                .child(bool("muc#roomconfig_enablearchiving", "Archive messages (XEP-0313)", r.archivingEnabled()))
                .child(listMulti("muc#roomconfig_presencebroadcast", "Roles whose presence is broadcast",
                        r.presenceBroadcastRoles()))
                .child(listMulti("muc#roomconfig_getmemberlist", "Roles that may retrieve the member list (admins"
                        + " and owners always may)", r.memberListRoles()))
                .child(bool(Registration.FIELD_OPEN, "Users may register with the room (and so become members)",
                        r.registrationOpen()))
                .child(listSingle(Room.FIELD_PRESENCE_POLICY, "Presence policy for large rooms",
                        r.presencePolicy().name().toLowerCase(Locale.ROOT), "full", "moderators_only", "none_above_n"))
                .child(jidMulti("muc#roomconfig_roomowners", "Room owners", ownersAndAdmins.get(Affiliation.OWNER)))
                .child(jidMulti("muc#roomconfig_roomadmins", "Room admins", ownersAndAdmins.get(Affiliation.ADMIN)));
        return x.build();
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }

    private static XmlElement bool(String var, String label, boolean value) {
        return Stanzas.formField(var, "boolean", label, value ? "1" : "0");
    }

    private static XmlElement listSingle(String var, String label, String value, String... options) {
        XmlElement.Builder f = XmlElement.builder("field").attribute("var", var).attribute("type", "list-single")
                .attribute("label", label).child(XmlElement.builder("value").text(value).build());
        for (String o : options) {
            f.child(XmlElement.builder("option").attribute("label", o)
                    .child(XmlElement.builder("value").text(o).build()).build());
        }
        return f.build();
    }

    private static XmlElement listMulti(String var, String label, Set<Role> roles) {
        XmlElement.Builder f = XmlElement.builder("field").attribute("var", var).attribute("type", "list-multi")
                .attribute("label", label);
        for (Role r : roles) {
            f.child(XmlElement.builder("value").text(r.xmlName()).build());
        }
        for (String o : new String[] {"moderator", "participant", "visitor"}) {
            f.child(XmlElement.builder("option").attribute("label", o)
                    .child(XmlElement.builder("value").text(o).build()).build());
        }
        return f.build();
    }

    private static XmlElement jidMulti(String var, String label, List<Jid> jids) {
        XmlElement.Builder f = XmlElement.builder("field").attribute("var", var).attribute("type", "jid-multi")
                .attribute("label", label);
        for (Jid j : jids) {
            f.child(XmlElement.builder("value").text(j.toString()).build());
        }
        return f.build();
    }

    /** Parsed values; null means "field not submitted, keep the current value". */
    static final class Submission {
        String name;
        String description;
        Boolean persistent;
        Boolean isPublic;
        Boolean moderated;
        Boolean membersOnly;
        Boolean passwordProtected;
        String secret;
        Integer maxUsers;
        Boolean nonAnonymous;
        Boolean changeSubject;
        PrivateMessagePolicy allowPm;
        Boolean logging;
        Boolean archiving;
        Set<Role> presenceBroadcast;
        Set<Role> memberListRoles;
        Boolean registrationOpen;
        PresencePolicy presencePolicy;
        List<Jid> owners;
        List<Jid> admins;

        List<Jid> ownersOrNull() {
            return owners;
        }

        List<Jid> adminsOrNull() {
            return admins;
        }

        /** The configuration {@code r} with the submitted fields changed (a new value; {@code r} stays as it was). */
        RoomSettings applyTo(RoomSettings r) {
            RoomSettings.Builder b = r.toBuilder();
            if (name != null) {
                b.name = name;
            }
            if (description != null) {
                b.description = description;
            }
            if (persistent != null) {
                b.persistent = persistent;
            }
            if (isPublic != null) {
                b.isPublic = isPublic;
            }
            if (moderated != null) {
                b.moderated = moderated;
            }
            if (membersOnly != null) {
                b.membersOnly = membersOnly;
            }
            if (passwordProtected != null || secret != null) {
                boolean on = passwordProtected != null ? passwordProtected : r.password() != null || secret != null;
                String newSecret = secret != null ? secret : r.password();
                b.password = on && newSecret != null && !newSecret.isEmpty() ? newSecret : null;
            }
            if (maxUsers != null) {
                b.maxOccupants = maxUsers;
            }
            if (nonAnonymous != null) {
                b.nonAnonymous = nonAnonymous;
            }
            if (changeSubject != null) {
                b.participantsChangeSubject = changeSubject;
            }
            if (allowPm != null) {
                b.allowPrivateMessages = allowPm;
            }
            if (logging != null) {
                b.loggingEnabled = logging;
            }
            if (archiving != null) {
                b.archivingEnabled = archiving;
            }
            if (presenceBroadcast != null) {
                b.presenceBroadcastRoles = presenceBroadcast;
            }
            if (presencePolicy != null) {
                b.presencePolicy = presencePolicy;
            }
            if (memberListRoles != null) {
                b.memberListRoles = memberListRoles;
            }
            if (registrationOpen != null) {
                b.registrationOpen = registrationOpen;
            }
            return b.build();
        }
    }

    /** Parses a submitted form; throws IllegalArgumentException naming the field and the allowed values. */
    static Submission parse(XmlElement form, MucConfig config) {
        Submission s = new Submission();
        for (XmlElement field : form.elements("field")) {
            String var = field.attribute("var");
            if (var == null) {
                continue;
            }
            List<String> values = new ArrayList<>();
            for (XmlElement v : field.elements("value")) {
                values.add(v.text());
            }
            String v = values.isEmpty() ? null : values.get(0);
            switch (var) {
                case "muc#roomconfig_roomname" -> s.name = v == null ? "" : v;
                case "muc#roomconfig_roomdesc" -> s.description = v == null ? "" : v;
                case "muc#roomconfig_persistentroom" -> s.persistent = bool(var, v);
                case "muc#roomconfig_publicroom" -> s.isPublic = bool(var, v);
                case "muc#roomconfig_moderatedroom" -> s.moderated = bool(var, v);
                case "muc#roomconfig_membersonly" -> s.membersOnly = bool(var, v);
                case "muc#roomconfig_passwordprotectedroom" -> s.passwordProtected = bool(var, v);
                case "muc#roomconfig_roomsecret" -> s.secret = v == null ? "" : v;
                case "muc#roomconfig_maxusers" -> {
                    if (v == null || v.isEmpty() || v.equals("none")) {
                        s.maxUsers = 1_000_000;
                    } else {
                        try {
                            int n = Integer.parseInt(v.trim());
                            if (n < 1 || n > 1_000_000) {
                                throw new NumberFormatException();
                            }
                            s.maxUsers = n;
                        } catch (NumberFormatException e) {
                            throw new IllegalArgumentException(var + " must be a number between 1 and 1000000, was '"
                                    + v + "'");
                        }
                    }
                }
                case "muc#roomconfig_whois" -> {
                    if ("anyone".equals(v)) {
                        s.nonAnonymous = true;
                    } else if ("moderators".equals(v)) {
                        s.nonAnonymous = false;
                    } else {
                        throw new IllegalArgumentException(var + " must be moderators or anyone, was '" + v + "'");
                    }
                }
                case "muc#roomconfig_changesubject" -> s.changeSubject = bool(var, v);
                case "muc#roomconfig_allowpm" -> {
                    s.allowPm = PrivateMessagePolicy.fromXml(v);
                    if (s.allowPm == null) {
                        throw new IllegalArgumentException(var + " must be anyone, participants, moderators or none,"
                                + " was '" + v + "'");
                    }
                }
                case "muc#roomconfig_enablelogging" -> s.logging = bool(var, v);
                case "muc#roomconfig_enablearchiving" -> s.archiving = bool(var, v);
                case "muc#roomconfig_presencebroadcast" -> s.presenceBroadcast = roles(var, values);
                case "muc#roomconfig_getmemberlist" -> s.memberListRoles = roles(var, values);
                case Registration.FIELD_OPEN -> s.registrationOpen = bool(var, v);
                case Room.FIELD_PRESENCE_POLICY -> {
                    try {
                        s.presencePolicy = PresencePolicy.valueOf(v == null ? "" : v.trim().toUpperCase(Locale.ROOT));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(var + " must be full, moderators_only or none_above_n, was '"
                                + v + "'");
                    }
                }
                case "muc#roomconfig_roomowners" -> s.owners = jids(var, values);
                case "muc#roomconfig_roomadmins" -> s.admins = jids(var, values);
                default -> {
                    // FORM_TYPE and fields of other services are ignored (XEP-0004 allows unknown fields)
                }
            }
        }
        return s;
    }

    private static Set<Role> roles(String var, List<String> values) {
        Set<Role> roles = EnumSet.noneOf(Role.class);
        for (String r : values) {
            Role role = Role.fromXml(r);
            if (role == null || role == Role.NONE) {
                throw new IllegalArgumentException(var + " values must be moderator, participant or visitor, was '"
                        + r + "'");
            }
            roles.add(role);
        }
        return roles;
    }

    private static Boolean bool(String var, String v) {
        if (v == null) {
            return Boolean.FALSE;
        }
        return switch (v.trim()) {
            case "1", "true" -> Boolean.TRUE;
            case "0", "false", "" -> Boolean.FALSE;
            default -> throw new IllegalArgumentException(var + " must be 1, 0, true or false, was '" + v + "'");
        };
    }

    private static List<Jid> jids(String var, List<String> values) {
        List<Jid> out = new ArrayList<>();
        for (String v : values) {
            if (v == null || v.isBlank()) {
                continue;
            }
            Jid j = Jid.tryParse(v.trim());
            if (j == null) {
                throw new IllegalArgumentException(var + " must list valid JIDs, '" + v + "' is not one");
            }
            Jid key = Stanzas.userKey(j);
            if (!out.contains(key)) {
                out.add(key);
            }
        }
        return out;
    }
}
