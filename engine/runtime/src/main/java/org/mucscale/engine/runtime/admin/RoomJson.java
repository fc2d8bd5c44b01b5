package org.mucscale.engine.runtime.admin;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.mucscale.engine.muc.Role;
import org.mucscale.engine.muc.RoomAdminBridge;
import org.mucscale.engine.muc.admin.AdminException;
import org.mucscale.engine.muc.admin.RoomDetails;
import org.mucscale.engine.muc.admin.RoomSettings;
import org.mucscale.engine.muc.admin.RoomSummary;

/**
 * The chat room entity in the field names of Openfire's REST API plugin ({@code MUCRoomEntity}: roomName,
 * naturalName, description, subject, maxUsers, persistent, publicRoom, canAnyoneDiscoverJID,
 * canOccupantsChangeSubject, logEnabled, membersOnly, moderated, allowPM, broadcastPresenceRoles, owners, admins,
 * members, outcasts), read strictly (a field of the wrong type is a 400 naming it) and written in the same shape.
 * Fields the plugin has and mucscale does not serve (creationDate, registrationEnabled, canOccupantsInvite, the
 * *Groups lists ...) are accepted and ignored. Stateless.
 */
final class RoomJson {
    private RoomJson() {
    }

    /** The settings a JSON entity asks for; {@code roomName} (when given) is returned in {@code nameOut[0]}. */
    static RoomSettings settings(Map<String, Object> o, String[] nameOut) {
        RoomSettings s = new RoomSettings();
        nameOut[0] = text(o, "roomName");
        s.naturalName = text(o, "naturalName");
        s.description = text(o, "description");
        s.password = text(o, "password");
        s.persistent = bool(o, "persistent");
        s.publicRoom = bool(o, "publicRoom");
        s.moderated = bool(o, "moderated");
        s.membersOnly = bool(o, "membersOnly");
        s.canAnyoneDiscoverJID = bool(o, "canAnyoneDiscoverJID");
        s.canOccupantsChangeSubject = bool(o, "canOccupantsChangeSubject");
        s.logEnabled = bool(o, "logEnabled");
        s.archivingEnabled = bool(o, "archivingEnabled");
        Object max = o.get("maxUsers");
        if (max != null) {
            if (!(max instanceof Long n) || n < 0 || n > Integer.MAX_VALUE) {
                throw bad("maxUsers", "a whole number");
            }
            s.maxUsers = n == 0 ? 1_000_000 : (int) (long) n; // the plugin's 0 means "no limit"
        }
        Object pm = o.get("allowPM");
        if (pm != null) {
            if (!(pm instanceof String p)) {
                throw bad("allowPM", "one of anyone, participants, moderators, none");
            }
            s.allowPM = p;
        }
        List<String> roles = texts(o, "broadcastPresenceRoles");
        if (roles != null) {
            Set<Role> set = EnumSet.noneOf(Role.class);
            for (String r : roles) {
                Role role = Role.fromXml(r);
                if (role == null || role == Role.NONE) {
                    throw bad("broadcastPresenceRoles", "a list of moderator, participant, visitor (was '" + r + "')");
                }
                set.add(role);
            }
            s.broadcastPresenceRoles = set;
        }
        s.owners = texts(o, "owners");
        s.admins = texts(o, "admins");
        s.members = texts(o, "members");
        s.outcasts = texts(o, "outcasts");
        return s;
    }

    private static AdminException bad(String field, String expected) {
        return new AdminException(AdminException.Problem.BAD_REQUEST, field + " must be " + expected);
    }

    private static String text(Map<String, Object> o, String field) {
        Object v = o.get(field);
        if (v == null) {
            return null;
        }
        if (!(v instanceof String s)) {
            throw bad(field, "a string");
        }
        return s;
    }

    private static Boolean bool(Map<String, Object> o, String field) {
        Object v = o.get(field);
        if (v == null) {
            return null;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        if ("true".equals(v) || "false".equals(v)) {
            return Boolean.valueOf((String) v); // the REST API plugin's XML-to-JSON clients send strings
        }
        throw bad(field, "true or false");
    }

    /** A list of strings; a single string is a one-item list; {"x": [...]} wrappers of the XML shape are unwrapped. */
    static List<String> texts(Map<String, Object> o, String field) {
        Object v = o.get(field);
        if (v instanceof Map<?, ?> wrapper && wrapper.size() == 1) {
            v = wrapper.values().iterator().next();
        }
        if (v == null) {
            return null;
        }
        if (v instanceof String s) {
            return List.of(s);
        }
        if (!(v instanceof List<?> l)) {
            throw bad(field, "a list of strings");
        }
        List<String> out = new ArrayList<>(l.size());
        for (Object x : l) {
            if (!(x instanceof String s)) {
                throw bad(field, "a list of strings");
            }
            out.add(s);
        }
        return out;
    }

    static Map<String, Object> entity(RoomDetails d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("roomName", d.roomName());
        m.put("naturalName", d.naturalName());
        m.put("description", d.description());
        m.put("subject", d.subject());
        m.put("maxUsers", d.maxUsers());
        m.put("persistent", d.persistent());
        m.put("publicRoom", d.publicRoom());
        m.put("passwordProtected", d.passwordProtected());
        m.put("canAnyoneDiscoverJID", d.canAnyoneDiscoverJID());
        m.put("canOccupantsChangeSubject", d.canOccupantsChangeSubject());
        m.put("logEnabled", d.logEnabled());
        m.put("archivingEnabled", d.archivingEnabled());
        m.put("membersOnly", d.membersOnly());
        m.put("moderated", d.moderated());
        m.put("allowPM", d.allowPM());
        m.put("broadcastPresenceRoles", List.copyOf(d.broadcastPresenceRoles()));
        m.put("owners", d.owners());
        m.put("admins", d.admins());
        m.put("members", d.members());
        m.put("outcasts", d.outcasts());
        m.put("occupants", d.occupants().size());
        m.put("lastActivity", d.lastActivityMillis() == 0 ? null : Instant.ofEpochMilli(d.lastActivityMillis()));
        return m;
    }

    static Map<String, Object> summary(RoomSummary s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("roomName", s.roomName());
        m.put("naturalName", s.naturalName());
        m.put("description", s.description());
        m.put("persistent", s.persistent());
        m.put("publicRoom", s.publicRoom());
        m.put("membersOnly", s.membersOnly());
        m.put("moderated", s.moderated());
        m.put("archivingEnabled", s.archivingEnabled());
        m.put("occupants", s.occupants());
        m.put("maxUsers", s.maxUsers());
        m.put("lastActivity", s.lastActivityMillis() == 0 ? null : Instant.ofEpochMilli(s.lastActivityMillis()));
        return m;
    }

    /** The REST API plugin's participant: the occupant's room address, role and affiliation. */
    static Map<String, Object> participant(String roomJid, RoomAdminBridge.OccupantView o) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("jid", roomJid + "/" + o.nick());
        m.put("role", o.role().xmlName());
        m.put("affiliation", o.affiliation().xmlName());
        return m;
    }

    /** The REST API plugin's occupant (jid, userAddress, role, affiliation) plus nick and cluster node. */
    static Map<String, Object> occupant(String roomJid, RoomAdminBridge.OccupantView o) {
        Map<String, Object> m = participant(roomJid, o);
        m.put("userAddress", o.realJid().toString());
        m.put("nick", o.nick());
        m.put("node", o.node());
        return m;
    }

    static Map<String, Object> message(String roomJid, RoomAdminBridge.HistoryView h) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("from", h.nick() == null ? roomJid : roomJid + "/" + h.nick());
        m.put("type", "groupchat");
        m.put("body", h.body());
        if (h.subject() != null) {
            m.put("subject", h.subject());
        }
        m.put("delay", Instant.ofEpochMilli(h.timestampMillis()).toString());
        m.put("stanzaId", h.stanzaId());
        return m;
    }
}
