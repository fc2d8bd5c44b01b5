package org.mucscale.engine.runtime.admin;

import static org.mucscale.engine.runtime.admin.AdminApi.error;
import static org.mucscale.engine.runtime.admin.AdminApi.object;
import static org.mucscale.engine.runtime.admin.AdminApi.ok;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.mucscale.engine.muc.Affiliation;
import org.mucscale.engine.muc.Role;
import org.mucscale.engine.muc.admin.AdminException;
import org.mucscale.engine.muc.admin.RoomAdmin;
import org.mucscale.engine.muc.admin.RoomDetails;
import org.mucscale.engine.runtime.admin.AdminApi.Request;
import org.mucscale.engine.runtime.admin.AdminApi.Response;

/**
 * The resources under one room of the HTTP API ({@code /chatrooms/{room}/...}): participants and occupants (kick,
 * role), chat history, messages into the room, invitations, and the four affiliation lists. {@link AdminApi} checks
 * access and routes here; a path it does not know is 404. Stateless.
 */
final class RoomResources {
    private RoomResources() {
    }

    /** {@code p}: the path's segments ({@code chatrooms, room, what, ...}), three or more. */
    static Response route(RoomAdmin admin, Request r, List<String> p, Map<String, String> q, String room) {
        String m = r.method();
        String what = p.get(2);
        String roomJid = room.toLowerCase(Locale.ROOT) + "@" + admin.serviceDomain();
        switch (what) {
            case "participants", "occupants" -> {
                if (p.size() == 3 && m.equals("GET")) {
                    List<Object> out = new ArrayList<>();
                    for (var o : admin.room(room).occupants()) {
                        out.add(what.equals("participants") ? RoomJson.participant(roomJid, o)
                                : RoomJson.occupant(roomJid, o));
                    }
                    return ok(200, Map.of(what, out));
                }
                if (what.equals("occupants") && p.size() == 4 && m.equals("DELETE")) {
                    admin.kick(room, p.get(3), q.get("reason"));
                    return ok(200, Map.of("kicked", p.get(3)));
                }
                if (what.equals("occupants") && p.size() == 6 && p.get(4).equals("role") && m.equals("PUT")) {
                    Role role = Role.fromXml(p.get(5));
                    if (role == null) {
                        return error(400, "bad-request", "role must be none, visitor, participant or moderator");
                    }
                    admin.setRole(room, p.get(3), role, q.get("reason"));
                    return ok(200, Map.of("nick", p.get(3), "role", role.xmlName()));
                }
            }
            case "chathistory" -> {
                if (p.size() == 3 && m.equals("GET")) {
                    List<Object> out = new ArrayList<>();
                    for (var h : admin.room(room).history()) {
                        out.add(RoomJson.message(roomJid, h));
                    }
                    return ok(200, Map.of("messages", out));
                }
                if (p.size() == 3 && m.equals("DELETE")) {
                    admin.clearHistory(room);
                    return ok(200, Map.of("cleared", true));
                }
            }
            case "messages" -> {
                if (p.size() == 3 && m.equals("POST")) {
                    Map<String, Object> b = object(r);
                    Object text = b.get("body");
                    if (!(text instanceof String s)) {
                        return error(400, "bad-request", "body must be a string: the message text");
                    }
                    admin.announce(room, s);
                    return ok(201, Map.of("sent", true));
                }
            }
            case "owners", "admins", "members", "outcasts" -> {
                Affiliation aff = switch (what) {
                    case "owners" -> Affiliation.OWNER;
                    case "admins" -> Affiliation.ADMIN;
                    case "members" -> Affiliation.MEMBER;
                    default -> Affiliation.OUTCAST;
                };
                if (p.size() == 3 && m.equals("GET")) {
                    RoomDetails d = admin.room(room);
                    List<String> list = switch (aff) {
                        case OWNER -> d.owners();
                        case ADMIN -> d.admins();
                        case MEMBER -> d.members();
                        default -> d.outcasts();
                    };
                    return ok(200, Map.of(what, list));
                }
                if (p.size() == 4 && m.equals("POST")) {
                    admin.setAffiliation(room, p.get(3), aff, q.get("reason"));
                    return ok(201, Map.of("jid", p.get(3), "affiliation", aff.xmlName()));
                }
                if (p.size() == 4 && m.equals("DELETE")) {
                    RoomDetails d = admin.room(room);
                    org.mucscale.engine.stanza.Jid parsed = org.mucscale.engine.stanza.Jid.tryParse(p.get(3));
                    if (parsed == null) {
                        return error(400, "bad-request", "'" + p.get(3) + "' is not a valid JID");
                    }
                    String jid = parsed.bare().toString();
                    List<String> list = aff == Affiliation.OWNER ? d.owners() : aff == Affiliation.ADMIN ? d.admins()
                            : aff == Affiliation.MEMBER ? d.members() : d.outcasts();
                    if (!list.contains(jid)) {
                        return error(404, "not-found", jid + " is not in " + what + " of '" + room + "'");
                    }
                    admin.setAffiliation(room, jid, Affiliation.NONE, q.get("reason"));
                    return ok(200, Map.of("jid", jid, "affiliation", "none"));
                }
            }
            case "invite" -> {
                if ((p.size() == 3 || p.size() == 4) && m.equals("POST")) {
                    return invite(admin, r, p, room);
                }
            }
            default -> {
            }
        }
        return error(404, "not-found", "no such endpoint; see docs/admin.md");
    }

    /**
     * {@code POST /chatrooms/{room}/invite} with {@code {"reason":…,"jidsToInvite":[…]}} (the REST API plugin's
     * {@code MUCInvitationsEntity}), or {@code POST /chatrooms/{room}/invite/{jid}} with {@code {"reason":…}} (its
     * {@code MUCInvitationEntity}; the body may be left out there).
     */
    private static Response invite(RoomAdmin admin, Request r, List<String> p, String room) {
        Map<String, Object> b = p.size() == 4 && (r.body() == null || r.body().length == 0) ? Map.of() : object(r);
        Object reason = b.get("reason");
        if (reason != null && !(reason instanceof String)) {
            throw new AdminException(AdminException.Problem.BAD_REQUEST, "reason must be a string");
        }
        List<String> jids = new ArrayList<>();
        if (p.size() == 4) {
            jids.add(p.get(3));
        }
        if (b.containsKey("jidsToInvite")) {
            List<String> listed = RoomJson.texts(b, "jidsToInvite");
            if (listed != null) {
                for (String j : listed) {
                    if (!jids.contains(j)) {
                        jids.add(j);
                    }
                }
            }
        } else if (p.size() == 3) {
            throw new AdminException(AdminException.Problem.BAD_REQUEST,
                    "jidsToInvite: the list of users to invite is missing");
        }
        List<String> invited = admin.invite(room, jids, (String) reason);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("roomName", room.toLowerCase(Locale.ROOT));
        out.put("invited", invited);
        return ok(200, out);
    }
}
