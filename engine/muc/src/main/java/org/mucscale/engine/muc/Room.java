package org.mucscale.engine.muc;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.mucscale.engine.muc.Stanzas.Condition;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

import static org.mucscale.engine.muc.Stanzas.NS_MUC;
import static org.mucscale.engine.muc.Stanzas.NS_MUC_ADMIN;
import static org.mucscale.engine.muc.Stanzas.NS_MUC_OWNER;
import static org.mucscale.engine.muc.Stanzas.NS_MUC_USER;

/**
 * One room: occupants, affiliations, configuration, history, and the XEP-0045 protocol. Touched only by its shard's
 * thread ({@link RoomShard}), so nothing here is synchronised; deliveries are made directly from that thread.
 *
 * <p>Occupants live in an array (for the fan-out loop, which allocates nothing per recipient) and in two maps, by
 * nickname key and by real JID; {@link #checkInvariants()} verifies they agree.
 */
final class Room {
    static final String FIELD_PRESENCE_POLICY = "mucscale#roomconfig_presencepolicy";

    final Jid jid;
    private final RoomShard shard;
    private final ServiceContext ctx;
    private final Delivery delivery;

    // configuration
    String name;
    String description = "";
    boolean isPublic;
    boolean persistent;
    boolean moderated;
    boolean membersOnly;
    String password; // null: none
    int maxOccupants;
    boolean nonAnonymous;
    boolean participantsChangeSubject;
    String allowPrivateMessages = "anyone"; // anyone, participants, moderators, none
    boolean loggingEnabled;
    /** muc#roomconfig_enablearchiving: messages are logged and the archive answers XEP-0313 queries. */
    boolean archivingEnabled;
    PresencePolicy presencePolicy;
    Set<Role> presenceBroadcastRoles = EnumSet.of(Role.MODERATOR, Role.PARTICIPANT, Role.VISITOR);
    /** Roles whose occupants may retrieve the member list besides admins and owners (muc#roomconfig_getmemberlist). */
    Set<Role> memberListRoles = EnumSet.noneOf(Role.class);
    /** True from creation until the owner configures the room or accepts the instant room (XEP-0045 10.1). */
    boolean locked;

    // state
    private final Map<Jid, Affiliation> affiliations = new HashMap<>();
    private Occupant[] occupants = new Occupant[8];
    private int occupantCount;
    private final Map<String, Occupant> byNick = new HashMap<>();
    private final Map<Jid, Occupant> byRealJid = new HashMap<>();
    private final HistoryRing history;
    private final TokenBucket roomBucket;
    final FloodGuard guard;
    final Invitations invitations;
    final VoiceRequests voiceRequests;
    final Registration registration;
    private final Moderation moderation;
    /** The creator's count of rooms (released when the room goes); null for restored or adopted rooms. */
    UserLimits.Entry createdBy;
    private XmlElement subjectMessage; // as broadcast, from room/nick
    String subject = "";
    /** Counter of accepted messages, numbering the room's replicated tail (clustering). */
    private long tailSeq;
    /** In its shard's list of rooms to replicate at the next flush (clustering). */
    boolean dirty;

    private Room(RoomShard shard, Jid jid) {
        this.shard = shard;
        this.ctx = shard.ctx;
        this.delivery = ctx.delivery;
        this.jid = jid;
        MucConfig c = ctx.config;
        this.name = jid.local();
        this.isPublic = c.defaultPublic;
        this.persistent = c.defaultPersistent;
        this.maxOccupants = c.defaultMaxOccupants;
        this.nonAnonymous = c.defaultNonAnonymous;
        this.participantsChangeSubject = c.defaultParticipantsChangeSubject;
        this.presencePolicy = c.defaultPresencePolicy;
        this.archivingEnabled = c.archiveByDefault;
        this.history = new HistoryRing(c.historySize);
        this.roomBucket = new TokenBucket(c.roomBurst, ctx.clock.nanoTime());
        this.guard = new FloodGuard(ctx, jid);
        this.invitations = new Invitations(ctx);
        this.voiceRequests = new VoiceRequests(this, ctx);
        this.registration = new Registration(this, ctx);
        this.moderation = new Moderation(this, shard, history);
    }

    // ------------------------------------------------------------------------------------------------ creation

    /** A stanza for a room that does not exist: creates it (first join) or answers with the right error. */
    static Room createOrRefuse(RoomShard shard, Command c) {
        ServiceContext ctx = shard.ctx;
        XmlElement s = c.stanza;
        String type = s.attribute("type");
        if ("error".equals(type) || (s.name().equals("iq") && ("result".equals(type)))) {
            return null;
        }
        if (s.name().equals("presence")) {
            if (type != null) {
                return null; // unavailable/probe/subscription to a room that does not exist: nothing to do
            }
            if (c.to.resource() == null) {
                reply(ctx, c, Condition.JID_MALFORMED, "a nickname is required to join a room");
                return null;
            }
            if (!ctx.mayCreateRooms(c.from.bare())) {
                reply(ctx, c, Condition.NOT_ALLOWED, "you may not create rooms on this service");
                return null;
            }
            if (Nicknames.normalize(c.to.resource(), ctx.config.maxNicknameLength) == null) {
                reply(ctx, c, Condition.JID_MALFORMED, "the nickname is not acceptable");
                return null;
            }
            if (!shard.content.admitRoomAddress(c, c.roomJid)) {
                return null; // the address would show in every room list
            }
            UserLimits.Entry reservation = FloodGuard.admitCreation(ctx, c);
            if (reservation == null) {
                return null;
            }
            Room room = new Room(shard, c.roomJid);
            room.createdBy = reservation;
            room.locked = true;
            room.affiliations.put(Stanzas.userKey(c.from), Affiliation.OWNER);
            shard.addRoom(room);
            return room;
        }
        reply(ctx, c, Condition.ITEM_NOT_FOUND, "no such room");
        return null;
    }

    /** Restores a persistent room (at start, before the shard thread runs). */
    static Room restore(RoomShard shard, StoredRoom stored) {
        Room room = new Room(shard, stored.room());
        room.applyConfig(stored);
        room.persistent = true;
        room.locked = false;
        room.restoreHistory();
        shard.addRoom(room);
        room.updateDirectory();
        return room;
    }

    /** Configuration, subject and affiliations as stored (a restored or adopted room). */
    private void applyConfig(StoredRoom stored) {
        name = stored.name();
        description = stored.description() == null ? "" : stored.description();
        subject = stored.subject() == null ? "" : stored.subject();
        if (!subject.isEmpty()) {
            subjectMessage = XmlElement.builder("message").attribute("from", jid.toString())
                    .attribute("type", "groupchat").textChild("subject", subject).build();
        }
        isPublic = stored.isPublic();
        moderated = stored.moderated();
        membersOnly = stored.membersOnly();
        password = stored.password();
        maxOccupants = stored.maxOccupants();
        nonAnonymous = stored.nonAnonymous();
        participantsChangeSubject = stored.participantsChangeSubject();
        allowPrivateMessages = stored.allowPrivateMessages();
        loggingEnabled = stored.loggingEnabled();
        archivingEnabled = stored.archivingEnabled() == null ? ctx.config.archiveByDefault : stored.archivingEnabled();
        presencePolicy = stored.presencePolicy();
        stored.affiliations().forEach((j, a) -> affiliations.put(Stanzas.userKey(j), a));
        affiliations.values().removeIf(a -> a == Affiliation.NONE);
        registration.open = stored.registrationOpen();
        memberListRoles = stored.memberListRoles().isEmpty() ? EnumSet.noneOf(Role.class)
                : EnumSet.copyOf(stored.memberListRoles());
        stored.reservedNicks().forEach((j, nick) -> {
            Affiliation a = affiliations.get(Stanzas.userKey(j));
            if (a != null && a != Affiliation.OUTCAST) {
                registration.reserve(Stanzas.userKey(j), nick);
            }
        });
    }

    /** Refills the in-memory history of a restored room from the room log, so a restart does not empty it. */
    private void restoreHistory() {
        if (ctx.config.historySize == 0) {
            return;
        }
        for (RoomRepository.LoggedMessage m : ctx.repository.recentMessages(jid, ctx.config.historySize)) {
            if (m.body() == null || m.nick() == null) {
                continue;
            }
            XmlElement.Builder b = XmlElement.builder("message")
                    .attribute("from", jid.toString() + "/" + m.nick()).attribute("type", "groupchat")
                    .textChild("body", m.body());
            if (m.stanzaId() != null) {
                b.child(XmlElement.builder("stanza-id", Stanzas.NS_SID).attribute("id", m.stanzaId())
                        .attribute("by", jid.toString()).build());
            }
            XmlElement message = b.build();
            history.add(message, m.timestampMillis(), Stanzas.approximateChars(message, Integer.MAX_VALUE));
        }
    }

    // ------------------------------------------------------------------------------------------------ clustering

    /** The room as another node would restore it (see {@link #adopt}). */
    RoomImage image() {
        List<RoomImage.OccupantImage> list = new ArrayList<>(occupantCount);
        for (int i = 0; i < occupantCount; i++) {
            Occupant o = occupants[i];
            list.add(new RoomImage.OccupantImage(o.nick, o.realJid, o.role, o.affiliation, o.presence, o.occupantId,
                    ctx.placement.sessionNode(o.realJid)));
        }
        return new RoomImage(snapshot(), persistent, locked, presenceBroadcastRoles, subjectMessage, list, tailSeq);
    }

    /** The occupants' real addresses now (a message the previous owner accepted is re-delivered to them). */
    List<Jid> occupantAddresses() {
        List<Jid> out = new ArrayList<>(occupantCount);
        for (int i = 0; i < occupantCount; i++) {
            out.add(occupants[i].realJid);
        }
        return out;
    }

    /** This room's history as tail records (when the room's state is first replicated, after a node joined). */
    List<TailRecord> historyAsTail() {
        List<TailRecord> out = new ArrayList<>(history.size());
        long seq = tailSeq - history.size();
        for (int i = 0; i < history.size(); i++) {
            XmlElement m = history.message(i);
            XmlElement sid = m.child("stanza-id", Stanzas.NS_SID);
            String from = m.attribute("from");
            String nick = from == null || from.indexOf('/') < 0 ? null : from.substring(from.indexOf('/') + 1);
            out.add(new TailRecord(jid, ++seq, sid == null ? null : sid.attribute("id"), nick, null,
                    history.timestampMillis(i), m.childText("body"), m.childText("subject"),
                    MessageInspector.Action.PASS, m));
        }
        return out;
    }

    /**
     * Takes over a room another node served: configuration, occupants (who stay joined and are not told anything)
     * and history from the newest tail records. With {@code relog}, every tail record is offered to the room log
     * again: the previous owner may have died before its writer stored them, and the log's key (room, time, stanza
     * id) makes the ones it did store duplicates that are skipped.
     */
    static Room adopt(RoomShard shard, RoomImage image, List<TailRecord> tail, boolean relog) {
        ServiceContext ctx = shard.ctx;
        Room room = new Room(shard, image.room());
        room.applyConfig(image.config());
        room.persistent = image.persistent();
        room.locked = image.locked();
        room.presenceBroadcastRoles = image.presenceBroadcastRoles().isEmpty() ? EnumSet.noneOf(Role.class)
                : EnumSet.copyOf(image.presenceBroadcastRoles());
        if (image.subjectMessage() != null) {
            room.subjectMessage = image.subjectMessage();
        }
        room.tailSeq = image.tailSeq();
        for (RoomImage.OccupantImage oi : image.occupants()) {
            Jid occupantJid;
            try {
                occupantJid = room.jid.withResource(oi.nick());
            } catch (Jid.InvalidJidException e) {
                continue;
            }
            Occupant o = new Occupant(oi.nick(), occupantJid, oi.realJid(), oi.role(), oi.affiliation(),
                    oi.presence(), room.guard.budgetOf(Stanzas.userKey(oi.realJid())).messages);
            o.occupantId = oi.occupantId();
            ctx.placement.sessionSeen(oi.realJid(), oi.node());
            room.addOccupant(o);
        }
        int first = Math.max(0, tail.size() - ctx.config.historySize);
        for (int i = 0; i < tail.size(); i++) {
            TailRecord t = tail.get(i);
            room.tailSeq = Math.max(room.tailSeq, t.seq());
            boolean tombstone = t.message() != null && Moderation.isTombstone(t.message());
            if (i >= first && (t.body() != null || tombstone) && t.message() != null) {
                room.history.add(t.message(), t.timestampMillis(),
                        Stanzas.approximateChars(t.message(), Integer.MAX_VALUE), t.seq());
            }
            // a retracted message is not logged again: its text is gone, and its row holds the tombstone
            if (relog && !tombstone && t.stanzaId() != null && t.nick() != null) {
                if (!ctx.logSink.offer(t.stanzaId(), room.jid, t.nick(), t.realJid(), t.timestampMillis(), t.body(),
                        t.subject(), t.action())) {
                    ctx.listener.logRefused(room.jid);
                }
            }
        }
        shard.addRoom(room);
        room.updateDirectory();
        return room;
    }

    /**
     * Removes, as one step, the occupants whose real JIDs {@code gone} matches (docs/cluster.md, "Occupants of a
     * departed node leave as one step per room"): all leave first, then each one still here gets one unavailable
     * presence (status 333, with {@code reason} if any) per nickname that left; a removed session gets its own (110,
     * 333) only if {@code reachable} says it can still be written to, and never the others'.
     */
    void removeSessionsWhere(java.util.function.Predicate<Jid> gone, java.util.function.Predicate<Jid> reachable,
                             String reason) {
        List<Occupant> leaving = new ArrayList<>();
        for (int i = 0; i < occupantCount; i++) {
            if (gone.test(occupants[i].realJid)) {
                leaving.add(occupants[i]);
            }
        }
        boolean[] visible = new boolean[leaving.size()];
        for (int i = 0; i < visible.length; i++) {
            Occupant o = leaving.get(i);
            visible[i] = broadcastsPresenceOf(o, occupantCount + i); // the room as the others saw it
            o.role = Role.NONE;
            o.invalidatePresence();
            detachOccupant(o);
            ctx.listener.occupantLeft(jid);
        }
        java.util.Set<String> announced = new java.util.HashSet<>();
        XmlElement extra = reasonAndActor(reason, null);
        for (int i = 0; i < visible.length; i++) {
            Occupant o = leaving.get(i);
            // the others see a nickname leave only with its last session, and once
            boolean others = visible[i] && byNick.get(o.nickKey) == null && announced.add(o.nickKey);
            broadcastPresence(others, o, "unavailable", new int[] {333}, null,
                    reachable.test(o.realJid) ? new int[] {110, 333} : null, extra, null);
        }
        if (!leaving.isEmpty() && occupantCount == 0 && !persistent) {
            shard.removeRoom(this);
        }
    }

    StoredRoom snapshot() {
        return new StoredRoom(jid, name, description, subject, isPublic, moderated, membersOnly, password,
                maxOccupants, nonAnonymous, participantsChangeSubject, allowPrivateMessages, loggingEnabled,
                presencePolicy, affiliations, registration.open, memberListRoles, registration.reservedNicks(),
                archivingEnabled);
    }

    private void saveIfPersistent() {
        if (persistent && !locked) {
            shard.storeWrites.save(snapshot());
        }
    }

    // ------------------------------------------------------------------------------------------------ dispatch

    void handle(Command c) {
        switch (c.stanza.name()) {
            case "presence" -> handlePresence(c);
            case "message" -> handleMessage(c);
            case "iq" -> handleIq(c);
            default -> ctx.listener.stanzaRefused("unknown-stanza");
        }
    }

    // ------------------------------------------------------------------------------------------------ presence

    /** The id of the presence being handled, echoed in the self-presence (muc#stable_id); null otherwise. */
    private String reflectId;

    private void handlePresence(Command c) {
        reflectId = c.stanza.attribute("id");
        try {
            handlePresenceInner(c);
        } finally {
            reflectId = null;
        }
    }

    private void handlePresenceInner(Command c) {
        XmlElement s = c.stanza;
        String type = s.attribute("type");
        Occupant self = byRealJid.get(c.from);
        if ("error".equals(type)) {
            // a bounce from an occupant's server: the occupant is gone (XEP-0045 status 333)
            if (self != null) {
                removeOccupant(self, "unavailable", new int[] {333}, null, null, null, true);
            }
            return;
        }
        if ("unavailable".equals(type)) {
            if (self != null) {
                leave(self, s);
            }
            return;
        }
        if (type != null) {
            return; // probes and subscriptions are not meaningful for rooms
        }
        if (c.to.resource() == null) {
            reply(c, Condition.JID_MALFORMED, "a nickname is required to join a room");
            return;
        }
        String nick = Nicknames.normalize(c.to.resource(), ctx.config.maxNicknameLength);
        if (nick == null) {
            reply(c, Condition.JID_MALFORMED, "the nickname is not acceptable (empty, too long, or contains control,"
                    + " formatting or unassigned characters)");
            return;
        }
        XmlElement shown = shard.content.admitStatus(c, jid, nick); // its <status> texts, as others will see them
        if (self != null) {
            if (shown == null) {
                return;
            }
            if (Nicknames.key(nick).equals(self.nickKey)) {
                if (s.child("x", NS_MUC) != null) {
                    rejoin(self, shown, s.child("x", NS_MUC));
                } else {
                    updatePresence(self, shown);
                }
            } else if (shard.content.admitNickname(c, jid, nick)) {
                changeNick(self, nick, c, shown);
            }
            return;
        }
        if (shown != null && shard.content.admitNickname(c, jid, nick)) {
            join(c, shown, nick, !nick.equals(c.to.resource()));
        } else if (locked && occupantCount == 0) {
            shard.removeRoom(this); // created for this refused join: nobody could ever enter it
        }
    }

    private void join(Command c, XmlElement s, String nick, boolean nickModified) {
        Jid bare = c.from.bare();
        Affiliation aff = affiliationOf(bare);
        boolean creating = locked && occupantCount == 0 && aff == Affiliation.OWNER;
        if (!creating && !guard.admitJoin(c, Stanzas.userKey(c.from))) {
            return;
        }
        if (locked && aff != Affiliation.OWNER) {
            reply(c, Condition.ITEM_NOT_FOUND, "the room is locked until its owner configures it");
            return;
        }
        if (aff == Affiliation.OUTCAST) {
            reply(c, Condition.FORBIDDEN, "you are banned from this room");
            return;
        }
        if (membersOnly && !aff.atLeast(Affiliation.MEMBER)) {
            reply(c, Condition.REGISTRATION_REQUIRED, "this room is for members only");
            return;
        }
        if (password != null && !aff.atLeast(Affiliation.OWNER)) {
            XmlElement x = s.child("x", NS_MUC);
            String given = x == null ? null : x.childText("password");
            if (given == null || !given.equals(password)) {
                reply(c, Condition.NOT_AUTHORIZED, given == null ? "this room needs a password"
                        : "the password is not correct");
                return;
            }
        }
        String key = Nicknames.key(nick);
        Occupant sameNick = byNick.get(key); // another session of the same user may share its nickname
        if ((sameNick != null && !sameNick.bareJid.equals(Stanzas.userKey(bare)))
                || registration.reservedByOther(key, bare)) {
            reply(c, Condition.CONFLICT, "that nickname is in use in this room or reserved by another user");
            return;
        }
        if (sameNick == null && occupantCount >= maxOccupants && !aff.atLeast(Affiliation.ADMIN)) {
            reply(c, Condition.SERVICE_UNAVAILABLE_WAIT, "the room is full (" + maxOccupants + " occupants)");
            return;
        }
        Jid occupantJid;
        try {
            occupantJid = jid.withResource(nick);
        } catch (Jid.InvalidJidException e) {
            reply(c, Condition.JID_MALFORMED, "the nickname is not acceptable: " + e.getMessage());
            return;
        }
        Occupant o = new Occupant(nick, occupantJid, c.from, sameNick != null ? sameNick.role : defaultRole(aff), aff,
                s, guard.budgetOf(Stanzas.userKey(c.from)).messages);
        if (ctx.config.occupantIds) {
            o.occupantId = ctx.occupantId(jid, o.bareJid);
        }
        othersPresenceTo(o, occupantCount + 1); // 1. the existing occupants' presence to the joiner
        addOccupant(o);
        // 2. the joiner's presence to the others (not for a further session: the nickname is already there),
        // 3. self-presence
        int[] selfCodes = selfCodes(creating, nickModified);
        broadcastPresence(sameNick == null && broadcastsPresenceOf(o, occupantCount), o, null, null, null, selfCodes,
                null, null);
        // 4. history
        sendHistory(o, s.child("x", NS_MUC));
        // 5. subject (always, empty when none: XEP-0045 7.2.15)
        sendSubject(o);
        ctx.listener.occupantJoined(jid, c.arrivalNs);
    }

    /** Every other occupant's presence (one per nickname, per policy with {@code count} occupants) to {@code o}. */
    private void othersPresenceTo(Occupant o, int count) {
        boolean seesJids = nonAnonymous || o.isModerator();
        for (int i = 0; i < occupantCount; i++) {
            Occupant other = occupants[i];
            if (broadcastsPresenceOf(other, count) && isFirstSession(other) && !other.nickKey.equals(o.nickKey)) {
                delivery.deliver(cachedPresence(other, seesJids), o.realJid);
            }
        }
    }

    /**
     * A join presence (with the MUC {@code <x/>}) from a session that already is this occupant: its client has no
     * room state, e.g. a new session that took the full JID over from the one that joined (a resource conflict, whose
     * old session leaves no unavailable presence here), or a client that lost track. It gets the whole join answer
     * again (others' presences, self-presence, history as it asks, subject), as Openfire's own MUC does ("client-only
     * join"); for the others it is a presence update, under the same rate as one. Treated as a plain update, the new
     * session would get one self-presence and never learn who is in the room.
     */
    private void rejoin(Occupant o, XmlElement presence, XmlElement mucX) {
        othersPresenceTo(o, occupantCount);
        updatePresence(o, presence, selfCodes(false, false), true);
        sendHistory(o, mucX);
        sendSubject(o);
    }

    private int[] selfCodes(boolean creating, boolean nickModified) {
        int n = 1 + (nonAnonymous ? 1 : 0) + (loggingEnabled ? 1 : 0) + (creating ? 1 : 0) + (nickModified ? 1 : 0);
        int[] codes = new int[n];
        int i = 0;
        codes[i++] = 110;
        if (nonAnonymous) {
            codes[i++] = 100;
        }
        if (loggingEnabled) {
            codes[i++] = 170;
        }
        if (creating) {
            codes[i++] = 201;
        }
        if (nickModified) {
            codes[i] = 210;
        }
        return codes;
    }

    private Role defaultRole(Affiliation aff) {
        return switch (aff) {
            case OWNER, ADMIN -> Role.MODERATOR;
            case MEMBER -> Role.PARTICIPANT;
            case NONE -> moderated ? Role.VISITOR : Role.PARTICIPANT;
            case OUTCAST -> Role.NONE;
        };
    }

    /**
     * A presence change (show/status) of an occupant. Each one is broadcast to the whole room, so they share the
     * occupant message rate: over the limit the new presence is kept (joiners see it) but not broadcast, and the
     * refusal is counted; no error is sent, because clients treat presence errors from a room as leaving it.
     */
    private void updatePresence(Occupant o, XmlElement presence) {
        updatePresence(o, presence, new int[] {110}, false);
    }

    /** As above, with {@code selfCodes}; over the rate {@code o} still gets its own copy if {@code answerAlways}. */
    private void updatePresence(Occupant o, XmlElement presence, int[] selfCodes, boolean answerAlways) {
        o.presence = presence;
        o.invalidatePresence();
        MucConfig cfg = ctx.config;
        if (!(cfg.moderatorsExempt && o.isModerator())) {
            if (o.presenceBucket == null) {
                o.presenceBucket = new TokenBucket(cfg.occupantBurst, ctx.clock.nanoTime());
            }
            if (!o.presenceBucket.tryTake(ctx.clock.nanoTime(), cfg.occupantMessagesPerSecond, cfg.occupantBurst)) {
                ctx.listener.floodRejected(jid, MucListener.FloodLimit.OCCUPANT_RATE);
                if (answerAlways) {
                    broadcastPresence(false, o, null, null, null, selfCodes, null, null);
                }
                return;
            }
        }
        broadcastPresence(o, null, null, null, selfCodes, null, null);
    }

    /**
     * After a role or affiliation change: broadcast the new presence; if the change hides the occupant under the
     * room's presence policy (e.g. a moderator demoted in a MODERATORS_ONLY room), the others get it as unavailable
     * so nobody keeps a stale entry.
     */
    private void presenceChanged(Occupant o, boolean visibleBefore, XmlElement reasonAndActor) {
        boolean visibleNow = broadcastsPresenceOf(o, occupantCount);
        if (visibleBefore && !visibleNow) {
            broadcastPresence(true, o, "unavailable", null, null, null, reasonAndActor, null);
            broadcastPresence(false, o, null, null, null, new int[] {110}, reasonAndActor, null);
        } else {
            broadcastPresence(visibleNow, o, null, null, null, new int[] {110}, reasonAndActor, null);
        }
    }

    private void leave(Occupant o, XmlElement unavailable) {
        guard.leaving(o);
        removeOccupant(o, "unavailable", null, null, null, unavailable, true);
    }

    private void changeNick(Occupant o, String newNick, Command c, XmlElement presence) {
        String newKey = Nicknames.key(newNick);
        if (!isOnlySession(o)) {
            reply(c, Condition.NOT_ACCEPTABLE, "other sessions of yours share this nickname; leave with them first");
            return;
        }
        if (byNick.containsKey(newKey) || registration.reservedByOther(newKey, o.bareJid)) {
            reply(c, Condition.CONFLICT, "that nickname is in use in this room or reserved by another user");
            return;
        }
        Jid newOccupantJid;
        try {
            newOccupantJid = jid.withResource(newNick);
        } catch (Jid.InvalidJidException e) {
            reply(c, Condition.JID_MALFORMED, "the nickname is not acceptable: " + e.getMessage());
            return;
        }
        if (!guard.admitNickChange(c, o)) {
            return;
        }
        // unavailable from the old nick with 303 and the new nick, then available from the new nick (XEP-0045 7.6)
        broadcastPresence(o, "unavailable", new int[] {303}, newNick, new int[] {110, 303}, null, null);
        byNick.remove(o.nickKey);
        o.nick = newNick;
        o.nickKey = newKey;
        o.occupantJid = newOccupantJid;
        byNick.put(newKey, o);
        o.presence = presence;
        o.invalidatePresence();
        broadcastPresence(o, null, null, null, new int[] {110}, null, null);
    }

    /**
     * Removes an occupant, telling the others (per presence policy) and the occupant itself.
     *
     * @param codes status codes for everyone (kick 307, ban 301 ...), or null
     */
    private void removeOccupant(Occupant o, String type, int[] codes, String reason, String actorNick,
                                XmlElement unavailable, boolean destroyIfEmpty) {
        if (unavailable != null) {
            o.presence = unavailable;
        }
        // the others see the nickname leave only with its last session
        boolean visible = broadcastsPresenceOf(o, occupantCount) && isOnlySession(o);
        o.role = Role.NONE;
        o.invalidatePresence();
        int[] selfCodes;
        if (codes == null) {
            selfCodes = new int[] {110};
        } else {
            selfCodes = new int[codes.length + 1];
            selfCodes[0] = 110;
            System.arraycopy(codes, 0, selfCodes, 1, codes.length);
        }
        XmlElement extra = reasonAndActor(reason, actorNick);
        broadcastPresence(visible, o, type, codes, null, selfCodes, extra, null);
        detachOccupant(o);
        ctx.listener.occupantLeft(jid);
        if (destroyIfEmpty && occupantCount == 0 && !persistent) {
            shard.removeRoom(this);
        }
    }

    private static XmlElement occupantIdElement(Occupant o) {
        return XmlElement.builder("occupant-id", Stanzas.NS_OCCUPANT_ID).attribute("id", o.occupantId).build();
    }

    private static XmlElement reasonAndActor(String reason, String actorNick) {
        if (reason == null && actorNick == null) {
            return null;
        }
        XmlElement.Builder b = XmlElement.builder("item"); // a carrier, its children are copied into the item
        if (actorNick != null) {
            b.child(XmlElement.builder("actor").attribute("nick", actorNick).build());
        }
        if (reason != null) {
            b.child(XmlElement.builder("reason").text(reason).build());
        }
        return b.build();
    }

    // ------------------------------------------------------------------------------------------------ occupants

    private void addOccupant(Occupant o) {
        if (occupantCount == occupants.length) {
            occupants = java.util.Arrays.copyOf(occupants, occupants.length * 2);
        }
        o.index = occupantCount;
        occupants[occupantCount++] = o;
        Occupant first = byNick.putIfAbsent(o.nickKey, o);
        if (first != null) { // a further session under the same nickname
            o.nextSession = first.nextSession;
            first.nextSession = o;
        }
        byRealJid.put(o.realJid, o);
        guard.entered(o);
        ctx.occupantCount.incrementAndGet();
        ctx.populationChanged();
    }

    private void detachOccupant(Occupant o) {
        int last = occupantCount - 1;
        Occupant moved = occupants[last];
        occupants[o.index] = moved;
        moved.index = o.index;
        occupants[last] = null;
        occupantCount = last;
        Occupant first = byNick.get(o.nickKey);
        if (first == o) {
            if (o.nextSession == null) {
                byNick.remove(o.nickKey);
            } else {
                byNick.put(o.nickKey, o.nextSession);
            }
        } else {
            Occupant prev = first;
            while (prev.nextSession != o) {
                prev = prev.nextSession;
            }
            prev.nextSession = o.nextSession;
        }
        o.nextSession = null;
        byRealJid.remove(o.realJid);
        guard.departed(o);
        voiceRequests.settled(o);
        ctx.occupantCount.decrementAndGet();
        ctx.populationChanged();
    }

    Affiliation affiliationOf(Jid user) {
        Jid key = Stanzas.userKey(user);
        if (ctx.isServiceAdmin(key)) {
            return Affiliation.OWNER;
        }
        return affiliations.getOrDefault(key, Affiliation.NONE);
    }

    int occupantCount() {
        return occupantCount;
    }

    Occupant occupant(String nick) {
        return byNick.get(Nicknames.key(nick));
    }

    Occupant occupantAt(int index) {
        return occupants[index];
    }

    /** The first session under its nickname: the one others see (presence, occupant lists, role changes). */
    private boolean isFirstSession(Occupant o) {
        return byNick.get(o.nickKey) == o;
    }

    private boolean isOnlySession(Occupant o) {
        return o.nextSession == null && byNick.get(o.nickKey) == o;
    }

    /** Every session under {@code o}'s nickname (one, unless the user joined from several clients). */
    private List<Occupant> sessionsOf(Occupant o) {
        List<Occupant> list = new ArrayList<>(1);
        for (Occupant s = byNick.get(o.nickKey); s != null; s = s.nextSession) {
            list.add(s);
        }
        return list;
    }

    /** Sets the role of every session under {@code o}'s nickname. */
    private void setRole(Occupant o, Role role) {
        for (Occupant s = byNick.get(o.nickKey); s != null; s = s.nextSession) {
            s.role = role;
            s.invalidatePresence();
        }
    }

    /** A moderator approved a visitor's voice request (XEP-0045 8.6): broadcast as a role change. */
    void grantVoice(Occupant visitor, Occupant moderator) {
        boolean visibleBefore = broadcastsPresenceOf(visitor, occupantCount);
        setRole(visitor, Role.PARTICIPANT);
        presenceChanged(visitor, visibleBefore, reasonAndActor(null, moderator.nick));
    }

    /** Throws when the array and both maps disagree (tests call this on the shard thread). */
    void checkInvariants() {
        if (byNick.size() > occupantCount || byRealJid.size() != occupantCount) {
            throw new IllegalStateException(jid + ": " + occupantCount + " occupants, " + byNick.size() + " nicks, "
                    + byRealJid.size() + " JIDs");
        }
        for (int i = 0; i < occupantCount; i++) {
            Occupant o = occupants[i];
            if (o.index != i || !sessionsOf(o).contains(o) || byRealJid.get(o.realJid) != o
                    || !byNick.get(o.nickKey).bareJid.equals(o.bareJid)) {
                throw new IllegalStateException(jid + ": occupant " + o.nick + " is not in every index");
            }
            if (!o.occupantJid.resource().equals(o.nick) || o.role == Role.NONE) {
                throw new IllegalStateException(jid + ": occupant " + o.nick + " has a stale address or no role");
            }
        }
        for (int i = occupantCount; i < occupants.length; i++) {
            if (occupants[i] != null) {
                throw new IllegalStateException(jid + ": a removed occupant is still referenced");
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ presence out

    /** Whether {@code o}'s presence goes to others, given the room size. */
    private boolean broadcastsPresenceOf(Occupant o, int roomSize) {
        if (!presenceBroadcastRoles.contains(o.role)) {
            return false;
        }
        return switch (presencePolicy) {
            case FULL -> true;
            case MODERATORS_ONLY -> o.role == Role.MODERATOR || o.affiliation.atLeast(Affiliation.ADMIN);
            case NONE_ABOVE_N -> roomSize <= ctx.config.presenceBroadcastLimit || o.role == Role.MODERATOR;
        };
    }

    private RenderedStanza cachedPresence(Occupant o, boolean withJid) {
        if (withJid) {
            if (o.presenceWithJid == null) {
                o.presenceWithJid = RenderedStanza.render(presenceOf(o, null, true, null, null, null, null));
            }
            return o.presenceWithJid;
        }
        if (o.presenceWithoutJid == null) {
            o.presenceWithoutJid = RenderedStanza.render(presenceOf(o, null, false, null, null, null, null));
        }
        return o.presenceWithoutJid;
    }

    /**
     * Sends {@code o}'s presence to every other occupant (per policy; moderators, or everyone in a non-anonymous
     * room, see the real JID) and to {@code o} itself with {@code selfCodes}. One render per audience.
     */
    private void broadcastPresence(Occupant o, String type, int[] codes, String newNick, int[] selfCodes,
                                   XmlElement reasonAndActor, XmlElement destroy) {
        broadcastPresence(broadcastsPresenceOf(o, occupantCount), o, type, codes, newNick, selfCodes, reasonAndActor,
                destroy);
    }

    private void broadcastPresence(boolean others, Occupant o, String type, int[] codes, String newNick,
                                   int[] selfCodes, XmlElement reasonAndActor, XmlElement destroy) {
        if (others && occupantCount > 0) { // o itself is skipped, or already detached
            RenderedStanza withJid = null;
            RenderedStanza withoutJid = null;
            for (int i = 0; i < occupantCount; i++) {
                Occupant r = occupants[i];
                if (r == o) {
                    continue;
                }
                if (nonAnonymous || r.isModerator()) {
                    if (withJid == null) {
                        withJid = RenderedStanza.render(presenceOf(o, type, true, codes, newNick, reasonAndActor,
                                destroy));
                    }
                    delivery.deliver(withJid, r.realJid);
                } else {
                    if (withoutJid == null) {
                        withoutJid = RenderedStanza.render(presenceOf(o, type, false, codes, newNick, reasonAndActor,
                                destroy));
                    }
                    delivery.deliver(withoutJid, r.realJid);
                }
            }
        }
        if (selfCodes != null) {
            XmlElement self = presenceOf(o, type, true, selfCodes, newNick, reasonAndActor, destroy).toBuilder()
                    .attribute("to", o.realJid.toString()).attribute("id", reflectId).build();
            delivery.send(self);
        }
    }

    /** {@code o}'s presence as the room shows it: the user's own children plus the muc#user item. */
    private XmlElement presenceOf(Occupant o, String type, boolean withJid, int[] codes, String newNick,
                                  XmlElement reasonAndActor, XmlElement destroy) {
        XmlElement.Builder p = XmlElement.builder("presence").attribute("from", o.occupantJid.toString());
        if (type != null) {
            p.attribute("type", type);
        }
        if (o.presence != null) {
            for (Object child : o.presence.children()) {
                if (child instanceof XmlElement e) {
                    if ("x".equals(e.name()) && (NS_MUC.equals(e.namespace()) || NS_MUC_USER.equals(e.namespace()))
                            || Stanzas.isRoomAssigned(e)) {
                        continue;
                    }
                    if (type != null && !"status".equals(e.name())) {
                        continue; // unavailable presence carries only the status text
                    }
                    p.child(e);
                }
            }
        }
        XmlElement.Builder item = XmlElement.builder("item").attribute("affiliation", o.affiliation.xmlName())
                .attribute("role", o.role.xmlName());
        if (withJid) {
            item.attribute("jid", o.realJid.toString());
        }
        if (newNick != null) {
            item.attribute("nick", newNick);
        }
        if (reasonAndActor != null) {
            for (XmlElement e : reasonAndActor.elements()) {
                item.child(e);
            }
        }
        if (o.occupantId != null) {
            p.child(occupantIdElement(o));
        }
        XmlElement.Builder x = XmlElement.builder("x", NS_MUC_USER).child(item.build());
        if (destroy != null && "destroy".equals(destroy.name())) {
            x.child(destroy);
        }
        if (codes != null) {
            for (int code : codes) {
                x.child(XmlElement.builder("status").attribute("code", Integer.toString(code)).build());
            }
        }
        return p.child(x.build()).build();
    }

    // ------------------------------------------------------------------------------------------------ history

    private void sendHistory(Occupant o, XmlElement mucX) {
        int n = history.size();
        if (n == 0) {
            return;
        }
        XmlElement h = mucX == null ? null : mucX.child("history");
        int maxStanzas = Integer.MAX_VALUE;
        int maxChars = Integer.MAX_VALUE;
        long notBeforeMillis = Long.MIN_VALUE;
        if (h != null) {
            maxStanzas = parseLimit(h.attribute("maxstanzas"), maxStanzas);
            maxChars = parseLimit(h.attribute("maxchars"), maxChars);
            int seconds = parseLimit(h.attribute("seconds"), -1);
            if (seconds >= 0) {
                notBeforeMillis = ctx.clock.currentTimeMillis() - seconds * 1000L;
            }
            String since = h.attribute("since");
            if (since != null) {
                try {
                    notBeforeMillis = Math.max(notBeforeMillis, Instant.parse(since).toEpochMilli() + 1);
                } catch (DateTimeParseException e) {
                    // an unreadable date limits nothing; the join itself is valid
                }
            }
        }
        int first = n;
        int chars = 0;
        while (first > 0 && n - first < maxStanzas) {
            int i = first - 1;
            if (history.timestampMillis(i) < notBeforeMillis) {
                break;
            }
            chars += history.chars(i);
            if (chars > maxChars) {
                break;
            }
            first = i;
        }
        for (int i = first; i < n; i++) {
            XmlElement m = history.message(i);
            XmlElement delay = XmlElement.builder("delay", Stanzas.NS_DELAY).attribute("from", jid.toString())
                    .attribute("stamp", Instant.ofEpochMilli(history.timestampMillis(i)).toString()).build();
            delivery.send(m.toBuilder().attribute("to", o.realJid.toString()).child(delay).build());
        }
    }

    private static int parseLimit(String s, int absent) {
        if (s == null) {
            return absent;
        }
        try {
            return Math.max(0, Integer.parseInt(s.trim()));
        } catch (NumberFormatException e) {
            return absent;
        }
    }

    private void sendSubject(Occupant o) {
        XmlElement m = subjectMessage != null ? subjectMessage
                : XmlElement.builder("message").attribute("from", jid.toString()).attribute("type", "groupchat")
                .child(XmlElement.builder("subject").build()).build();
        delivery.send(m.withAttribute("to", o.realJid.toString()));
    }

    // ------------------------------------------------------------------------------------------------ messages

    private void handleMessage(Command c) {
        XmlElement s = c.stanza;
        String type = s.attribute("type");
        if ("error".equals(type)) {
            return;
        }
        Occupant sender = byRealJid.get(c.from);
        if (c.to.resource() != null) {
            privateMessage(c, sender, type);
            return;
        }
        if ("groupchat".equals(type)) {
            groupchat(c, sender);
            return;
        }
        XmlElement x = s.child("x", NS_MUC_USER);
        if (x != null && (x.child("invite") != null || x.child("decline") != null)) {
            invitation(c, sender, x);
            return;
        }
        XmlElement form = s.child("x", Stanzas.NS_DATA);
        if (form != null && VoiceRequests.isRequestForm(form)) {
            voiceRequests.handle(c, sender, form);
            return;
        }
        reply(c, Condition.NOT_ACCEPTABLE, "only groupchat messages and invitations may be sent to the room");
    }

    private void groupchat(Command c, Occupant sender) {
        XmlElement s = c.stanza;
        if (sender == null) {
            reply(c, Condition.NOT_ACCEPTABLE, "join the room before sending messages to it");
            return;
        }
        String body = ContentInspection.plainBody(s);
        XmlElement subjectElement = ContentInspection.plainSubject(s);
        String newSubject = subjectElement == null ? null : subjectElement.text();
        if (sender.role == Role.VISITOR) {
            reply(c, Condition.FORBIDDEN, "visitors may not speak in this moderated room");
            return;
        }
        // a subject that comes with a body changes the room's subject only from those who may change it; from others
        // it is an ordinary message (XEP-0045 §8.1: a subject change carries no body)
        boolean maySetSubject = sender.isModerator() || (participantsChangeSubject && sender.role == Role.PARTICIPANT);
        if (subjectElement != null && body == null) {
            if (!maySetSubject) {
                reply(c, Condition.FORBIDDEN, "you may not change the subject of this room");
                return;
            }
        } else if (body == null && !ContentInspection.rendersOtherText(s)) {
            // chat states and other body-less content: rate-limited like messages (each is a full fan-out), then
            // broadcast, but neither filtered, logged nor kept in history
            if (withinLimits(c, sender, null, null)) {
                broadcastMessage(c, sender, s, false, null);
            }
            return;
        }
        if (!withinLimits(c, sender, body, newSubject)) {
            return;
        }
        MessageInspector.Verdict verdict = shard.content.inspectMessage(jid, sender.nick, sender.realJid, s);
        MessageInspector.Action action = verdict.action();
        if (action != MessageInspector.Action.PASS) {
            ctx.listener.filtered(jid, action);
            switch (action) {
                case REJECT -> {
                    reply(c, Condition.NOT_ACCEPTABLE, verdict.errorText() == null
                            ? "the message was refused by the content filter" : verdict.errorText());
                    return;
                }
                case DROP -> {
                    return;
                }
                case MASK -> {
                    if (body != null && verdict.body() != null) {
                        body = verdict.body();
                    }
                    if (newSubject != null && verdict.subject() != null) {
                        newSubject = verdict.subject();
                    }
                    s = shard.content.masked(s);
                }
                default -> {
                }
            }
        }
        String stanzaId = ctx.stanzaIds.next();
        long nowMillis = ctx.clock.currentTimeMillis();
        if ((ctx.config.logAllRooms || loggingEnabled || archivingEnabled)
                && !ctx.logSink.offer(stanzaId, jid, sender.nick, sender.realJid, nowMillis, body, newSubject, action)) {
            ctx.listener.logRefused(jid);
            reply(c, Condition.RESOURCE_CONSTRAINT, "the room log is full; try again shortly");
            return;
        }
        XmlElement sent = broadcastMessage(c, sender, s, true, stanzaId);
        tailSeq++;
        if (ctx.replication.active()) {
            shard.addTail(new TailRecord(jid, tailSeq, stanzaId, sender.nick, sender.realJid, nowMillis, body,
                    newSubject, action, sent));
        }
        if (body != null) {
            history.add(sent, nowMillis, Stanzas.approximateChars(sent, Integer.MAX_VALUE), tailSeq);
        }
        if (newSubject != null && maySetSubject) {
            subject = newSubject;
            subjectMessage = body == null ? sent : XmlElement.builder("message")
                    .attribute("from", sender.occupantJid.toString()).attribute("type", "groupchat")
                    .textChild("subject", newSubject).build();
            saveIfPersistent();
        }
    }

    /** Size, line and rate limits; moderators may be exempt from the rates. False when refused (reply sent). */
    private boolean withinLimits(Command c, Occupant sender, String body, String newSubject) {
        MucConfig cfg = ctx.config;
        int bytes = utf8Length(body) + utf8Length(newSubject);
        if (bytes > cfg.maxMessageBytes) {
            ctx.listener.floodRejected(jid, MucListener.FloodLimit.MESSAGE_SIZE);
            reply(c, Condition.POLICY_VIOLATION, "the message is too long: " + bytes + " bytes, at most "
                    + cfg.maxMessageBytes + " allowed");
            return false;
        }
        if (body != null) {
            int lines = 1;
            for (int i = 0, n = body.length(); i < n; i++) {
                if (body.charAt(i) == '\n') {
                    lines++;
                }
            }
            if (lines > cfg.maxMessageLines) {
                ctx.listener.floodRejected(jid, MucListener.FloodLimit.MESSAGE_LINES);
                reply(c, Condition.POLICY_VIOLATION, "the message has too many lines: " + lines + ", at most "
                        + cfg.maxMessageLines + " allowed");
                return false;
            }
        }
        if (cfg.moderatorsExempt && sender.isModerator()) {
            return true;
        }
        long now = ctx.clock.nanoTime();
        if (!sender.bucket.tryTake(now, cfg.occupantMessagesPerSecond, cfg.occupantBurst)) {
            ctx.listener.floodRejected(jid, MucListener.FloodLimit.OCCUPANT_RATE);
            reply(c, Condition.RESOURCE_CONSTRAINT, "you are sending too fast: at most "
                    + cfg.occupantMessagesPerSecond + " messages per second (burst " + cfg.occupantBurst + ")");
            return false;
        }
        if (!roomBucket.tryTake(now, cfg.roomMessagesPerSecond, cfg.roomBurst)) {
            ctx.listener.floodRejected(jid, MucListener.FloodLimit.ROOM_RATE);
            reply(c, Condition.RESOURCE_CONSTRAINT, "this room is receiving too many messages: at most "
                    + cfg.roomMessagesPerSecond + " per second; try again shortly");
            return false;
        }
        return true;
    }

    private static int utf8Length(String s) {
        if (s == null) {
            return 0;
        }
        int n = 0;
        for (int i = 0, len = s.length(); i < len; i++) {
            char ch = s.charAt(i);
            if (ch < 0x80) {
                n++;
            } else if (ch < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(ch)) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /**
     * Builds the room's copy of a groupchat message once, renders it once and delivers it to every occupant
     * (the sender included: XEP-0045 reflection). Foreign stanza-ids claiming to be by this room are stripped.
     */
    private XmlElement broadcastMessage(Command c, Occupant sender, XmlElement original, boolean counted,
                                        String stanzaId) {
        XmlElement.Builder m = XmlElement.builder("message").attribute("from", sender.occupantJid.toString())
                .attribute("type", "groupchat");
        String id = original.attribute("id");
        if (id != null) {
            m.attribute("id", id);
        }
        for (Object child : original.children()) {
            if (child instanceof XmlElement e) {
                if (Stanzas.NS_SID.equals(e.namespace()) && jid.toString().equals(e.attribute("by"))) {
                    continue;
                }
                if ("x".equals(e.name()) && NS_MUC_USER.equals(e.namespace()) || Stanzas.isRoomAssigned(e)) {
                    continue;
                }
                m.child(e);
            }
        }
        if (sender.occupantId != null) {
            m.child(occupantIdElement(sender));
        }
        if (stanzaId != null) {
            m.child(XmlElement.builder("stanza-id", Stanzas.NS_SID).attribute("id", stanzaId)
                    .attribute("by", jid.toString()).build());
        }
        XmlElement sent = m.build();
        RenderedStanza rendered = RenderedStanza.render(sent, counted ? c.arrivalNs : 0);
        Occupant[] all = occupants;
        int n = occupantCount;
        for (int i = 0; i < n; i++) {
            delivery.deliver(rendered, all[i].realJid);
        }
        if (counted) {
            ctx.listener.messageDelivered(jid, c.arrivalNs, ctx.clock.nanoTime(), n);
        }
        return sent;
    }

    /** An operator's retraction (the admin page's review queue); see {@link Moderation#retractAsService}. */
    void retractAsService(String stanzaId, String reason,
                          java.util.function.Consumer<RoomLogSink.Retraction> done) {
        moderation.retractAsService(stanzaId, reason, done);
    }

    /** Room administration: when the newest message in memory was accepted (0: none). */
    long lastMessageMillis() {
        return history.size() == 0 ? 0 : history.timestampMillis(history.size() - 1);
    }

    /** Room administration: empties the in-memory history joiners are sent (the room log keeps its rows). */
    void clearHistory() {
        history.clear();
    }

    /** A message from the room itself to every occupant (a moderator's retraction), rendered once. */
    void broadcastFromRoom(XmlElement message) {
        RenderedStanza rendered = RenderedStanza.render(message, 0);
        Occupant[] all = occupants;
        int n = occupantCount;
        for (int i = 0; i < n; i++) {
            delivery.deliver(rendered, all[i].realJid);
        }
    }

    private void privateMessage(Command c, Occupant sender, String type) {
        if ("groupchat".equals(type)) {
            reply(c, Condition.BAD_REQUEST, "groupchat messages go to the room, not to an occupant");
            return;
        }
        if (sender == null) {
            reply(c, Condition.NOT_ACCEPTABLE, "join the room before sending private messages");
            return;
        }
        Occupant target = occupant(c.to.resource());
        if (target == null) {
            reply(c, Condition.ITEM_NOT_FOUND, "no occupant with that nickname");
            return;
        }
        if (!ctx.config.privateMessages || !mayPrivateMessage(sender)) {
            reply(c, Condition.NOT_ALLOWED, "private messages are not allowed in this room");
            return;
        }
        if (Stanzas.approximateChars(c.stanza, ctx.config.maxMessageBytes + 1024) > ctx.config.maxMessageBytes + 1024) {
            ctx.listener.floodRejected(jid, MucListener.FloodLimit.MESSAGE_SIZE);
            reply(c, Condition.POLICY_VIOLATION, "the message is too long");
            return;
        }
        if (!(ctx.config.moderatorsExempt && sender.isModerator())
                && !sender.bucket.tryTake(ctx.clock.nanoTime(), ctx.config.occupantMessagesPerSecond,
                ctx.config.occupantBurst)) {
            ctx.listener.floodRejected(jid, MucListener.FloodLimit.OCCUPANT_RATE);
            reply(c, Condition.RESOURCE_CONSTRAINT, "you are sending too fast: at most "
                    + ctx.config.occupantMessagesPerSecond + " messages per second");
            return;
        }
        XmlElement admitted = shard.content.admitPrivateMessage(c, jid, sender);
        if (admitted == null) {
            return;
        }
        XmlElement.Builder m = admitted.toBuilder().attribute("from", sender.occupantJid.toString())
                .attribute("to", target.realJid.toString());
        m.removeChildren("x").removeChildren("occupant-id");
        for (XmlElement e : admitted.elements()) {
            if (("x".equals(e.name()) && !NS_MUC_USER.equals(e.namespace()))
                    || ("occupant-id".equals(e.name()) && !Stanzas.isRoomAssigned(e))) {
                m.child(e);
            }
        }
        m.child(XmlElement.builder("x", NS_MUC_USER).build());
        if (sender.occupantId != null) {
            m.child(occupantIdElement(sender));
        }
        XmlElement pm = m.build();
        delivery.send(pm);
        for (Occupant other = target.nextSession; other != null; other = other.nextSession) {
            delivery.send(pm.withAttribute("to", other.realJid.toString())); // every session of the nickname
        }
    }

    private boolean mayPrivateMessage(Occupant sender) {
        return switch (allowPrivateMessages) {
            case "anyone" -> true;
            case "participants" -> sender.role == Role.PARTICIPANT || sender.role == Role.MODERATOR;
            case "moderators" -> sender.role == Role.MODERATOR;
            default -> false;
        };
    }

    private void invitation(Command c, Occupant sender, XmlElement x) {
        XmlElement invite = x.child("invite");
        if (invite != null) {
            if (sender == null) {
                reply(c, Condition.NOT_ACCEPTABLE, "join the room before inviting others");
                return;
            }
            Jid invitee = Jid.tryParse(invite.attribute("to"));
            if (invitee == null) {
                reply(c, Condition.JID_MALFORMED, "the invitation needs a valid 'to' address");
                return;
            }
            if (!guard.admitInvite(c, sender)) {
                return;
            }
            XmlElement reason = shard.content.admitReason(c, jid, sender.nick, invite.child("reason"));
            if (reason == ContentInspection.REFUSED) {
                return; // before a members-only room makes the invitee a member
            }
            if (membersOnly) {
                if (!sender.affiliation.atLeast(Affiliation.ADMIN)) {
                    reply(c, Condition.FORBIDDEN, "only admins may invite to this members-only room");
                    return;
                }
                if (!affiliationOf(invitee.bare()).atLeast(Affiliation.MEMBER)) {
                    setAffiliation(invitee.bare(), Affiliation.MEMBER);
                }
            }
            XmlElement.Builder inv = XmlElement.builder("invite").attribute("from", c.from.toString());
            if (reason != null) {
                inv.child(reason);
            }
            XmlElement.Builder ux = XmlElement.builder("x", NS_MUC_USER).child(inv.build());
            if (password != null) {
                ux.textChild("password", password);
            }
            delivery.send(XmlElement.builder("message").attribute("from", jid.toString())
                    .attribute("to", invitee.toString()).attribute("id", c.stanza.attribute("id"))
                    .child(ux.build()).build());
            invitations.relayed(c.from, invitee);
            return;
        }
        XmlElement decline = x.child("decline");
        String to = decline.attribute("to");
        Jid named = to == null ? null : Jid.tryParse(to);
        if (to != null && named == null) {
            reply(c, Condition.JID_MALFORMED, "the decline's 'to' is not a valid address");
            return;
        }
        Jid inviter = invitations.takeFor(c.from, named); // only real pending invitations: no reflection
        if (inviter == null) {
            guard.refuseDecline(c);
            return;
        }
        XmlElement reason = shard.content.admitReason(c, jid, sender == null ? null : sender.nick,
                decline.child("reason"));
        if (reason == ContentInspection.REFUSED) {
            return;
        }
        XmlElement.Builder dec = XmlElement.builder("decline").attribute("from", c.from.bare().toString());
        if (reason != null) {
            dec.child(reason);
        }
        delivery.send(XmlElement.builder("message").attribute("from", jid.toString())
                .attribute("to", inviter.toString())
                .child(XmlElement.builder("x", NS_MUC_USER).child(dec.build()).build()).build());
    }

    // ------------------------------------------------------------------------------------------------ IQ

    private void handleIq(Command c) {
        XmlElement s = c.stanza;
        String type = s.attribute("type");
        Occupant sender = byRealJid.get(c.from);
        if (c.to.resource() != null) {
            occupantIq(c, sender, type);
            return;
        }
        if (!"get".equals(type) && !"set".equals(type)) {
            return; // results and errors addressed to the room itself: nothing waits for them
        }
        XmlElement payload = Stanzas.firstElement(s);
        if (payload == null) {
            reply(c, Condition.BAD_REQUEST, "an IQ needs exactly one payload element");
            return;
        }
        String ns = payload.namespace() == null ? "" : payload.namespace();
        boolean get = "get".equals(type);
        switch (ns) {
            case Stanzas.NS_DISCO_INFO -> {
                if (get) {
                    discoInfo(c, payload.attribute("node"));
                } else {
                    reply(c, Condition.BAD_REQUEST, "disco#info only answers get");
                }
            }
            case Stanzas.NS_DISCO_ITEMS -> {
                if (get) {
                    discoItems(c, sender);
                } else {
                    reply(c, Condition.BAD_REQUEST, "disco#items only answers get");
                }
            }
            case Stanzas.NS_PING -> result(c, null);
            case Registration.NS_REGISTER -> registration.handle(c, get, payload);
            case Moderation.NS_MODERATE, Moderation.NS_FASTEN -> moderation.handle(c, sender, payload, get);
            case NS_MUC_ADMIN -> {
                Occupant actor = sender != null ? sender : RoomAdminBridge.standIn(c.from); // room administration
                if (get) {
                    adminGet(c, actor, payload);
                } else {
                    adminSet(c, actor, payload);
                }
            }
            case RoomArchive.NS_MAM -> shard.archive.handle(this, c, payload, sender, affiliationOf(c.from.bare()));
            case NS_MUC_OWNER -> {
                if (get) {
                    ownerGet(c, payload);
                } else {
                    ownerSet(c, payload);
                }
            }
            default -> reply(c, Condition.SERVICE_UNAVAILABLE, "the room does not support " + ns);
        }
    }

    /** IQs to room@service/nick: XEP-0410 self-ping, otherwise relayed between occupants (XEP-0045 7.3, 6.6). */
    private void occupantIq(Command c, Occupant sender, String type) {
        XmlElement s = c.stanza;
        boolean request = "get".equals(type) || "set".equals(type);
        Occupant target = occupant(c.to.resource());
        if (!request) {
            // a reply from an occupant to another occupant's relayed request
            if (sender != null && target != null) {
                delivery.send(s.toBuilder().attribute("from", sender.occupantJid.toString())
                        .attribute("to", target.realJid.toString()).build());
            }
            return;
        }
        XmlElement payload = Stanzas.firstElement(s);
        boolean ping = payload != null && "ping".equals(payload.name()) && Stanzas.NS_PING.equals(payload.namespace());
        if (sender == null) {
            if (ping) {
                reply(c, Condition.NOT_ACCEPTABLE, "you are not an occupant of this room");
            } else {
                reply(c, Condition.BAD_REQUEST, "only occupants may query other occupants");
            }
            return;
        }
        if (target == null) {
            reply(c, Condition.ITEM_NOT_FOUND, "no occupant with that nickname");
            return;
        }
        if (ping && target == sender) {
            result(c, null);
            return;
        }
        delivery.send(s.toBuilder().attribute("from", sender.occupantJid.toString())
                .attribute("to", target.realJid.toString()).build());
    }

    private void discoInfo(Command c, String node) {
        if (Registration.NODE_RESERVED_NICK.equals(node)) {
            result(c, registration.reservedNickInfo(c.from));
            return;
        }
        if (node != null) {
            reply(c, Condition.ITEM_NOT_FOUND, "no such node");
            return;
        }
        XmlElement.Builder q = XmlElement.builder("query", Stanzas.NS_DISCO_INFO);
        q.child(XmlElement.builder("identity").attribute("category", "conference").attribute("type", "text")
                .attribute("name", name == null || name.isEmpty() ? jid.local() : name).build());
        q.child(Stanzas.feature(Stanzas.NS_MUC));
        q.child(Stanzas.feature(membersOnly ? "muc_membersonly" : "muc_open"));
        q.child(Stanzas.feature(moderated ? "muc_moderated" : "muc_unmoderated"));
        q.child(Stanzas.feature(password != null ? "muc_passwordprotected" : "muc_unsecured"));
        q.child(Stanzas.feature(persistent ? "muc_persistent" : "muc_temporary"));
        q.child(Stanzas.feature(isPublic ? "muc_public" : "muc_hidden"));
        q.child(Stanzas.feature(nonAnonymous ? "muc_nonanonymous" : "muc_semianonymous"));
        q.child(Stanzas.feature(Stanzas.NS_SID));
        q.child(Stanzas.feature(Stanzas.NS_STABLE_ID));
        if (ctx.config.occupantIds) {
            q.child(Stanzas.feature(Stanzas.NS_OCCUPANT_ID));
        }
        q.child(Stanzas.feature(VoiceRequests.FORM_TYPE));
        if (registration.open) {
            q.child(Stanzas.feature(Registration.NS_REGISTER));
        }
        q.child(Stanzas.feature(Stanzas.NS_SELF_PING));
        if (archivingEnabled) {
            q.child(Stanzas.feature(RoomArchive.NS_MAM)).child(Stanzas.feature(RoomArchive.NS_MAM_EXTENDED));
        }
        q.child(Stanzas.feature(Moderation.NS_MODERATE));
        q.child(Stanzas.feature(Moderation.NS_MODERATE_0));
        q.child(Stanzas.feature(Stanzas.NS_DISCO_INFO));
        q.child(Stanzas.feature(Stanzas.NS_DISCO_ITEMS));
        q.child(Stanzas.feature(Stanzas.NS_PING));
        XmlElement form = XmlElement.builder("x", Stanzas.NS_DATA).attribute("type", "result")
                .child(Stanzas.formField("FORM_TYPE", "hidden", null, "http://jabber.org/protocol/muc#roominfo"))
                .child(Stanzas.formField("muc#roominfo_description", "text-single", "Description", description))
                .child(Stanzas.formField("muc#roominfo_subject", "text-single", "Subject", subject))
                .child(Stanzas.formField("muc#roominfo_occupants", "text-single", "Number of occupants",
                        Integer.toString(byNick.size()))) // nicknames, not sessions
                .child(Stanzas.formField("muc#roomconfig_roomname", "text-single", "Name", name))
                .child(Stanzas.formField("muc#roomconfig_maxusers", "text-single", "Maximum occupants",
                        Integer.toString(maxOccupants)))
                .child(Stanzas.formField("muc#roomconfig_changesubject", "boolean", "Occupants may change the subject",
                        participantsChangeSubject ? "1" : "0"))
                .child(Stanzas.formField(FIELD_PRESENCE_POLICY, "text-single", "Presence policy",
                        presencePolicy.name().toLowerCase(java.util.Locale.ROOT)))
                .build();
        q.child(form);
        result(c, q.build());
    }

    private void discoItems(Command c, Occupant sender) {
        XmlElement.Builder q = XmlElement.builder("query", Stanzas.NS_DISCO_ITEMS);
        // the occupant list; large rooms under a restricted presence policy show only what their presence shows
        for (int i = 0; i < occupantCount; i++) {
            Occupant o = occupants[i];
            if (!isFirstSession(o)) {
                continue; // one item per nickname
            }
            if (presencePolicy == PresencePolicy.FULL || broadcastsPresenceOf(o, occupantCount) || o == sender) {
                q.child(XmlElement.builder("item").attribute("jid", o.occupantJid.toString()).build());
            }
        }
        result(c, q.build());
    }

    // ------------------------------------------------------------------------------------------------ admin

    private void adminGet(Command c, Occupant sender, XmlElement query) {
        XmlElement item = query.child("item");
        if (item == null) {
            reply(c, Condition.BAD_REQUEST, "the query needs an item with a role or an affiliation");
            return;
        }
        Affiliation actorAff = affiliationOf(c.from.bare());
        XmlElement.Builder q = XmlElement.builder("query", NS_MUC_ADMIN);
        String affText = item.attribute("affiliation");
        String roleText = item.attribute("role");
        if (affText != null) {
            Affiliation wanted = Affiliation.fromXml(affText);
            if (wanted == null) {
                reply(c, Condition.BAD_REQUEST, "unknown affiliation '" + affText + "'");
                return;
            }
            boolean memberMayList = wanted == Affiliation.MEMBER && (membersOnly && actorAff == Affiliation.MEMBER
                    || sender != null && memberListRoles.contains(sender.role));
            if (!actorAff.atLeast(Affiliation.ADMIN) && !memberMayList) {
                reply(c, Condition.FORBIDDEN, "only admins and owners may list affiliations");
                return;
            }
            for (Map.Entry<Jid, Affiliation> e : affiliations.entrySet()) {
                if (e.getValue() == wanted) {
                    q.child(XmlElement.builder("item").attribute("affiliation", wanted.xmlName())
                            .attribute("jid", e.getKey().toString()).build());
                }
            }
        } else if (roleText != null) {
            Role wanted = Role.fromXml(roleText);
            if (wanted == null) {
                reply(c, Condition.BAD_REQUEST, "unknown role '" + roleText + "'");
                return;
            }
            if (sender == null || !sender.isModerator()) {
                reply(c, Condition.FORBIDDEN, "only moderators may list roles");
                return;
            }
            for (int i = 0; i < occupantCount; i++) {
                Occupant o = occupants[i];
                if (o.role == wanted) {
                    q.child(XmlElement.builder("item").attribute("affiliation", o.affiliation.xmlName())
                            .attribute("role", o.role.xmlName()).attribute("nick", o.nick)
                            .attribute("jid", o.realJid.toString()).build());
                }
            }
        } else {
            reply(c, Condition.BAD_REQUEST, "the item needs a role or an affiliation");
            return;
        }
        result(c, q.build());
    }

    private void adminSet(Command c, Occupant sender, XmlElement query) {
        List<XmlElement> items = query.elements("item");
        if (items.isEmpty()) {
            reply(c, Condition.BAD_REQUEST, "the query needs at least one item");
            return;
        }
        for (XmlElement item : items) {
            Condition problem;
            String[] why = new String[1];
            if (item.attribute("role") != null) {
                problem = changeRole(c, sender, item, why);
            } else if (item.attribute("affiliation") != null) {
                problem = changeAffiliation(c, sender, item, why);
            } else {
                problem = Condition.BAD_REQUEST;
                why[0] = "each item needs a role or an affiliation";
            }
            if (problem != null) {
                reply(c, problem, why[0]);
                return;
            }
        }
        result(c, null);
    }

    private Condition changeRole(Command c, Occupant actor, XmlElement item, String[] why) {
        Role role = Role.fromXml(item.attribute("role"));
        if (role == null) {
            why[0] = "unknown role '" + item.attribute("role") + "'";
            return Condition.BAD_REQUEST;
        }
        String nick = item.attribute("nick");
        if (nick == null) {
            why[0] = "a role change needs the occupant's nick";
            return Condition.BAD_REQUEST;
        }
        if (actor == null || !actor.isModerator()) {
            why[0] = "only moderators may change roles";
            return Condition.FORBIDDEN;
        }
        Occupant target = occupant(nick);
        if (target == null) {
            why[0] = "no occupant with the nickname '" + nick + "'";
            return Condition.ITEM_NOT_FOUND;
        }
        String reason = item.childText("reason");
        boolean targetPrivileged = target.affiliation.atLeast(Affiliation.ADMIN);
        switch (role) {
            case NONE -> {
                if (targetPrivileged || (target.isModerator() && !actor.affiliation.atLeast(Affiliation.ADMIN))) {
                    why[0] = "admins and owners cannot be kicked";
                    return Condition.NOT_ALLOWED;
                }
                for (Occupant session : sessionsOf(target)) {
                    removeOccupant(session, "unavailable", new int[] {307}, reason, actor.nick, null, true);
                }
                return null;
            }
            case VISITOR -> {
                if (targetPrivileged || (target.isModerator() && !actor.affiliation.atLeast(Affiliation.ADMIN))) {
                    why[0] = "the voice of admins, owners and moderators cannot be revoked";
                    return Condition.NOT_ALLOWED;
                }
            }
            case PARTICIPANT -> {
                if (target.isModerator()) {
                    if (!actor.affiliation.atLeast(Affiliation.ADMIN)) {
                        why[0] = "only admins and owners may revoke moderator status";
                        return Condition.NOT_ALLOWED;
                    }
                    if (target.affiliation.compareTo(actor.affiliation) > 0 || targetPrivileged) {
                        why[0] = "moderator status of an admin or owner cannot be revoked";
                        return Condition.NOT_ALLOWED;
                    }
                }
            }
            case MODERATOR -> {
                if (!actor.affiliation.atLeast(Affiliation.ADMIN)) {
                    why[0] = "only admins and owners may grant moderator status";
                    return Condition.FORBIDDEN;
                }
            }
            default -> {
            }
        }
        if (target.role != role) {
            voiceRequests.settled(target);
            boolean visibleBefore = broadcastsPresenceOf(target, occupantCount);
            setRole(target, role);
            presenceChanged(target, visibleBefore, reasonAndActor(reason, actor.nick));
        }
        return null;
    }

    private Condition changeAffiliation(Command c, Occupant actorOccupant, XmlElement item, String[] why) {
        Affiliation aff = Affiliation.fromXml(item.attribute("affiliation"));
        if (aff == null) {
            why[0] = "unknown affiliation '" + item.attribute("affiliation") + "'";
            return Condition.BAD_REQUEST;
        }
        Jid target;
        String jidText = item.attribute("jid");
        if (jidText != null) {
            target = Jid.tryParse(jidText);
            if (target == null) {
                why[0] = "'" + jidText + "' is not a valid JID";
                return Condition.JID_MALFORMED;
            }
            target = target.bare();
        } else if (item.attribute("nick") != null) {
            Occupant o = occupant(item.attribute("nick"));
            if (o == null) {
                why[0] = "no occupant with the nickname '" + item.attribute("nick") + "'";
                return Condition.ITEM_NOT_FOUND;
            }
            target = o.bareJid;
        } else {
            why[0] = "an affiliation change needs a jid";
            return Condition.BAD_REQUEST;
        }
        Affiliation actor = affiliationOf(c.from.bare());
        Affiliation current = affiliationOf(target);
        if (!actor.atLeast(Affiliation.ADMIN)) {
            why[0] = "only admins and owners may change affiliations";
            return Condition.FORBIDDEN;
        }
        boolean ownerOnly = aff.atLeast(Affiliation.ADMIN) || current.atLeast(Affiliation.ADMIN);
        if (ownerOnly && actor != Affiliation.OWNER) {
            why[0] = "only owners may change the affiliation of admins and owners";
            return current.atLeast(Affiliation.ADMIN) ? Condition.NOT_ALLOWED : Condition.FORBIDDEN;
        }
        if (current == Affiliation.OWNER && aff != Affiliation.OWNER && ownerCount() <= 1) {
            why[0] = "the room's only owner cannot give up ownership";
            return Condition.CONFLICT;
        }
        if (ctx.isServiceAdmin(target) && aff != Affiliation.OWNER) {
            why[0] = "service admins own every room";
            return Condition.NOT_ALLOWED;
        }
        applyAffiliation(target, aff, item.childText("reason"), actorOccupant == null ? null : actorOccupant.nick);
        return null;
    }

    private int ownerCount() {
        int n = 0;
        for (Affiliation a : affiliations.values()) {
            if (a == Affiliation.OWNER) {
                n++;
            }
        }
        return n;
    }

    private void setAffiliation(Jid user, Affiliation aff) {
        Jid bare = Stanzas.userKey(user);
        if (aff == Affiliation.NONE) {
            affiliations.remove(bare);
        } else {
            affiliations.put(bare, aff);
        }
        if (aff == Affiliation.NONE || aff == Affiliation.OUTCAST) {
            registration.forget(bare);
        }
        saveIfPersistent();
    }

    /** Stores the affiliation and updates every session of that user in the room (roles, removal, presence). */
    private void applyAffiliation(Jid user, Affiliation aff, String reason, String actorNick) {
        Jid bare = Stanzas.userKey(user);
        setAffiliation(bare, aff);
        List<Occupant> sessions = new ArrayList<>(1);
        for (int i = 0; i < occupantCount; i++) {
            if (occupants[i].bareJid.equals(bare)) {
                sessions.add(occupants[i]);
            }
        }
        for (Occupant o : sessions) {
            Affiliation before = o.affiliation;
            boolean visibleBefore = broadcastsPresenceOf(o, occupantCount);
            o.affiliation = aff;
            o.invalidatePresence();
            if (aff == Affiliation.OUTCAST) {
                removeOccupant(o, "unavailable", new int[] {301}, reason, actorNick, null, true);
            } else if (membersOnly && !aff.atLeast(Affiliation.MEMBER)) {
                removeOccupant(o, "unavailable", new int[] {321}, reason, actorNick, null, true);
            } else {
                Role newRole = o.role;
                if (aff.atLeast(Affiliation.ADMIN)) {
                    newRole = Role.MODERATOR;
                } else if (before.atLeast(Affiliation.ADMIN)) {
                    newRole = defaultRole(aff);
                } else if (aff == Affiliation.MEMBER && o.role == Role.VISITOR) {
                    newRole = Role.PARTICIPANT;
                }
                o.role = newRole;
                presenceChanged(o, visibleBefore, reasonAndActor(reason, actorNick));
            }
        }
    }

    /** A user registered with the room (XEP-0045 7.10): at least a member from now on. */
    void registered(Jid user) {
        if (affiliationOf(user).atLeast(Affiliation.MEMBER)) {
            saveIfPersistent(); // the reservation is stored with the affiliation
        } else {
            applyAffiliation(user, Affiliation.MEMBER, null, null);
        }
    }

    /** A user cancelled their registration: a member by registration is a member no more. */
    void unregistered(Jid user, Affiliation before) {
        if (before == Affiliation.MEMBER) {
            applyAffiliation(user, Affiliation.NONE, null, null);
        } else {
            saveIfPersistent();
        }
    }

    // ------------------------------------------------------------------------------------------------ owner

    private void ownerGet(Command c, XmlElement query) {
        if (affiliationOf(c.from.bare()) != Affiliation.OWNER) {
            reply(c, Condition.FORBIDDEN, "only owners may configure the room");
            return;
        }
        result(c, XmlElement.builder("query", NS_MUC_OWNER).child(RoomConfigForm.form(this, ownersAndAdmins()))
                .build());
    }

    private Map<Affiliation, List<Jid>> ownersAndAdmins() {
        Map<Affiliation, List<Jid>> out = new LinkedHashMap<>();
        out.put(Affiliation.OWNER, new ArrayList<>());
        out.put(Affiliation.ADMIN, new ArrayList<>());
        for (Map.Entry<Jid, Affiliation> e : affiliations.entrySet()) {
            List<Jid> list = out.get(e.getValue());
            if (list != null) {
                list.add(e.getKey());
            }
        }
        return out;
    }

    private void ownerSet(Command c, XmlElement query) {
        if (affiliationOf(c.from.bare()) != Affiliation.OWNER) {
            reply(c, Condition.FORBIDDEN, "only owners may configure or destroy the room");
            return;
        }
        XmlElement destroy = query.child("destroy");
        if (destroy != null) {
            destroy(destroy.attribute("jid"), destroy.childText("reason"), destroy.childText("password"), c);
            return;
        }
        XmlElement form = query.child("x", Stanzas.NS_DATA);
        if (form == null) {
            reply(c, Condition.BAD_REQUEST, "expected a data form or a destroy request");
            return;
        }
        String formType = form.attribute("type");
        if ("cancel".equals(formType)) {
            if (locked) {
                destroy(null, "the owner cancelled the room's creation", null, c);
            } else {
                result(c, null);
            }
            return;
        }
        if (!"submit".equals(formType)) {
            reply(c, Condition.BAD_REQUEST, "the form must be of type submit or cancel");
            return;
        }
        RoomConfigForm.Submission sub;
        try {
            sub = RoomConfigForm.parse(form, ctx.config);
        } catch (IllegalArgumentException e) {
            reply(c, Condition.NOT_ACCEPTABLE, e.getMessage());
            return;
        }
        if (sub.ownersOrNull() != null && sub.ownersOrNull().isEmpty()) {
            reply(c, Condition.NOT_ACCEPTABLE, "a room needs at least one owner");
            return;
        }
        Occupant owner = byRealJid.get(c.from);
        if (!shard.content.admitConfiguration(c, jid, owner == null ? null : owner.nick, sub)) {
            return;
        }
        boolean wasLocked = locked;
        boolean wasPersistent = persistent;
        boolean wasNonAnonymous = nonAnonymous;
        boolean wasMembersOnly = membersOnly;
        sub.applyTo(this);
        locked = false;
        result(c, null);
        if (sub.ownersOrNull() != null) {
            replaceAffiliation(Affiliation.OWNER, sub.ownersOrNull());
        }
        if (sub.adminsOrNull() != null) {
            replaceAffiliation(Affiliation.ADMIN, sub.adminsOrNull());
        }
        if (!wasMembersOnly && membersOnly) {
            for (Occupant o : occupantsSnapshot()) {
                if (!o.affiliation.atLeast(Affiliation.MEMBER)) {
                    removeOccupant(o, "unavailable", new int[] {322}, null, null, null, false);
                }
            }
        }
        for (int i = 0; i < occupantCount; i++) {
            occupants[i].invalidatePresence();
        }
        if (persistent) {
            shard.storeWrites.save(snapshot());
        } else if (wasPersistent) {
            shard.storeWrites.delete(jid);
        }
        updateDirectory();
        if (!wasLocked) {
            // XEP-0045 10.2.1: tell occupants the configuration changed (104), and about anonymity (172/173)
            XmlElement.Builder x = XmlElement.builder("x", NS_MUC_USER)
                    .child(XmlElement.builder("status").attribute("code", "104").build());
            if (wasNonAnonymous != nonAnonymous) {
                x.child(XmlElement.builder("status").attribute("code", nonAnonymous ? "172" : "173").build());
            }
            RenderedStanza note = RenderedStanza.render(XmlElement.builder("message")
                    .attribute("from", jid.toString()).attribute("type", "groupchat").child(x.build()).build());
            for (int i = 0; i < occupantCount; i++) {
                delivery.deliver(note, occupants[i].realJid);
            }
        }
        if (occupantCount == 0 && !persistent) {
            shard.removeRoom(this);
        }
    }

    private void replaceAffiliation(Affiliation aff, List<Jid> jids) {
        List<Jid> old = new ArrayList<>();
        for (Map.Entry<Jid, Affiliation> e : affiliations.entrySet()) {
            if (e.getValue() == aff && !jids.contains(e.getKey())) {
                old.add(e.getKey());
            }
        }
        for (Jid j : old) {
            applyAffiliation(j, Affiliation.NONE, null, null);
        }
        for (Jid j : jids) {
            if (affiliationOf(j) != aff) {
                applyAffiliation(j, aff, null, null);
            }
        }
    }

    private List<Occupant> occupantsSnapshot() {
        List<Occupant> list = new ArrayList<>(occupantCount);
        for (int i = 0; i < occupantCount; i++) {
            list.add(occupants[i]);
        }
        return list;
    }

    void updateDirectory() {
        if (isPublic && !locked) {
            ctx.directory.put(jid, name == null || name.isEmpty() ? jid.local() : name);
        } else {
            ctx.directory.remove(jid);
        }
    }

    /** Destroys the room: every occupant gets unavailable presence with the destroy notice (XEP-0045 10.9). */
    /**
     * Destroys the room (XEP-0045 10.9). Order matters to clients: the requesting owner's own session gets its
     * destroy presence before the IQ result (Smack stops listening to a room once the result arrives), and the other
     * occupants get theirs after the result.
     */
    void destroy(String alternateVenue, String reason, String alternatePassword, Command request) {
        XmlElement.Builder d = XmlElement.builder("destroy");
        Jid alt = alternateVenue == null ? null : Jid.tryParse(alternateVenue);
        if (alt != null) {
            d.attribute("jid", alt.toString());
        }
        if (reason != null) {
            d.textChild("reason", reason);
        }
        if (alternatePassword != null) {
            d.textChild("password", alternatePassword);
        }
        XmlElement destroyElement = d.build();
        List<Occupant> all = occupantsSnapshot();
        if (request != null) {
            for (Occupant o : all) {
                if (o.realJid.equals(request.from)) {
                    notifyDestroyed(o, destroyElement);
                }
            }
            result(request, null);
        }
        for (Occupant o : all) {
            if (request == null || !o.realJid.equals(request.from)) {
                notifyDestroyed(o, destroyElement);
            }
        }
        if (persistent) {
            shard.storeWrites.delete(jid);
        }
        history.clear();
        shard.removeRoom(this);
    }

    private void notifyDestroyed(Occupant o, XmlElement destroyElement) {
        o.role = Role.NONE;
        o.affiliation = Affiliation.NONE;
        delivery.send(XmlElement.builder("presence").attribute("from", o.occupantJid.toString())
                .attribute("to", o.realJid.toString()).attribute("type", "unavailable")
                .child(XmlElement.builder("x", NS_MUC_USER)
                        .child(XmlElement.builder("item").attribute("affiliation", "none")
                                .attribute("role", "none").build())
                        .child(destroyElement).build())
                .build());
        detachOccupant(o);
        ctx.listener.occupantLeft(jid);
    }

    /** Service shutdown: occupants are told the room is going away with status 332. */
    void shutdown() {
        for (Occupant o : occupantsSnapshot()) {
            XmlElement p = XmlElement.builder("presence").attribute("from", o.occupantJid.toString())
                    .attribute("to", o.realJid.toString()).attribute("type", "unavailable")
                    .child(XmlElement.builder("x", NS_MUC_USER)
                            .child(XmlElement.builder("item").attribute("affiliation", o.affiliation.xmlName())
                                    .attribute("role", "none").build())
                            .child(XmlElement.builder("status").attribute("code", "110").build())
                            .child(XmlElement.builder("status").attribute("code", "332").build()).build())
                    .build();
            delivery.send(p);
            detachOccupant(o);
        }
    }

    // ------------------------------------------------------------------------------------------------ replies

    private void reply(Command c, Condition condition, String text) {
        reply(ctx, c, condition, text);
    }

    /**
     * Answers a refused stanza with an error. A presence or message whose sender is past its error budget
     * ({@code user-error-burst} at once, {@code user-errors-per-minute} after: a flood) is not answered, only counted:
     * the error would cost the XMPP server as much as any delivery. IQs are always answered (their sender waits for
     * the reply); service admins are exempt.
     */
    static void reply(ServiceContext ctx, Command c, Condition condition, String text) {
        if (!Stanzas.isError(c.stanza)) {
            sendError(ctx, c.stanza, c.to, c.from, c.roomJid, condition, text);
        }
    }

    /**
     * An error for {@code stanza} from {@code errorFrom} to its sender {@code to}, or, past the sender's error budget,
     * none (counted against {@code room}, null for a refusal before any room). The one place both rooms and the
     * service answer refusals through.
     */
    static void sendError(ServiceContext ctx, XmlElement stanza, Jid errorFrom, Jid to, Jid room, Condition condition,
                          String text) {
        if (errorAllowed(ctx, stanza, to)) {
            ctx.delivery.send(Stanzas.error(stanza, errorFrom, to, condition, text));
        } else {
            ctx.listener.errorWithheld(room);
        }
    }

    /** Whether {@code sender} may get an error for this stanza: always for an IQ, else within its error budget. */
    private static boolean errorAllowed(ServiceContext ctx, XmlElement stanza, Jid sender) {
        if (stanza.name().equals("iq")) {
            return true;
        }
        Jid bare = Stanzas.userKey(sender);
        return ctx.isServiceAdmin(bare) || ctx.userLimits.admitError(bare, ctx.clock.nanoTime(), ctx.config);
    }

    void result(Command c, XmlElement payload) {
        delivery.send(Stanzas.result(c.stanza, c.to, c.from, payload));
    }

    static int utf8(String s) {
        return s == null ? 0 : s.getBytes(StandardCharsets.UTF_8).length;
    }
}
