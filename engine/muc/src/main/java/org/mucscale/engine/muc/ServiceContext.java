package org.mucscale.engine.muc;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.mucscale.engine.port.Clock;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;

/**
 * What every room shares: configuration, ports and service-wide state. Written by room threads: the public-room
 * directory (a concurrent map, read by transport threads answering disco#items; eventually consistent) and the
 * population counters (atomics).
 */
final class ServiceContext {
    final Jid serviceJid;
    /** Replaced as a whole by {@link MucService#reconfigure}; room threads read it per use. */
    volatile MucConfig config;
    final Delivery delivery;
    final Clock clock;
    final MessageInspector inspector;
    final RoomLogSink logSink;
    final RoomRepository repository;
    /** Writes persistent rooms and retractions off the room threads; null without a repository and a log. */
    final RoomStoreWorkers roomStoreWorkers;
    final MucListener listener;
    final StanzaIds stanzaIds;
    final RoomPlacement placement;
    final RoomReplication replication;
    /** The room archive (XEP-0313) and the threads that read it; set by {@link MucService} before rooms run. */
    RoomArchiveSource archiveSource = RoomArchiveSource.NONE;
    ArchiveWorkers archiveWorkers;
    /** Public, unlocked rooms: room JID to display name. */
    final ConcurrentHashMap<Jid, String> directory = new ConcurrentHashMap<>();
    final AtomicInteger roomCount = new AtomicInteger();
    final AtomicInteger occupantCount = new AtomicInteger();
    /** Limits per user across rooms (joins, invitations, rooms created); lock-free, see {@link UserLimits}. */
    final UserLimits userLimits = new UserLimits();

    ServiceContext(Jid serviceJid, MucConfig config, Delivery delivery, Clock clock, MessageInspector inspector,
                   RoomLogSink logSink, RoomRepository repository, MucListener listener, RoomPlacement placement,
                   RoomReplication replication) {
        this.serviceJid = serviceJid;
        this.config = config;
        this.delivery = delivery;
        this.clock = clock;
        this.inspector = inspector;
        this.logSink = logSink;
        this.repository = repository;
        this.roomStoreWorkers = repository == RoomRepository.NONE && logSink == RoomLogSink.NONE ? null
                : new RoomStoreWorkers(repository);
        this.listener = listener;
        this.placement = placement;
        this.replication = replication;
        this.stanzaIds = new StanzaIds(config.stanzaIdNode, clock.currentTimeMillis());
        this.occupantIdSecret = new byte[16];
        new java.security.SecureRandom().nextBytes(occupantIdSecret);
    }

    /** Per-process secret of XEP-0421 occupant ids: stable while the service runs, unguessable from the JID. */
    private final byte[] occupantIdSecret;

    /**
     * The XEP-0421 occupant id of a user in a room: the first 16 bytes of SHA-256(secret, room, bare JID), base64url.
     * Computed once per join, never per message.
     */
    String occupantId(Jid room, Jid userKey) {
        try {
            java.security.MessageDigest d = java.security.MessageDigest.getInstance("SHA-256");
            d.update(occupantIdSecret);
            d.update(room.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            d.update((byte) 0);
            d.update(userKey.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            byte[] h = d.digest();
            return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(java.util.Arrays.copyOf(h, 16));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }

    boolean isServiceAdmin(Jid user) {
        Jid key = Stanzas.userKey(user);
        return config.serviceAdmins.contains(key) || RoomAdminBridge.ACTOR_BARE.equals(key);
    }

    boolean mayCreateRooms(Jid user) {
        Jid bare = Stanzas.userKey(user);
        MucConfig config = this.config;
        return switch (config.roomCreation) {
            case ANYONE -> true;
            case LISTED -> config.roomCreators.contains(bare) || isServiceAdmin(bare);
            case ADMINS_ONLY -> isServiceAdmin(bare);
        };
    }

    void populationChanged() {
        listener.population(roomCount.get(), occupantCount.get());
    }
}
