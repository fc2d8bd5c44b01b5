package org.mucscale.engine.muc;

import java.util.List;

import org.mucscale.engine.config.Setting;

/** Every tunable of the MUC service ({@code mucscale.muc.*}). Read once into a {@link MucConfig}. */
public final class MucSettings {
    private MucSettings() {
    }

    public static final Setting<String> SERVICE_NAME = Setting.ofString("mucscale.muc.service-name", "Chatrooms",
            false, "Name of the service shown in service discovery.", v -> v == null || v.isBlank() ? "non-empty text" : null);

    public static final Setting<Integer> SHARD_THREADS = Setting.ofInt("mucscale.muc.shard-threads", 0, 0, 256, false,
            "Room threads (each room is written by exactly one); 0 means one per available core.");

    public static final Setting<Integer> COMMAND_QUEUE_CAPACITY = Setting.ofInt("mucscale.muc.command-queue-capacity",
            16384, 16, 1 << 22, false,
            "Stanzas waiting per room thread; when full, senders get a resource-constraint error (never queued without bound).");

    public static final Setting<RoomCreationPolicy> ROOM_CREATION = Setting.ofEnum("mucscale.muc.room-creation",
            RoomCreationPolicy.class, RoomCreationPolicy.ANYONE, true,
            "Who may create a room by joining it: ANYONE, LISTED (room-creators and service admins) or ADMINS_ONLY.");

    public static final Setting<String> ROOM_CREATORS = Setting.ofString("mucscale.muc.room-creators", "", true,
            "Comma-separated bare JIDs allowed to create rooms when room-creation is LISTED.", MucSettings::checkJidList);

    public static final Setting<String> SERVICE_ADMINS = Setting.ofString("mucscale.muc.service-admins", "", true,
            "Comma-separated bare JIDs that are owners of every room and may always create rooms.",
            MucSettings::checkJidList);

    public static final Setting<Integer> HISTORY_SIZE = Setting.ofInt("mucscale.muc.history-size", 20, 0, 10000, false,
            "Messages kept in memory per room and offered to joining occupants.");

    public static final Setting<Integer> DEFAULT_MAX_OCCUPANTS = Setting.ofInt("mucscale.muc.default-max-occupants",
            1000, 1, 1_000_000, true, "Maximum occupants of a new room until its owner configures another value.");

    public static final Setting<PresencePolicy> DEFAULT_PRESENCE_POLICY = Setting.ofEnum(
            "mucscale.muc.default-presence-policy", PresencePolicy.class, PresencePolicy.FULL, true,
            "Presence broadcast of a new room: FULL (XEP-0045), MODERATORS_ONLY or NONE_ABOVE_N.");

    public static final Setting<Integer> PRESENCE_BROADCAST_LIMIT = Setting.ofInt(
            "mucscale.muc.presence-broadcast-limit", 200, 1, 1_000_000, true,
            "N of the NONE_ABOVE_N presence policy: above this many occupants joins and leaves are not broadcast.");

    public static final Setting<Boolean> DEFAULT_PUBLIC = Setting.ofBoolean("mucscale.muc.default-public", true, true,
            "Whether a new room is listed in service discovery.");

    public static final Setting<Boolean> DEFAULT_PERSISTENT = Setting.ofBoolean("mucscale.muc.default-persistent",
            false, true, "Whether a new room survives its last occupant leaving.");

    public static final Setting<Boolean> DEFAULT_NON_ANONYMOUS = Setting.ofBoolean(
            "mucscale.muc.default-non-anonymous", false, true,
            "Whether a new room shows occupants' real JIDs to everyone (else to moderators only).");

    public static final Setting<Boolean> DEFAULT_PARTICIPANTS_CHANGE_SUBJECT = Setting.ofBoolean(
            "mucscale.muc.default-participants-change-subject", false, true,
            "Whether participants (not only moderators) of a new room may change its subject.");

    public static final Setting<Boolean> PRIVATE_MESSAGES = Setting.ofBoolean("mucscale.muc.private-messages", true,
            true, "Whether occupants may send private messages to each other at all (rooms may restrict further).");

    public static final Setting<Integer> OCCUPANT_MESSAGES_PER_SECOND = Setting.ofInt(
            "mucscale.muc.occupant-messages-per-second", 5, 1, 1_000_000, true,
            "Sustained groupchat messages per second one occupant may send (token bucket rate).");

    public static final Setting<Integer> OCCUPANT_BURST = Setting.ofInt("mucscale.muc.occupant-burst", 20, 1,
            1_000_000, true, "Messages one occupant may send at once before the rate applies (token bucket size).");

    public static final Setting<Integer> ROOM_MESSAGES_PER_SECOND = Setting.ofInt(
            "mucscale.muc.room-messages-per-second", 500, 1, 10_000_000, true,
            "Sustained groupchat messages per second one room accepts from all occupants together.");

    public static final Setting<Integer> ROOM_BURST = Setting.ofInt("mucscale.muc.room-burst", 1000, 1, 10_000_000,
            true, "Messages one room accepts at once before its rate applies.");

    public static final Setting<Integer> MAX_MESSAGE_BYTES = Setting.ofInt("mucscale.muc.max-message-bytes", 10_000,
            16, 10_000_000, true, "Largest body plus subject of a message, in UTF-8 bytes.");

    public static final Setting<Integer> MAX_MESSAGE_LINES = Setting.ofInt("mucscale.muc.max-message-lines", 100, 1,
            1_000_000, true, "Most lines in one message body.");

    public static final Setting<Integer> MAX_STANZA_CHARS = Setting.ofInt("mucscale.muc.max-stanza-chars", 65_536,
            256, 10_000_000, true, "Largest stanza (text and attribute characters) a room accepts.");

    public static final Setting<Boolean> MODERATORS_EXEMPT = Setting.ofBoolean("mucscale.muc.moderators-exempt", true,
            true, "Whether moderators bypass the per-occupant and per-room message rates.");

    public static final Setting<Integer> MAX_NICKNAME_LENGTH = Setting.ofInt("mucscale.muc.max-nickname-length", 64, 1,
            1023, true, "Longest nickname, in code points after NFKC normalisation.");

    public static final Setting<Boolean> LOG_ALL_ROOMS = Setting.ofBoolean("mucscale.muc.log-all-rooms", true, true,
            "Whether every accepted message goes to the room log sink, or only those of rooms with logging enabled.");

    public static final Setting<String> STANZA_ID_NODE = Setting.ofString("mucscale.muc.stanza-id-node", "", false,
            "Prefix of generated stanza ids, unique per node in a cluster; empty picks a random one at start.",
            v -> v == null ? "letters and digits, at most 16" : checkNode(v));

    public static final Setting<Boolean> OCCUPANT_IDS = Setting.ofBoolean("mucscale.muc.occupant-ids", true, false,
            "Whether rooms add XEP-0421 occupant ids (stable per user and room while the service runs) to presence and"
                    + " messages.");

    // Flood control beyond messages (issue 18): churn, invitations and room creation. Rates are per minute because
    // the sane values are small; each limit is a token bucket of `burst` refilled at the rate.

    public static final Setting<Integer> RATE_MEMORY_SECONDS = Setting.ofInt("mucscale.muc.rate-memory-seconds", 600, 1,
            86_400, true, "How long a user's budgets in a room (messages, presence, joins) outlive their last occupant"
                    + " session, so leaving and rejoining does not refill them; keep it above the slowest refill time.");

    public static final Setting<Integer> OCCUPANT_JOINS_PER_MINUTE = Setting.ofInt(
            "mucscale.muc.occupant-joins-per-minute", 20, 1, 60_000, true,
            "Joins and nickname changes one user (bare JID) may make in one room per minute; leaves are never refused"
                    + " but spend the same budget.");

    // 3: a reconnect or two at once; each admitted join in a room of n costs the server about 2n presence stanzas
    public static final Setting<Integer> OCCUPANT_JOIN_BURST = Setting.ofInt("mucscale.muc.occupant-join-burst", 3, 1,
            10_000, true, "Joins and nickname changes of one user in one room at once before its rate applies.");

    public static final Setting<Integer> ROOM_JOINS_PER_MINUTE = Setting.ofInt("mucscale.muc.room-joins-per-minute",
            6_000, 1, 6_000_000, true, "Joins and nickname changes one room accepts per minute from all users together.");

    public static final Setting<Integer> ROOM_JOIN_BURST = Setting.ofInt("mucscale.muc.room-join-burst", 1_000, 1,
            1_000_000, true, "Joins and nickname changes one room accepts at once (e.g. everyone rejoining after a"
                    + " restart) before its rate applies.");

    public static final Setting<Integer> USER_JOINS_PER_MINUTE = Setting.ofInt("mucscale.muc.user-joins-per-minute",
            120, 1, 6_000_000, true, "Joins (room creations included) one user may make per minute across all rooms"
                    + " of this node.");

    public static final Setting<Integer> USER_JOIN_BURST = Setting.ofInt("mucscale.muc.user-join-burst", 60, 1,
            1_000_000, true, "Joins one user may make at once across all rooms (e.g. bookmarks at login) before its"
                    + " rate applies.");

    public static final Setting<Integer> USER_INVITES_PER_MINUTE = Setting.ofInt(
            "mucscale.muc.user-invites-per-minute", 20, 1, 60_000, true,
            "Invitations one user may send per minute across all rooms of this node.");

    public static final Setting<Integer> USER_INVITE_BURST = Setting.ofInt("mucscale.muc.user-invite-burst", 20, 1,
            10_000, true, "Invitations one user may send at once before its rate applies.");

    public static final Setting<Integer> ROOM_INVITES_PER_MINUTE = Setting.ofInt(
            "mucscale.muc.room-invites-per-minute", 120, 1, 600_000, true,
            "Invitations one room relays per minute from all its occupants together.");

    public static final Setting<Integer> ROOM_INVITE_BURST = Setting.ofInt("mucscale.muc.room-invite-burst", 50, 1,
            100_000, true, "Invitations one room relays at once before its rate applies.");

    public static final Setting<Integer> USER_ERRORS_PER_MINUTE = Setting.ofInt("mucscale.muc.user-errors-per-minute",
            60, 1, 6_000_000, true, "Error replies to one user's presence and message stanzas per minute across all"
                    + " rooms; beyond it (a flood) a refused stanza is dropped without an error, and counted.");

    public static final Setting<Integer> USER_ERROR_BURST = Setting.ofInt("mucscale.muc.user-error-burst", 20, 1,
            1_000_000, true, "Error replies one user may get at once before user-errors-per-minute applies.");

    public static final Setting<Integer> INVITATION_TTL_SECONDS = Setting.ofInt("mucscale.muc.invitation-ttl-seconds",
            3_600, 1, 604_800, true, "How long a relayed invitation may be declined; a decline with no pending"
                    + " invitation from its addressee is refused, never relayed.");

    public static final Setting<Integer> MAX_PENDING_INVITATIONS = Setting.ofInt(
            "mucscale.muc.max-pending-invitations", 1_000, 1, 1_000_000, true,
            "Invitations one room remembers for declines; beyond, the oldest is forgotten (its decline is refused).");

    public static final Setting<Integer> MAX_ROOMS_PER_USER = Setting.ofInt("mucscale.muc.max-rooms-per-user", 100, 1,
            10_000_000, true, "Rooms one user may have created that still exist on this node (service admins are"
                    + " exempt); more creations get not-allowed.");

    public static final Setting<Integer> MAX_ROOMS = Setting.ofInt("mucscale.muc.max-rooms", 100_000, 1, 100_000_000,
            true, "Rooms this node holds at most; creating more gets resource-constraint (concurrent creations on"
                    + " several room threads may pass it by at most one per thread).");
    public static final Setting<java.time.Duration> ROOM_STORE_TIMEOUT = Setting.ofDuration(
            "mucscale.muc.room-store-timeout", java.time.Duration.ofSeconds(10), java.time.Duration.ofMillis(100),
            java.time.Duration.ofMinutes(10), true,
            "How long a persistent room's change may wait for the database before it is logged as overdue (the room"
                    + " goes on meanwhile), and how long a stop waits for unstored room changes.");

    // Message archive (XEP-0313), served from the room log (issue 16).

    public static final Setting<Boolean> ARCHIVE_BY_DEFAULT = Setting.ofBoolean("mucscale.muc.archive-by-default",
            true, true, "Whether new rooms archive their messages (muc#roomconfig_enablearchiving) and answer XEP-0313"
                    + " queries; an archived room is logged even when log-all-rooms is off.");

    public static final Setting<Integer> ARCHIVE_MAX_PAGE = Setting.ofInt("mucscale.muc.archive-max-page", 250, 1,
            10_000, true, "Most messages one archive query returns; a larger RSM max is clamped to it.");

    public static final Setting<Integer> ARCHIVE_THREADS = Setting.ofInt("mucscale.muc.archive-threads", 2, 1, 64,
            false, "Threads that run archive queries against the database, off the room threads.");

    public static final Setting<Integer> ARCHIVE_QUEUE = Setting.ofInt("mucscale.muc.archive-queue", 1_000, 1,
            1_000_000, false, "Archive queries waiting for a thread at most; beyond, a query gets resource-constraint.");

    public static final List<Setting<?>> ALL = List.of(SERVICE_NAME, SHARD_THREADS, COMMAND_QUEUE_CAPACITY,
            ROOM_CREATION, ROOM_CREATORS, SERVICE_ADMINS, HISTORY_SIZE, DEFAULT_MAX_OCCUPANTS,
            DEFAULT_PRESENCE_POLICY, PRESENCE_BROADCAST_LIMIT, DEFAULT_PUBLIC, DEFAULT_PERSISTENT,
            DEFAULT_NON_ANONYMOUS, DEFAULT_PARTICIPANTS_CHANGE_SUBJECT, PRIVATE_MESSAGES, OCCUPANT_MESSAGES_PER_SECOND,
            OCCUPANT_BURST, ROOM_MESSAGES_PER_SECOND, ROOM_BURST, MAX_MESSAGE_BYTES, MAX_MESSAGE_LINES,
            MAX_STANZA_CHARS, MODERATORS_EXEMPT, MAX_NICKNAME_LENGTH, LOG_ALL_ROOMS, STANZA_ID_NODE, OCCUPANT_IDS,
            RATE_MEMORY_SECONDS, OCCUPANT_JOINS_PER_MINUTE, OCCUPANT_JOIN_BURST, ROOM_JOINS_PER_MINUTE, ROOM_JOIN_BURST,
            USER_JOINS_PER_MINUTE, USER_JOIN_BURST, USER_INVITES_PER_MINUTE, USER_INVITE_BURST, ROOM_INVITES_PER_MINUTE,
            ROOM_INVITE_BURST, USER_ERRORS_PER_MINUTE, USER_ERROR_BURST, INVITATION_TTL_SECONDS,
            MAX_PENDING_INVITATIONS, MAX_ROOMS_PER_USER, MAX_ROOMS, ROOM_STORE_TIMEOUT, ARCHIVE_BY_DEFAULT,
            ARCHIVE_MAX_PAGE, ARCHIVE_THREADS, ARCHIVE_QUEUE);

    static String checkJidList(String value) {
        if (value == null) {
            return "comma-separated bare JIDs";
        }
        for (String part : value.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            org.mucscale.engine.stanza.Jid j = org.mucscale.engine.stanza.Jid.tryParse(p);
            if (j == null || !j.isBare()) {
                return "comma-separated bare JIDs";
            }
        }
        return null;
    }

    private static String checkNode(String v) {
        if (v.length() > 16) {
            return "letters and digits, at most 16";
        }
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) {
                return "letters and digits, at most 16";
            }
        }
        return null;
    }
}
