package org.mucscale.engine.runtime.admin;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.mucscale.engine.metrics.Html;
import org.mucscale.engine.muc.Affiliation;
import org.mucscale.engine.muc.Role;
import org.mucscale.engine.muc.RoomAdminBridge;
import org.mucscale.engine.muc.admin.AdminException;
import org.mucscale.engine.muc.admin.Page;
import org.mucscale.engine.muc.admin.RoomAdmin;
import org.mucscale.engine.muc.admin.RoomDetails;
import org.mucscale.engine.muc.admin.RoomSettings;
import org.mucscale.engine.muc.admin.RoomSummary;

/**
 * The admin console's room pages, host-independent (the Openfire servlet and the standalone server only pass requests
 * through): <em>Rooms</em> (search by name, natural name or description; keyset paging; a create form) and
 * <em>Room</em> ({@code ?room=}: configuration form, occupants with kick / ban / voice / moderator and a reason,
 * affiliation lists with several JIDs added at once and each removable, clear history, destroy with a reason and an
 * alternate room). Plain HTML forms, no JavaScript. Every form carries the host's CSRF token, which the host checks
 * before {@link #act} runs. Every action goes through {@link RoomAdmin} and into the API's {@link AuditTrail}.
 * Stateless and thread-safe; blocking (HTTP threads only).
 */
public final class RoomsAdminPage {
    /** Rooms per list page. */
    static final int PAGE_ROOMS = 50;
    static final String PAGE_ID = "mucscale-rooms";

    private RoomsAdminPage() {
    }

    /** The page for {@code params} ({@code room}, or {@code search} and {@code after}); {@code notice} on top. */
    public static String page(AdminApi api, Map<String, String> params, String csrf, String notice) {
        String room = params.get("room");
        StringBuilder sb = new StringBuilder(8192);
        sb.append("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>MUC Scale rooms</title>")
                .append("<meta name=\"pageID\" content=\"").append(PAGE_ID).append("\"></head><body>");
        if (notice != null && !notice.isBlank()) {
            sb.append("<p class=\"notice\" id=\"notice\">").append(Html.escape(notice)).append("</p>");
        }
        try {
            if (room == null || room.isBlank()) {
                rooms(sb, api.rooms(), params.get("search"), params.get("after"), csrf);
                audit(sb, api.audit());
            } else {
                room(sb, api.rooms().room(room), csrf);
            }
        } catch (AdminException e) {
            sb.append("<p class=\"notice\">").append(Html.escape(e.getMessage())).append("</p>")
                    .append("<p><a href=\"?\">All rooms</a></p>");
        }
        return sb.append("</body></html>").toString();
    }

    private static void rooms(StringBuilder sb, RoomAdmin admin, String search, String after, String csrf) {
        Page<RoomSummary> page = admin.list(search, after, PAGE_ROOMS);
        sb.append("<h1>Rooms of ").append(Html.escape(admin.serviceDomain())).append("</h1>")
                .append("<form method=\"get\"><input name=\"search\" id=\"search\" placeholder=\"name, natural name or "
                        + "description\" value=\"").append(Html.escape(search == null ? "" : search))
                .append("\"><button type=\"submit\">Search</button></form><p>").append(page.total())
                .append(" room(s)").append(search == null || search.isBlank() ? "" : " match").append(".</p>");
        sb.append("<table class=\"jive-table\" id=\"rooms\"><thead><tr><th>Room</th><th>Name</th><th>Persistent</th>")
                .append("<th>Members only</th><th>Moderated</th><th>Archiving</th><th>Occupants</th>")
                .append("<th>Last activity</th></tr></thead><tbody>");
        for (RoomSummary s : page.items()) {
            sb.append("<tr><td><a href=\"?room=").append(url(s.roomName())).append("\">").append(Html.escape(s.roomName()))
                    .append("</a></td><td>").append(Html.escape(s.naturalName())).append("</td><td>")
                    .append(yes(s.persistent())).append("</td><td>").append(yes(s.membersOnly())).append("</td><td>")
                    .append(yes(s.moderated())).append("</td><td>").append(yes(s.archivingEnabled())).append("</td><td>")
                    .append(s.occupants()).append(" / ").append(s.maxUsers()).append("</td><td>")
                    .append(s.lastActivityMillis() == 0 ? "" : Instant.ofEpochMilli(s.lastActivityMillis()).toString())
                    .append("</td></tr>");
        }
        sb.append("</tbody></table>");
        if (page.next() != null) {
            sb.append("<p><a id=\"next\" href=\"?after=").append(url(page.next()))
                    .append(search == null || search.isBlank() ? "" : "&amp;search=" + url(search))
                    .append("\">Next ").append(PAGE_ROOMS).append(" rooms</a></p>");
        }
        sb.append("<h2>Create a room</h2>");
        form(sb, csrf, "create", null, "<input name=\"roomName\" required placeholder=\"room name\">"
                + "<input name=\"naturalName\" placeholder=\"natural name\">"
                + "<input name=\"owners\" placeholder=\"owners (JIDs, comma-separated)\">", "Create");
    }

    /** Rows of the audit trail the Rooms page shows. */
    static final int AUDIT_ROWS = 20;

    /** The newest changes (API and pages), newest first; the full trail is GET /plugins/mucscale/v1/audit. */
    private static void audit(StringBuilder sb, AuditTrail trail) {
        sb.append("<h2>Recent changes</h2><p>The audit trail (").append(trail.persistent()
                ? "kept in the database, table mucscaleAdminAudit" : "in memory only: no database")
                .append("); all of it: <code>GET /plugins/mucscale/v1/audit?limit=N</code>.</p>")
                .append("<table class=\"jive-table\" id=\"audit\"><thead><tr><th>When</th><th>Who</th><th>From</th>")
                .append("<th>What</th><th>Result</th></tr></thead><tbody>");
        for (AuditTrail.Entry e : trail.newest(AUDIT_ROWS)) {
            sb.append("<tr><td>").append(e.at()).append("</td><td>").append(Html.escape(e.who())).append("</td><td>")
                    .append(Html.escape(e.from())).append("</td><td>").append(Html.escape(e.method())).append(' ')
                    .append(Html.escape(e.path())).append("</td><td>").append(e.status())
                    .append(e.message() == null ? "" : " " + Html.escape(e.message())).append("</td></tr>");
        }
        sb.append("</tbody></table>");
    }

    private static void room(StringBuilder sb, RoomDetails d, String csrf) {
        String r = d.roomName();
        sb.append("<h1>Room ").append(Html.escape(r)).append("</h1><p><a href=\"?\">All rooms</a></p>");
        sb.append("<h2>Configuration</h2>");
        form(sb, csrf, "update", r, "<table class=\"jive-table\">"
                + row("Natural name", "<input name=\"naturalName\" value=\"" + Html.escape(d.naturalName()) + "\">")
                + row("Description", "<input name=\"description\" value=\"" + Html.escape(d.description()) + "\">")
                + row("Maximum occupants", "<input name=\"maxUsers\" type=\"number\" min=\"1\" value=\""
                + d.maxUsers() + "\">")
                + row("Public", check("publicRoom", d.publicRoom()))
                + row("Moderated", check("moderated", d.moderated()))
                + row("Members only", check("membersOnly", d.membersOnly()))
                + row("Anyone sees real JIDs", check("canAnyoneDiscoverJID", d.canAnyoneDiscoverJID()))
                + row("Occupants change the subject", check("canOccupantsChangeSubject",
                d.canOccupantsChangeSubject()))
                + row("Logged", check("logEnabled", d.logEnabled()))
                + row("Archived (XEP-0313)", check("archivingEnabled", d.archivingEnabled()))
                + row("Private messages", select("allowPM", d.allowPM(), "anyone", "participants", "moderators", "none"))
                + "</table>", "Save");
        sb.append("<h2>Occupants (").append(d.occupants().size()).append(")</h2><table class=\"jive-table\" "
                + "id=\"occupants\"><thead><tr><th>Nick</th><th>Real JID</th><th>Role</th><th>Affiliation</th>"
                + "<th>Node</th><th>Action</th></tr></thead><tbody>");
        for (RoomAdminBridge.OccupantView o : d.occupants()) {
            sb.append("<tr><td>").append(Html.escape(o.nick())).append("</td><td>")
                    .append(Html.escape(o.realJid().toString())).append("</td><td>").append(o.role().xmlName())
                    .append("</td><td>").append(o.affiliation().xmlName()).append("</td><td>")
                    .append(Html.escape(o.node() == null ? "this node" : o.node())).append("</td><td>");
            form(sb, csrf, "occupant", r, "<input type=\"hidden\" name=\"nick\" value=\"" + Html.escape(o.nick())
                    + "\"><input type=\"hidden\" name=\"jid\" value=\"" + Html.escape(o.realJid().bare().toString())
                    + "\">" + select("do", "kick", "kick", "ban", "visitor", "participant", "moderator")
                    + "<input name=\"reason\" placeholder=\"reason\" maxlength=\"500\">", "Apply");
            sb.append("</td></tr>");
        }
        sb.append("</tbody></table><h2>Affiliations</h2>");
        lists(sb, csrf, r, "owner", d.owners());
        lists(sb, csrf, r, "admin", d.admins());
        lists(sb, csrf, r, "member", d.members());
        lists(sb, csrf, r, "outcast", d.outcasts());
        sb.append("<h2>History</h2><p>").append(d.history().size()).append(" message(s) in memory.</p>");
        form(sb, csrf, "clear-history", r, "", "Clear history");
        sb.append("<h2>Destroy</h2>");
        form(sb, csrf, "destroy", r, "<input name=\"reason\" placeholder=\"reason\" maxlength=\"500\">"
                + "<input name=\"alternateVenue\" placeholder=\"alternate room (room@service)\">", "Destroy room");
    }

    private static void lists(StringBuilder sb, String csrf, String room, String aff, List<String> jids) {
        sb.append("<h3>").append(aff).append("s</h3><ul id=\"").append(aff).append("s\">");
        for (String j : jids) {
            sb.append("<li>").append(Html.escape(j)).append(' ');
            form(sb, csrf, "remove-affiliation", room, "<input type=\"hidden\" name=\"jid\" value=\"" + Html.escape(j)
                    + "\">", "Remove");
            sb.append("</li>");
        }
        sb.append("</ul>");
        form(sb, csrf, "add-affiliation", room, "<input type=\"hidden\" name=\"affiliation\" value=\"" + aff
                + "\"><textarea name=\"jids\" rows=\"1\" placeholder=\"JIDs, several separated by commas or lines\">"
                + "</textarea>", "Add " + aff + "s");
    }

    /**
     * Applies one form: {@code action} (create, update, occupant, add-affiliation, remove-affiliation,
     * clear-history, destroy) with its fields; recorded in the audit trail as {@code who} from {@code from}.
     * Returns the notice; a refused action's notice says why (nothing was changed).
     */
    public static String act(AdminApi api, Map<String, String> form, String who, String from) {
        String action = form.getOrDefault("action", "");
        String room = form.get("room");
        RoomAdmin admin = api.rooms();
        String notice;
        int status = 200;
        try {
            notice = switch (action) {
                case "create" -> {
                    RoomSettings s = new RoomSettings();
                    s.naturalName = blankToNull(form.get("naturalName"));
                    List<String> owners = jids(form.get("owners"));
                    s.owners = owners.isEmpty() ? null : owners;
                    yield "Created room " + admin.create(form.get("roomName"), s, false).roomName() + ".";
                }
                case "update" -> {
                    RoomSettings s = new RoomSettings();
                    s.naturalName = form.getOrDefault("naturalName", "");
                    s.description = form.getOrDefault("description", "");
                    s.maxUsers = parseMax(form.get("maxUsers"));
                    s.publicRoom = form.containsKey("publicRoom");
                    s.moderated = form.containsKey("moderated");
                    s.membersOnly = form.containsKey("membersOnly");
                    s.canAnyoneDiscoverJID = form.containsKey("canAnyoneDiscoverJID");
                    s.canOccupantsChangeSubject = form.containsKey("canOccupantsChangeSubject");
                    s.logEnabled = form.containsKey("logEnabled");
                    s.archivingEnabled = form.containsKey("archivingEnabled");
                    s.allowPM = form.get("allowPM");
                    admin.update(room, s, false);
                    yield "Saved; the occupants were told (104).";
                }
                case "occupant" -> occupant(admin, room, form);
                case "add-affiliation" -> {
                    Affiliation aff = Affiliation.fromXml(form.getOrDefault("affiliation", ""));
                    List<String> list = jids(form.get("jids"));
                    if (aff == null || aff == Affiliation.NONE || list.isEmpty()) {
                        throw new AdminException(AdminException.Problem.BAD_REQUEST, "give one JID or several");
                    }
                    for (String j : list) {
                        admin.setAffiliation(room, j, aff, null);
                    }
                    yield "Added " + list.size() + " " + aff.xmlName() + "(s).";
                }
                case "remove-affiliation" -> {
                    admin.setAffiliation(room, form.get("jid"), Affiliation.NONE, null);
                    yield "Removed " + form.get("jid") + ".";
                }
                case "clear-history" -> {
                    admin.clearHistory(room);
                    yield "History cleared.";
                }
                case "destroy" -> {
                    admin.destroy(room, blankToNull(form.get("reason")), blankToNull(form.get("alternateVenue")));
                    yield "Room " + room + " destroyed.";
                }
                default -> throw new AdminException(AdminException.Problem.BAD_REQUEST, "unknown action '" + action + "'");
            };
        } catch (AdminException e) {
            status = e.problem().httpStatus;
            notice = "Not done: " + e.getMessage();
        }
        api.audit().add(new AuditTrail.Entry(Instant.now(), who, from, "PAGE", action + (room == null ? ""
                : " " + room), status, status >= 400 ? notice : null));
        return notice;
    }

    private static String occupant(RoomAdmin admin, String room, Map<String, String> form) {
        String nick = form.get("nick");
        String reason = blankToNull(form.get("reason"));
        String what = form.getOrDefault("do", "");
        switch (what) {
            case "kick" -> admin.kick(room, nick, reason);
            case "ban" -> admin.ban(room, form.get("jid"), reason);
            case "visitor", "participant", "moderator" -> admin.setRole(room, nick, Role.fromXml(what), reason);
            default -> throw new AdminException(AdminException.Problem.BAD_REQUEST, "unknown occupant action");
        }
        return "Done: " + what + " " + nick + ".";
    }

    static List<String> jids(String text) {
        List<String> out = new ArrayList<>();
        if (text != null) {
            for (String part : text.split("[,\\s]+")) {
                if (!part.isBlank()) {
                    out.add(part.trim());
                }
            }
        }
        return out;
    }

    private static Integer parseMax(String v) {
        if (v == null || v.isBlank()) {
            return null;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new AdminException(AdminException.Problem.BAD_REQUEST, "maximum occupants must be a number");
        }
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    private static void form(StringBuilder sb, String csrf, String action, String room, String fields, String label) {
        sb.append("<form method=\"post\" class=\"").append(action).append("\" style=\"display:inline\">")
                .append("<input type=\"hidden\" name=\"csrf\" value=\"").append(Html.escape(csrf == null ? "" : csrf))
                .append("\"><input type=\"hidden\" name=\"action\" value=\"").append(action).append("\">");
        if (room != null) {
            sb.append("<input type=\"hidden\" name=\"room\" value=\"").append(Html.escape(room)).append("\">");
        }
        sb.append(fields).append("<button type=\"submit\">").append(Html.escape(label)).append("</button></form>");
    }

    private static String row(String label, String input) {
        return "<tr><td>" + label + "</td><td>" + input + "</td></tr>";
    }

    private static String check(String name, boolean on) {
        return "<input type=\"checkbox\" name=\"" + name + "\" value=\"1\"" + (on ? " checked" : "") + ">";
    }

    private static String select(String name, String current, String... options) {
        StringBuilder b = new StringBuilder("<select name=\"").append(name).append("\">");
        for (String o : options) {
            b.append("<option").append(o.equals(current) ? " selected" : "").append('>').append(o).append("</option>");
        }
        return b.append("</select>").toString();
    }

    private static String yes(boolean b) {
        return b ? "yes" : "no";
    }

    private static String url(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** For tests and hosts: a parameter map from a query string or form body. */
    public static Map<String, String> params(String raw) {
        return AdminApi.query(raw);
    }
}
