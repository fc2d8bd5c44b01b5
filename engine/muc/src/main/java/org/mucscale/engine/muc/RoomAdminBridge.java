package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * The MUC engine's side of room administration ({@code org.mucscale.engine.muc.admin.RoomAdmin} is the API every
 * surface uses): it runs an administration request on the room's own thread and nowhere else, so the room keeps its
 * single writer.
 *
 * <p>A change is not written twice: it is a short <em>script</em> of ordinary XEP-0045 stanzas (a muc#admin item, a
 * muc#owner form or destroy, a join) sent from {@link #ACTOR}, a service administrator on a reserved domain
 * ({@value #ACTOR_DOMAIN}) that never leaves the engine, and run one after the other through the room's own protocol
 * handlers in one turn of the room thread. The occupants therefore see exactly what the same change by an owner or
 * moderator gives them (307, 301, 321, 104, {@code <destroy/>} ...), the protocol's checks apply (the last owner,
 * who may kick whom), and nothing else runs in the room between the script's steps. The room's answers to the actor
 * are caught by {@link AdminReplies} and returned; the script stops at the first error.
 *
 * <p>Threading: every public method blocks its caller (a servlet or HTTP thread, never a room thread) until the room
 * thread has run the request, at most the room thread's command wait. Reads are copies made on the room thread.
 */
public final class RoomAdminBridge {
    public static final String ACTOR_DOMAIN = "admin.mucscale.invalid";
    /** The nickname the actor joins with for the moment it takes to create a room. */
    public static final String ACTOR_NICK = "mucscale-admin";
    /** The one instance of the actor's address: {@link AdminReplies} recognises it by reference on the fan-out path. */
    static final Jid ACTOR = Jid.of("room-admin", ACTOR_DOMAIN, "api");
    static final String ACTOR_TEXT = ACTOR.toString();
    static final Jid ACTOR_BARE = ACTOR.bare();

    /** What the script expects of the room before it runs. */
    public enum Expect { EXISTS, ABSENT }

    /**
     * How the request went: {@code DONE} (the script ran; see its replies), {@code NOT_FOUND} / {@code EXISTS} (the
     * expectation failed, nothing ran), {@code ELSEWHERE} (another cluster node serves the room, or it is moving).
     */
    public enum Outcome { DONE, NOT_FOUND, EXISTS, ELSEWHERE }

    /** The outcome and, for DONE, the room's answer to each script stanza (null for a stanza it did not answer). */
    public record Exchange(Outcome outcome, List<XmlElement> replies) {
    }

    /** One occupant session as the room holds it; {@code node} is the cluster node of its session (null: here). */
    public record OccupantView(String nick, Jid realJid, Role role, Affiliation affiliation, String occupantId,
                               String node) {
    }

    /** One message of the room's in-memory history. */
    public record HistoryView(long timestampMillis, String nick, String body, String subject, String stanzaId) {
    }

    /**
     * A copy of a room made on its thread. Summaries (listing) carry no occupants, affiliations or history (empty
     * collections); {@code lastMessageMillis} is the newest history message's time, 0 when the history is empty.
     */
    public record RoomView(Jid jid, String name, String description, String subject, boolean isPublic,
                           boolean persistent, boolean moderated, boolean membersOnly, boolean passwordProtected,
                           int maxOccupants, boolean nonAnonymous, boolean participantsChangeSubject,
                           String allowPrivateMessages, boolean loggingEnabled, boolean archivingEnabled,
                           Set<Role> presenceBroadcastRoles, Set<Role> memberListRoles, boolean locked,
                           int occupantCount, long lastMessageMillis, Map<Jid, Affiliation> affiliations,
                           List<OccupantView> occupants, List<HistoryView> history) {
    }

    private final MucService muc;
    private final AdminReplies replies;

    public RoomAdminBridge(MucService muc) {
        this.muc = muc;
        this.replies = muc.adminReplies();
    }

    public Jid serviceJid() {
        return muc.serviceJid();
    }

    /** The actor's address, as rooms see it (the {@code from} of every script stanza). */
    public static Jid actor() {
        return ACTOR;
    }

    /** The service's room administrators (owners of every room), from the current configuration. */
    public Set<Jid> serviceAdmins() {
        return muc.config().serviceAdmins;
    }

    /** What a new room gets before any override: the service's room defaults, as a view of a room with no state. */
    public RoomView defaults() {
        MucConfig c = muc.config();
        return new RoomView(null, "", "", "", c.defaultPublic, c.defaultPersistent, false, false, false,
                c.defaultMaxOccupants, c.defaultNonAnonymous, c.defaultParticipantsChangeSubject, "anyone", false,
                c.archiveByDefault, Set.of(Role.MODERATOR, Role.PARTICIPANT, Role.VISITOR), Set.of(), false, 0, 0,
                Map.of(), List.of(), List.of());
    }

    /**
     * Runs {@code script} on the room's thread: it gets the room's view (null when absent) and returns the stanzas to
     * run; each needs its {@code to} (the room, or room/nick for a join); {@code from} and {@code id} are set here.
     */
    public Exchange exchange(Jid room, Expect expect, Function<RoomView, List<XmlElement>> script) {
        return muc.onRoomThread(room, shard -> exchangeHere(shard, room, expect, script));
    }

    /** {@link #exchange} on the room's thread (the caller is on it). */
    private Exchange exchangeHere(RoomShard shard, Jid room, Expect expect,
                                  Function<RoomView, List<XmlElement>> script) {
        Outcome where = whereIs(shard, room);
        if (where != null) {
            return new Exchange(where, List.of());
        }
        Room r = shard.rooms.get(room);
        if (expect == Expect.EXISTS && r == null) {
            return new Exchange(Outcome.NOT_FOUND, List.of());
        }
        if (expect == Expect.ABSENT && r != null) {
            return new Exchange(Outcome.EXISTS, List.of());
        }
        List<XmlElement> stanzas = script.apply(r == null ? null : view(shard.ctx, r, true, 0));
        List<XmlElement> answers = new ArrayList<>(stanzas.size());
        for (XmlElement s : stanzas) {
            XmlElement reply = run(shard, room, s);
            answers.add(reply);
            if (isError(reply)) {
                break;
            }
        }
        return new Exchange(Outcome.DONE, answers);
    }

    private static boolean isError(XmlElement reply) {
        return reply != null && "error".equals(reply.attribute("type"));
    }

    /**
     * Invitations sent by the room itself (XEP-0045 7.8.2, mediated; as Openfire's room sends them for its admin
     * console and the REST API plugin): runs {@code script} as {@link #exchange} does (a members-only room's new
     * members) and, when every step was accepted, sends each invitee {@code <message from='room'><x
     * xmlns='muc#user'><invite from='room'><reason/></invite><password/></x></message>}, in the same turn of the room
     * thread: the invitee is a member by the time the invitation can reach them, and no invitation goes out for a
     * refused request. The room records no pending invitation (the actor cannot take a decline), so a decline is
     * refused as one without an invitation is.
     */
    public Exchange invite(Jid room, List<Jid> invitees, String reason,
                           Function<RoomView, List<XmlElement>> script) {
        return muc.onRoomThread(room, shard -> {
            Exchange e = exchangeHere(shard, room, Expect.EXISTS, script);
            if (e.outcome() != Outcome.DONE || e.replies().stream().anyMatch(RoomAdminBridge::isError)) {
                return e;
            }
            String password = shard.rooms.get(room).settings().password();
            XmlElement.Builder invite = XmlElement.builder("invite").attribute("from", room.toString());
            if (reason != null && !reason.isBlank()) {
                invite.textChild("reason", reason);
            }
            XmlElement.Builder x = XmlElement.builder("x", "http://jabber.org/protocol/muc#user")
                    .child(invite.build());
            if (password != null && !password.isEmpty()) {
                x.textChild("password", password);
            }
            XmlElement payload = x.build();
            for (Jid to : invitees) {
                shard.ctx.delivery.send(XmlElement.builder("message").attribute("from", room.toString())
                        .attribute("to", to.toString()).attribute("id", "invite-" + UUID.randomUUID())
                        .child(payload).build());
            }
            return e;
        });
    }

    /** Runs one script stanza through the room's own handling, now, on this (the room's) thread. */
    private XmlElement run(RoomShard shard, Jid room, XmlElement s) {
        String id = "admin-" + UUID.randomUUID();
        XmlElement stanza = s.toBuilder().attribute("from", ACTOR_TEXT).attribute("id", id).build();
        XmlElement[] slot = new XmlElement[1];
        replies.await(id, slot);
        try {
            Jid to = Jid.parse(stanza.attribute("to"));
            shard.runNow(new Command(stanza, ACTOR, to, room, shard.ctx.clock.nanoTime()));
        } finally {
            replies.forget(id);
        }
        return slot[0];
    }

    /** A copy of the room with its occupants, affiliations and the newest {@code historyMax} messages; null: none. */
    public Exchange read(Jid room, int historyMax, RoomView[] into) {
        return muc.onRoomThread(room, shard -> {
            Outcome where = whereIs(shard, room);
            if (where != null) {
                return new Exchange(where, List.of());
            }
            Room r = shard.rooms.get(room);
            if (r == null) {
                return new Exchange(Outcome.NOT_FOUND, List.of());
            }
            into[0] = view(shard.ctx, r, true, historyMax);
            return new Exchange(Outcome.DONE, List.of());
        });
    }

    /**
     * Every room of this node, one copy per room, made on each room thread in turn (a thread copies its own rooms
     * only). {@code full}: with occupants and affiliations (no history); otherwise summaries.
     */
    public List<RoomView> scan(boolean full) {
        List<RoomView> out = new ArrayList<>();
        for (List<RoomView> part : muc.onEachShard(shard -> {
            List<RoomView> views = new ArrayList<>(shard.rooms.size());
            for (Room r : shard.rooms.values()) {
                views.add(view(shard.ctx, r, full, 0));
            }
            return views;
        })) {
            out.addAll(part);
        }
        return out;
    }

    /**
     * One listing page as the room threads found it: the candidates, all matches, and matches after the key (without
     * a search counted only up to the page size plus one: enough to tell whether there is a next page).
     */
    public record PageScan(List<RoomView> views, int total, int beyond) {
    }

    /**
     * The first {@code limit} rooms by name after {@code after} (exclusive; null: from the start) whose name, natural
     * name or description contains {@code needle} (case-insensitive; null: all), with the number of matches in all
     * and after the key. Each room thread selects from its own rooms with a bounded heap and copies only those it
     * keeps, so a page costs one pass over the names, not a copy of every room; the caller merges the threads' picks.
     */
    public PageScan page(String needle, String after, int limit) {
        List<RoomView> views = new ArrayList<>();
        int total = 0;
        int beyond = 0;
        for (PageScan part : muc.onEachShard(shard -> {
            if (needle == null) { // the name index: limit + 1 names read, not every room
                java.util.Collection<Room> from = after == null ? shard.byName.values()
                        : shard.byName.tailMap(after, false).values();
                List<RoomView> picked = new ArrayList<>(limit);
                int taken = 0;
                for (Room r : from) {
                    if (++taken > limit) {
                        break;
                    }
                    picked.add(view(shard.ctx, r, false, 0));
                }
                return new PageScan(picked, shard.rooms.size(), taken);
            }
            java.util.PriorityQueue<Room> keep = new java.util.PriorityQueue<>(limit + 1,
                    (a, b) -> b.jid.local().compareTo(a.jid.local())); // largest name on top
            int all = 0;
            int later = 0;
            for (Room r : shard.rooms.values()) {
                if (needle != null && !containsIgnoreCase(r.jid.local(), needle)
                        && !containsIgnoreCase(r.settings().name(), needle)
                        && !containsIgnoreCase(r.settings().description(), needle)) {
                    continue;
                }
                all++;
                String name = r.jid.local();
                if (after != null && name.compareTo(after) <= 0) {
                    continue;
                }
                later++;
                if (keep.size() < limit) {
                    keep.add(r);
                } else if (name.compareTo(keep.peek().jid.local()) < 0) {
                    keep.poll();
                    keep.add(r);
                }
            }
            List<RoomView> picked = new ArrayList<>(keep.size());
            for (Room r : keep) {
                picked.add(view(shard.ctx, r, false, 0));
            }
            return new PageScan(picked, all, later);
        })) {
            views.addAll(part.views());
            total += part.total();
            beyond += part.beyond();
        }
        return new PageScan(views, total, beyond);
    }

    private static boolean containsIgnoreCase(String haystack, String needle) {
        if (haystack == null) {
            return false;
        }
        for (int i = 0, last = haystack.length() - needle.length(); i <= last; i++) {
            if (haystack.regionMatches(true, i, needle, 0, needle.length())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Sends {@code message} (a groupchat stanza whose {@code from} is the room's bare address) to every occupant of
     * the room, as the room's own messages are sent: rendered once. It is not kept in the history.
     */
    public Outcome broadcast(Jid room, XmlElement message) {
        return muc.onRoomThread(room, shard -> {
            Outcome where = whereIs(shard, room);
            if (where != null) {
                return where;
            }
            Room r = shard.rooms.get(room);
            if (r == null) {
                return Outcome.NOT_FOUND;
            }
            r.messages.broadcastFromRoom(message);
            return Outcome.DONE;
        });
    }

    /** Empties the room's in-memory history (what joiners are sent); the room log and archive keep their rows. */
    public Outcome clearHistory(Jid room) {
        return muc.onRoomThread(room, shard -> {
            Outcome where = whereIs(shard, room);
            if (where != null) {
                return where;
            }
            Room r = shard.rooms.get(room);
            if (r == null) {
                return Outcome.NOT_FOUND;
            }
            r.messages.clearHistory();
            return Outcome.DONE;
        });
    }

    /** ELSEWHERE when another node serves the room or it is on its way here; null when this thread has the say. */
    private static Outcome whereIs(RoomShard shard, Jid room) {
        // a room not here yet that is on its way (a hand-off after a view change) is asked for as a stanza asks
        // (RoomShard.handle): before, a read or change in that moment said 404, and a create made a second room
        if (shard.awaiting.containsKey(room) || !shard.ctx.placement.servesHere(room)
                || shard.rooms.get(room) == null && shard.ctx.placement.arriving(room)) {
            return Outcome.ELSEWHERE;
        }
        return null;
    }

    /** The stand-in for the actor in the room's muc#admin handling: a moderator and owner that is no occupant. */
    static Occupant standIn(Jid from) {
        if (!ACTOR.equals(from)) {
            return null;
        }
        Occupant o = new Occupant(ACTOR_NICK, null, ACTOR, Role.MODERATOR, Affiliation.OWNER, null, null);
        o.nick = null; // no <actor nick/> in what the occupants see: the service acted, not an occupant
        return o;
    }

    private static RoomView view(ServiceContext ctx, Room r, boolean full, int historyMax) {
        List<OccupantView> occupants = List.of();
        Map<Jid, Affiliation> affiliations = Map.of();
        if (full) {
            occupants = new ArrayList<>(r.occupantCount());
            for (int i = 0; i < r.occupantCount(); i++) {
                Occupant o = r.occupantAt(i);
                occupants.add(new OccupantView(o.nick, o.realJid, o.role, o.affiliation, o.occupantId,
                        ctx.placement.sessionNode(o.realJid)));
            }
            affiliations = r.snapshot().affiliations();
        }
        long last = r.messages.lastMessageMillis();
        List<HistoryView> history = List.of();
        if (historyMax > 0) { // a listing copies no history: one room at a time, 100,000 of them per page
            List<TailRecord> tail = r.replica.historyAsTail();
            history = new ArrayList<>(Math.min(historyMax, tail.size()));
            for (int i = Math.max(0, tail.size() - historyMax); i < tail.size(); i++) {
                TailRecord t = tail.get(i);
                history.add(new HistoryView(t.timestampMillis(), t.nick(), t.body(), t.subject(), t.stanzaId()));
            }
        }
        RoomSettings s = r.settings();
        return new RoomView(r.jid, s.name(), s.description(), r.messages.subject(), s.isPublic(), s.persistent(),
                s.moderated(), s.membersOnly(), s.password() != null && !s.password().isEmpty(), s.maxOccupants(), s.nonAnonymous(),
                s.participantsChangeSubject(), s.allowPrivateMessages().xmlName(), s.loggingEnabled(),
                s.archivingEnabled(), Set.copyOf(s.presenceBroadcastRoles()), Set.copyOf(s.memberListRoles()),
                r.locked, r.occupantCount(), last, affiliations, occupants, history);
    }
}
