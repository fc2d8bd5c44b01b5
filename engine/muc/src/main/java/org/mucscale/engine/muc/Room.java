package org.mucscale.engine.muc;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

import org.mucscale.engine.muc.Stanzas.Condition;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

import static org.mucscale.engine.muc.Stanzas.NS_MUC_ADMIN;
import static org.mucscale.engine.muc.Stanzas.NS_MUC_OWNER;
import static org.mucscale.engine.muc.Stanzas.NS_MUC_USER;

/**
 * One room: its lifecycle (creation, restore, destruction, shutdown) and the dispatch of each stanza to the part of
 * the XEP-0045 protocol that handles it. The parts, each with its own state:
 * <ul>
 *   <li>{@link RoomSettings}: the configuration, one immutable value swapped whole on a change;
 *   <li>{@link Occupants}: who is in the room, and the one fan-out loop; {@link Affiliations}: the affiliation list;
 *   <li>{@link RoomPresence}: joins, presence and nickname changes, leaving, removal, presence broadcast;
 *   <li>{@link RoomMessages}: groupchat, private messages, invitations, history and subject;
 *   <li>{@link RoomPermissions}: every "who may" rule, pure;
 *   <li>{@link RoomAdminIq} (muc#admin), {@link RoomOwnerIq} (muc#owner), {@link RoomDisco} (disco#info/items),
 *       {@link Registration}, {@link Moderation}, {@link VoiceRequests};
 *   <li>{@link RoomReplica}: the cluster-facing side (image, tail, adoption, departed sessions).
 * </ul>
 *
 * <p>Thread: the room and every part are touched only by the room's shard thread ({@link RoomShard}), so nothing is
 * synchronised; deliveries are made directly from that thread. A restored or adopted room is built on the thread that
 * will own it, before any stanza can reach it.
 */
final class Room {
    static final String FIELD_PRESENCE_POLICY = "mucscale#roomconfig_presencepolicy";

    final Jid jid;
    private final RoomShard shard;
    private final ServiceContext ctx;
    private final Delivery delivery;

    /** The configuration, swapped whole on a change (never edited in place). */
    private RoomSettings settings;
    /** True from creation until the owner configures the room or accepts the instant room (XEP-0045 10.1). */
    boolean locked;

    final Affiliations affiliations;
    final Occupants occupants;
    final RoomPresence presence;
    final RoomMessages messages;
    final RoomAdminIq admin;
    final RoomOwnerIq owner;
    final RoomDisco disco;
    final RoomReplica replica;
    final FloodGuard guard;
    final Invitations invitations;
    final VoiceRequests voiceRequests;
    final Registration registration;
    private final Moderation moderation;
    /** The creator's count of rooms (released when the room goes); null for restored or adopted rooms. */
    UserLimits.Entry createdBy;
    /** In its shard's list of rooms to replicate at the next flush (clustering). */
    boolean dirty;

    Room(RoomShard shard, Jid jid) {
        this.shard = shard;
        this.ctx = shard.ctx;
        this.delivery = ctx.delivery;
        this.jid = jid;
        MucConfig c = ctx.config;
        this.settings = RoomSettings.defaults(jid, c);
        this.affiliations = new Affiliations(ctx);
        this.guard = new FloodGuard(ctx, jid);
        this.invitations = new Invitations(ctx);
        this.voiceRequests = new VoiceRequests(this, ctx);
        this.registration = new Registration(this, ctx);
        this.occupants = new Occupants(jid, ctx, guard, voiceRequests);
        this.presence = new RoomPresence(this, shard, occupants);
        this.messages = new RoomMessages(this, shard, occupants);
        this.moderation = new Moderation(this, shard, messages.history);
        this.admin = new RoomAdminIq(this, ctx, occupants, affiliations);
        this.owner = new RoomOwnerIq(this, shard, occupants, affiliations);
        this.disco = new RoomDisco(this, ctx, occupants);
        this.replica = new RoomReplica(this, shard, occupants);
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
            room.affiliations.set(Stanzas.userKey(c.from), Affiliation.OWNER);
            shard.addRoom(room);
            return room;
        }
        reply(ctx, c, Condition.ITEM_NOT_FOUND, "no such room");
        return null;
    }

    /** Restores a persistent room (at start, before the shard thread runs). */
    static Room restore(RoomShard shard, StoredRoom stored) {
        Room room = new Room(shard, stored.room());
        room.applyConfig(stored, true, RoomSettings.ALL_ROLES);
        room.locked = false;
        room.messages.restoreHistory();
        shard.addRoom(room);
        room.updateDirectory();
        return room;
    }

    /** Configuration, subject and affiliations as stored (a restored or adopted room). */
    void applyConfig(StoredRoom stored, boolean persistent, Set<Role> presenceBroadcastRoles) {
        settings = RoomSettings.fromStored(stored, persistent, presenceBroadcastRoles, ctx.config);
        messages.restoreSubject(stored.subject());
        stored.affiliations().forEach((j, a) -> affiliations.set(Stanzas.userKey(j), a));
        stored.reservedNicks().forEach((j, nick) -> {
            Affiliation a = affiliations.listed(Stanzas.userKey(j));
            if (a != null && a != Affiliation.OUTCAST) {
                registration.reserve(Stanzas.userKey(j), nick);
            }
        });
    }

    // ------------------------------------------------------------------------------------------------ state

    int occupantCount() {
        return occupants.count();
    }

    Occupant occupant(String nick) {
        return occupants.byNick(nick);
    }

    Occupant occupantAt(int index) {
        return occupants.at(index);
    }

    /** Throws when the occupant registry's indexes disagree (tests call this on the shard thread). */
    void checkInvariants() {
        occupants.checkInvariants();
    }

    StoredRoom snapshot() {
        return settings.toStored(jid, messages.subject(), affiliations.asMap(), registration.reservedNicks());
    }

    RoomSettings settings() {
        return settings;
    }

    /** Swaps in a changed configuration (the owner's form); the caller saves and announces it. */
    void settings(RoomSettings changed) {
        settings = changed;
    }

    void saveIfPersistent() {
        if (settings.persistent() && !locked) {
            shard.storeWrites.save(snapshot());
        }
    }

    // ------------------------------------------------------------------------------------------------ dispatch

    void handle(Command c) {
        switch (c.stanza.name()) {
            case "presence" -> presence.handle(c);
            case "message" -> messages.handle(c);
            case "iq" -> handleIq(c);
            default -> ctx.listener.stanzaRefused("unknown-stanza");
        }
    }

    Affiliation affiliationOf(Jid user) {
        return affiliations.of(user);
    }

    /** An operator's retraction (the admin page's review queue); see {@link Moderation#retractAsService}. */
    void retractAsService(String stanzaId, String reason, Consumer<RoomLogSink.Retraction> done) {
        moderation.retractAsService(stanzaId, reason, done);
    }

    private void handleIq(Command c) {
        XmlElement s = c.stanza;
        String type = s.attribute("type");
        Occupant sender = occupants.byRealJid(c.from);
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
                    disco.info(c, payload.attribute("node"));
                } else {
                    reply(c, Condition.BAD_REQUEST, "disco#info only answers get");
                }
            }
            case Stanzas.NS_DISCO_ITEMS -> {
                if (get) {
                    disco.items(c, sender);
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
                    admin.get(c, actor, payload);
                } else {
                    admin.set(c, actor, payload);
                }
            }
            case RoomArchive.NS_MAM -> shard.archive.handle(this, c, payload, sender, affiliationOf(c.from.bare()));
            case NS_MUC_OWNER -> {
                if (get) {
                    owner.get(c, payload);
                } else {
                    owner.set(c, payload);
                }
            }
            default -> reply(c, Condition.SERVICE_UNAVAILABLE, "the room does not support " + ns);
        }
    }

    /** IQs to room@service/nick: XEP-0410 self-ping, otherwise relayed between occupants (XEP-0045 7.3, 6.6). */
    private void occupantIq(Command c, Occupant sender, String type) {
        XmlElement s = c.stanza;
        boolean request = "get".equals(type) || "set".equals(type);
        Occupant target = occupants.byNick(c.to.resource());
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

    // ------------------------------------------------------------------------------------------------ lifecycle

    void updateDirectory() {
        if (settings.isPublic() && !locked) {
            ctx.directory.put(jid, settings.displayName(jid));
        } else {
            ctx.directory.remove(jid);
        }
    }

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
        List<Occupant> all = occupants.snapshot();
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
        if (settings.persistent()) {
            shard.storeWrites.delete(jid);
        }
        messages.history.clear();
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
        occupants.detach(o);
        ctx.listener.occupantLeft(jid);
    }

    /** Service shutdown: occupants are told the room is going away with status 332. */
    void shutdown() {
        for (Occupant o : occupants.snapshot()) {
            XmlElement p = XmlElement.builder("presence").attribute("from", o.occupantJid.toString())
                    .attribute("to", o.realJid.toString()).attribute("type", "unavailable")
                    .child(XmlElement.builder("x", NS_MUC_USER)
                            .child(XmlElement.builder("item").attribute("affiliation", o.affiliation.xmlName())
                                    .attribute("role", "none").build())
                            .child(XmlElement.builder("status").attribute("code", "110").build())
                            .child(XmlElement.builder("status").attribute("code", "332").build()).build())
                    .build();
            delivery.send(p);
            occupants.detach(o);
        }
    }

    // ------------------------------------------------------------------------------------------------ replies

    void reply(Command c, Condition condition, String text) {
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
