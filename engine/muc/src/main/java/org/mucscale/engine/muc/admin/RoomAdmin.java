package org.mucscale.engine.muc.admin;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.mucscale.engine.muc.Affiliation;
import org.mucscale.engine.muc.MucService;
import org.mucscale.engine.muc.Role;
import org.mucscale.engine.muc.RoomAdminBridge;
import org.mucscale.engine.muc.RoomAdminBridge.Exchange;
import org.mucscale.engine.muc.RoomAdminBridge.Expect;
import org.mucscale.engine.muc.RoomAdminBridge.Outcome;
import org.mucscale.engine.muc.RoomAdminBridge.RoomView;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * Room administration for operators: the one API behind the HTTP API and the admin pages, host-independent.
 *
 * <p>Every change is an XEP-0045 request run through the room's own protocol handlers on the room's own thread (see
 * {@link RoomAdminBridge}), made by the service itself as a room owner: occupants see what the same change by an
 * owner or moderator gives them, and the protocol's checks apply (the last owner cannot go: CONFLICT; admins and
 * owners cannot be kicked: NOT_ALLOWED). What the protocol leaves to the request as a whole is checked here first,
 * so that a refused request changes nothing: one JID in two affiliation lists, an empty owner list, a malformed JID.
 *
 * <p>Thread-safe and stateless; every method blocks its caller until the room thread has answered. Refusals are
 * {@link AdminException}s. A room served by another cluster node, or moving, is refused with ELSEWHERE and nothing
 * changes: the admin API sends such calls to the room's owner (runtime {@code AdminForwarding}).
 */
public final class RoomAdmin {
    static final String NS_MUC = "http://jabber.org/protocol/muc";
    static final String NS_ADMIN = "http://jabber.org/protocol/muc#admin";
    static final String NS_OWNER = "http://jabber.org/protocol/muc#owner";
    static final String NS_DATA = "jabber:x:data";
    static final String NS_STANZAS = "urn:ietf:params:xml:ns:xmpp-stanzas";
    /** Marks a message the service sent into a room on an operator's behalf (an announcement, not a user's words). */
    public static final String NS_ANNOUNCEMENT = "urn:mucscale:announcement:0";
    /** Largest page a listing answers. */
    public static final int MAX_PAGE = 1000;
    /** History messages a room read returns at most. */
    public static final int HISTORY_MAX = 50;

    private final RoomAdminBridge bridge;

    public RoomAdmin(MucService muc) {
        this.bridge = new RoomAdminBridge(muc);
    }

    /** The service's domain (rooms are {@code roomName@this}). */
    public String serviceDomain() {
        return bridge.serviceJid().domain();
    }

    // ------------------------------------------------------------------------------------------------ reads

    /**
     * Rooms whose name, natural name or description contains {@code search} (case-insensitive; null or empty: all),
     * ordered by room name, the first {@code limit} after {@code after} (a room name; null: from the start). Keyset
     * paging: a page never shifts when rooms before it come or go.
     */
    public Page<RoomSummary> list(String search, String after, int limit) {
        if (limit < 1 || limit > MAX_PAGE) {
            throw new AdminException(AdminException.Problem.BAD_REQUEST,
                    "limit must be between 1 and " + MAX_PAGE + ", was " + limit);
        }
        String needle = search == null || search.isBlank() ? null : search.trim();
        String from = after == null || after.isEmpty() ? null : after.toLowerCase(Locale.ROOT);
        RoomAdminBridge.PageScan scan = bridge.page(needle, from, limit);
        List<RoomView> views = new ArrayList<>(scan.views());
        views.sort(Comparator.comparing(v -> v.jid().local()));
        List<RoomSummary> items = new ArrayList<>(Math.min(limit, views.size()));
        for (int i = 0; i < views.size() && i < limit; i++) {
            items.add(summary(views.get(i)));
        }
        return new Page<>(items, scan.total(), scan.beyond() > limit ? items.get(items.size() - 1).roomName() : null);
    }

    /** The room with its occupants, affiliations and newest history. */
    public RoomDetails room(String roomName) {
        Jid room = roomJid(roomName);
        RoomView[] into = new RoomView[1];
        Exchange e = bridge.read(room, HISTORY_MAX, into);
        refuseUnless(e.outcome(), room);
        return details(into[0]);
    }

    /** The rooms a user (bare JID) is in or affiliated with, by room name. */
    public List<UserRoom> roomsOf(String userJid) {
        Jid user = bareJid(userJid, "jid");
        List<UserRoom> out = new ArrayList<>();
        for (RoomView v : bridge.scan(true)) {
            List<String> nicks = new ArrayList<>();
            for (RoomAdminBridge.OccupantView o : v.occupants()) {
                if (o.realJid().bare().equals(user) && !nicks.contains(o.nick())) {
                    nicks.add(o.nick());
                }
            }
            Affiliation aff = v.affiliations().getOrDefault(user, Affiliation.NONE);
            if (!nicks.isEmpty() || aff != Affiliation.NONE) {
                out.add(new UserRoom(v.jid().local(), aff.xmlName(), nicks));
            }
        }
        out.sort(Comparator.comparing(UserRoom::roomName));
        return out;
    }

    /**
     * Rooms with no occupant and no message in their memory newer than {@code idle} ({@code idle} zero: every empty
     * room). A room's memory holds its newest history messages; a room without any counts as unused.
     */
    public List<String> unused(Duration idle, long nowMillis) {
        long cutoff = nowMillis - idle.toMillis();
        List<String> out = new ArrayList<>();
        for (RoomView v : bridge.scan(false)) {
            if (v.occupantCount() == 0 && v.lastMessageMillis() <= cutoff) {
                out.add(v.jid().local());
            }
        }
        out.sort(null);
        return out;
    }

    /**
     * Destroys every room {@link #unused} finds, each on its own thread with the same checks as {@link #destroy} (a
     * room someone joined meanwhile is kept). Returns the rooms destroyed.
     */
    public List<String> destroyUnused(Duration idle, long nowMillis, String reason) {
        List<String> destroyed = new ArrayList<>();
        long cutoff = nowMillis - idle.toMillis();
        for (String name : unused(idle, nowMillis)) {
            Exchange e = bridge.exchange(roomJid(name), Expect.EXISTS, v -> v.occupantCount() == 0
                    && v.lastMessageMillis() <= cutoff ? List.of(destroyIq(v.jid(), reason, null)) : List.of());
            if (e.outcome() == Outcome.DONE && !e.replies().isEmpty()) {
                answer(e, roomJid(name));
                destroyed.add(name);
            }
        }
        return destroyed;
    }

    // ------------------------------------------------------------------------------------------------ changes

    /**
     * Creates a room from the service's template plus {@code settings}: persistent unless asked otherwise is not
     * possible (a temporary room without occupants ends at once, XEP-0045), so {@code persistent=false} is refused.
     * Without owners the room has no explicit owner: the service administrators own it, as they own every room
     * (refused when the service has none). An existing room is CONFLICT unless {@code upsert}, which then
     * applies {@code settings} as a full update.
     */
    public RoomDetails create(String roomName, RoomSettings settings, boolean upsert) {
        Jid room = roomJid(roomName);
        if (Boolean.FALSE.equals(settings.persistent)) {
            throw new AdminException(AdminException.Problem.BAD_REQUEST, "persistent: a room created without "
                    + "occupants must be persistent (a temporary room ends when its last occupant leaves)");
        }
        Affiliations lists = Affiliations.check(settings);
        List<Jid> owners = lists.owners;
        if (owners == null) {
            owners = new ArrayList<>(bridge.serviceAdmins());
            owners.removeIf(j -> j.domain().endsWith(".mucscale.invalid"));
        }
        List<Jid> createOwners = owners;
        Exchange e = bridge.exchange(room, Expect.ABSENT, absent -> {
            if (createOwners.isEmpty()) { // only now: an upsert of an existing room needs no owners
                throw new AdminException(AdminException.Problem.BAD_REQUEST,
                        "owners: a room needs at least one owner, and the service has no administrators to default to");
            }
            List<XmlElement> script = new ArrayList<>();
            script.add(XmlElement.builder("presence").attribute("to", room + "/" + RoomAdminBridge.ACTOR_NICK)
                    .child(XmlElement.builder("x", NS_MUC).child(XmlElement.builder("history")
                            .attribute("maxstanzas", "0").build()).build()).build());
            Map<String, List<String>> form = Forms.fields(settings, bridge.defaults(), true);
            form.put("muc#roomconfig_persistentroom", List.of("1"));
            form.put("muc#roomconfig_roomowners", Forms.texts(createOwners));
            if (lists.admins != null) {
                form.put("muc#roomconfig_roomadmins", Forms.texts(lists.admins));
            }
            script.add(Forms.submit(room, form));
            script.addAll(Affiliations.items(room, lists.members, Affiliation.MEMBER, Map.of()));
            script.addAll(Affiliations.items(room, lists.outcasts, Affiliation.OUTCAST, Map.of()));
            script.add(XmlElement.builder("presence").attribute("to", room + "/" + RoomAdminBridge.ACTOR_NICK)
                    .attribute("type", "unavailable").build());
            return script;
        });
        if (e.outcome() == Outcome.EXISTS) {
            if (!upsert) {
                throw new AdminException(AdminException.Problem.CONFLICT, "room '" + room.local()
                        + "' already exists (ask for an upsert to update it instead)");
            }
            return update(roomName, settings, true);
        }
        try {
            answer(e, room);
        } catch (AdminException refused) {
            // a step after the join failed: a room still locked (its form refused) is taken away again
            bridge.exchange(room, Expect.EXISTS, v -> v.locked() ? List.of(destroyIq(room, null, null)) : List.of());
            throw refused;
        }
        return room(roomName);
    }

    /**
     * Changes a room's configuration and affiliation lists. {@code full}: configuration fields not given go back to
     * the service's template (affiliation lists not given stay as they are either way). Occupants get status 104
     * when the configuration changed, and the presence changes the new affiliations bring (321, 301 ...).
     */
    public RoomDetails update(String roomName, RoomSettings settings, boolean full) {
        Jid room = roomJid(roomName);
        if (Boolean.FALSE.equals(settings.persistent)) {
            throw new AdminException(AdminException.Problem.BAD_REQUEST,
                    "persistent: an administered room stays persistent; destroy it instead");
        }
        Affiliations lists = Affiliations.check(settings);
        Exchange e = bridge.exchange(room, Expect.EXISTS, current -> {
            List<XmlElement> script = new ArrayList<>();
            Map<String, List<String>> form = Forms.fields(settings, bridge.defaults(), full);
            if (!form.isEmpty()) {
                script.add(Forms.submit(room, form));
            }
            script.addAll(lists.changes(room, current.affiliations()));
            return script;
        });
        answer(e, room);
        return room(roomName);
    }

    /** Destroys the room: occupants get {@code <destroy/>} with the reason and the alternate venue (a room JID). */
    public void destroy(String roomName, String reason, String alternateVenue) {
        Jid room = roomJid(roomName);
        Jid alt = null;
        if (alternateVenue != null && !alternateVenue.isBlank()) {
            alt = Jid.tryParse(alternateVenue.trim());
            if (alt == null || alt.local() == null || !alt.isBare()) {
                throw new AdminException(AdminException.Problem.BAD_REQUEST,
                        "alternateVenue: '" + alternateVenue + "' is not a room address such as room@service");
            }
        }
        Jid venue = alt;
        answer(bridge.exchange(room, Expect.EXISTS, v -> List.of(destroyIq(room, reason, venue))), room);
    }

    /** Kicks every session under {@code nick} (status 307 with the reason). Admins and owners cannot be kicked. */
    public void kick(String roomName, String nick, String reason) {
        setRole(roomName, nick, Role.NONE, reason);
    }

    /** Changes an occupant's role: none (kick), visitor, participant or moderator, as XEP-0045 allows. */
    public void setRole(String roomName, String nick, Role role, String reason) {
        Jid room = roomJid(roomName);
        if (nick == null || nick.isBlank()) {
            throw new AdminException(AdminException.Problem.BAD_REQUEST, "nick: the occupant's nickname is missing");
        }
        XmlElement.Builder item = XmlElement.builder("item").attribute("nick", nick).attribute("role", role.xmlName());
        if (reason != null && !reason.isBlank()) {
            item.textChild("reason", reason);
        }
        answer(bridge.exchange(room, Expect.EXISTS, v -> List.of(adminIq(room, item.build()))), room);
    }

    /** Bans a user (bare JID): outcast, removed from the room with status 301. */
    public void ban(String roomName, String userJid, String reason) {
        setAffiliation(roomName, userJid, Affiliation.OUTCAST, reason);
    }

    /** Sets a user's affiliation (NONE removes it); occupants see the change (321 where it removes them). */
    public void setAffiliation(String roomName, String userJid, Affiliation affiliation, String reason) {
        Jid room = roomJid(roomName);
        Jid user = bareJid(userJid, "jid");
        XmlElement.Builder item = XmlElement.builder("item").attribute("jid", user.toString())
                .attribute("affiliation", affiliation.xmlName());
        if (reason != null && !reason.isBlank()) {
            item.textChild("reason", reason);
        }
        answer(bridge.exchange(room, Expect.EXISTS, v -> List.of(adminIq(room, item.build()))), room);
    }

    /** Most invitees one call may name. */
    public static final int MAX_INVITEES = 1000;

    /**
     * Invites users (JIDs, bare or full) to the room: each gets a mediated invitation from the room's address with
     * the reason (XEP-0045 7.8.2). In a members-only room each invitee not yet affiliated is first made a member (as
     * the room does for an invitation by one of its admins), in the same turn: otherwise the invitation could not be
     * followed. An outcast is not invited (CONFLICT: lift the ban first), and then nobody is: a refused request
     * changes nothing. Returns the addresses invited, without repeats, in the order given.
     */
    public List<String> invite(String roomName, List<String> jids, String reason) {
        Jid room = roomJid(roomName);
        if (jids == null || jids.isEmpty()) {
            throw new AdminException(AdminException.Problem.BAD_REQUEST,
                    "jidsToInvite: name at least one user to invite, such as user@example.org");
        }
        if (jids.size() > MAX_INVITEES) {
            throw new AdminException(AdminException.Problem.BAD_REQUEST,
                    "jidsToInvite: at most " + MAX_INVITEES + " users per call, were " + jids.size());
        }
        Set<Jid> invitees = new LinkedHashSet<>();
        for (String text : jids) {
            Jid j = text == null ? null : Jid.tryParse(text.trim());
            if (j == null || j.local() == null) {
                throw new AdminException(AdminException.Problem.BAD_REQUEST, "jidsToInvite: '" + text
                        + "' is not a user's address such as user@example.org (user and group names are not looked"
                        + " up)");
            }
            if (j.bare().equals(room) || j.domain().equals(room.domain())) {
                throw new AdminException(AdminException.Problem.BAD_REQUEST,
                        "jidsToInvite: '" + text + "' is a room of this service, not a user");
            }
            invitees.add(j);
        }
        List<Jid> to = List.copyOf(invitees);
        answer(bridge.invite(room, to, reason, v -> {
            if (!v.membersOnly()) {
                return List.of();
            }
            List<XmlElement> items = new ArrayList<>();
            Set<Jid> added = new LinkedHashSet<>();
            for (Jid j : to) {
                Affiliation a = v.affiliations().getOrDefault(j.bare(), Affiliation.NONE);
                if (a == Affiliation.OUTCAST) {
                    throw new AdminException(AdminException.Problem.CONFLICT, j.bare() + " is banned from '"
                            + room.local() + "' (an outcast): remove the ban before inviting them");
                }
                if (a == Affiliation.NONE && added.add(j.bare())) {
                    items.add(XmlElement.builder("item").attribute("jid", j.bare().toString())
                            .attribute("affiliation", Affiliation.MEMBER.xmlName()).build());
                }
            }
            return items.isEmpty() ? List.of() : List.of(adminIq(room, items.toArray(XmlElement[]::new)));
        }), room);
        List<String> out = new ArrayList<>(to.size());
        for (Jid j : to) {
            out.add(j.toString());
        }
        return out;
    }

    /**
     * Sends {@code body} into the room as the room: a groupchat message from the room's bare address (what clients
     * show as a room notice), marked {@code <announcement xmlns='urn:mucscale:announcement:0'/>}. Not kept in history.
     */
    public void announce(String roomName, String body) {
        Jid room = roomJid(roomName);
        if (body == null || body.isBlank()) {
            throw new AdminException(AdminException.Problem.BAD_REQUEST, "body: the message is empty");
        }
        XmlElement message = XmlElement.builder("message").attribute("from", room.toString())
                .attribute("type", "groupchat").attribute("id", "announcement-" + java.util.UUID.randomUUID())
                .textChild("body", body)
                .child(XmlElement.builder("announcement", NS_ANNOUNCEMENT).build()).build();
        refuseUnless(bridge.broadcast(room, message), room);
    }

    /** Empties the history the room sends joiners; its room log and archive keep their rows. */
    public void clearHistory(String roomName) {
        Jid room = roomJid(roomName);
        refuseUnless(bridge.clearHistory(room), room);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static XmlElement adminIq(Jid room, XmlElement... items) {
        XmlElement.Builder q = XmlElement.builder("query", NS_ADMIN);
        for (XmlElement i : items) {
            q.child(i);
        }
        return XmlElement.builder("iq").attribute("type", "set").attribute("to", room.toString()).child(q.build())
                .build();
    }

    private static XmlElement destroyIq(Jid room, String reason, Jid alternate) {
        XmlElement.Builder d = XmlElement.builder("destroy");
        if (alternate != null) {
            d.attribute("jid", alternate.toString());
        }
        if (reason != null && !reason.isBlank()) {
            d.textChild("reason", reason);
        }
        return XmlElement.builder("iq").attribute("type", "set").attribute("to", room.toString())
                .child(XmlElement.builder("query", NS_OWNER).child(d.build()).build()).build();
    }

    /** The room's address for a room name given by an operator: lower-cased, a valid local part. */
    Jid roomJid(String roomName) {
        if (roomName == null || roomName.isBlank()) {
            throw new AdminException(AdminException.Problem.BAD_REQUEST, "roomName: the room name is missing");
        }
        String local = roomName.trim().toLowerCase(Locale.ROOT);
        Jid jid = local.contains("@") || local.contains("/") ? null
                : Jid.tryParse(local + "@" + bridge.serviceJid().domain());
        if (jid == null || !local.equals(jid.local())) {
            throw new AdminException(AdminException.Problem.BAD_REQUEST,
                    "roomName: '" + roomName + "' is not a valid room name (no spaces, '@', '/', quotes or '<>&')");
        }
        return jid;
    }

    static Jid bareJid(String text, String field) {
        Jid j = text == null ? null : Jid.tryParse(text.trim());
        if (j == null || j.domain() == null) {
            throw new AdminException(AdminException.Problem.BAD_REQUEST,
                    field + ": '" + text + "' is not a valid JID such as user@example.org");
        }
        return j.bare();
    }

    private static void refuseUnless(Outcome outcome, Jid room) {
        switch (outcome) {
            case DONE -> {
            }
            case NOT_FOUND -> throw new AdminException(AdminException.Problem.NOT_FOUND,
                    "no room '" + room.local() + "' on " + room.domain());
            case EXISTS -> throw new AdminException(AdminException.Problem.CONFLICT,
                    "room '" + room.local() + "' already exists");
            case ELSEWHERE -> throw new AdminException(AdminException.Problem.ELSEWHERE,
                    "room '" + room.local() + "' is served by another cluster node or is moving; try again shortly");
            default -> throw new IllegalStateException(outcome.name());
        }
    }

    /** Throws the room's first error answer (or a refused expectation) as an AdminException. */
    private static void answer(Exchange e, Jid room) {
        refuseUnless(e.outcome(), room);
        for (XmlElement r : e.replies()) {
            if (r != null && "error".equals(r.attribute("type"))) {
                throw fromError(r);
            }
        }
    }

    /** The room's XMPP error as an AdminException: its condition decides the problem, its text is the message. */
    static AdminException fromError(XmlElement reply) {
        XmlElement err = reply.child("error");
        String condition = "undefined-condition";
        String text = null;
        if (err != null) {
            for (XmlElement c : err.elements()) {
                if ("text".equals(c.name())) {
                    text = c.text();
                } else if (NS_STANZAS.equals(c.namespace())) {
                    condition = c.name();
                }
            }
        }
        AdminException.Problem p = switch (condition) {
            case "item-not-found" -> AdminException.Problem.NOT_FOUND;
            case "conflict" -> AdminException.Problem.CONFLICT;
            case "forbidden", "not-allowed", "registration-required", "not-authorized" ->
                    AdminException.Problem.NOT_ALLOWED;
            case "resource-constraint", "service-unavailable", "internal-server-error", "remote-server-timeout" ->
                    AdminException.Problem.UNAVAILABLE;
            default -> AdminException.Problem.BAD_REQUEST;
        };
        return new AdminException(p, text != null ? text : condition);
    }

    private RoomSummary summary(RoomView v) {
        return new RoomSummary(v.jid().local(), v.name(), v.description(), v.persistent(), v.isPublic(),
                v.membersOnly(), v.moderated(), v.archivingEnabled(), v.occupantCount(), v.maxOccupants(),
                v.lastMessageMillis(), null);
    }

    private static RoomDetails details(RoomView v) {
        Map<Affiliation, List<String>> lists = new LinkedHashMap<>();
        for (Affiliation a : Affiliation.values()) {
            lists.put(a, new ArrayList<>());
        }
        v.affiliations().forEach((jid, a) -> lists.get(a).add(jid.toString()));
        lists.values().forEach(l -> l.sort(null));
        Set<String> roles = new LinkedHashSet<>();
        for (Role r : EnumSet.of(Role.MODERATOR, Role.PARTICIPANT, Role.VISITOR)) {
            if (v.presenceBroadcastRoles().contains(r)) {
                roles.add(r.xmlName());
            }
        }
        return new RoomDetails(v.jid().local(), v.name(), v.description(), v.subject(), v.persistent(), v.isPublic(),
                v.moderated(), v.membersOnly(), v.passwordProtected(), v.maxOccupants(), v.nonAnonymous(),
                v.participantsChangeSubject(), v.allowPrivateMessages(), v.loggingEnabled(), v.archivingEnabled(),
                roles, v.locked(), lists.get(Affiliation.OWNER), lists.get(Affiliation.ADMIN),
                lists.get(Affiliation.MEMBER), lists.get(Affiliation.OUTCAST), v.occupants(), v.history(),
                v.lastMessageMillis());
    }
}
