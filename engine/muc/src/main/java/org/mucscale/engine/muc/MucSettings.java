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

    public static final Setting<java.time.Duration> ROOM_STORE_TIMEOUT = Setting.ofDuration(
            "mucscale.muc.room-store-timeout", java.time.Duration.ofSeconds(10), java.time.Duration.ofMillis(100),
            java.time.Duration.ofMinutes(10), true,
            "How long a persistent room's change may wait for the database before it is logged as overdue (the room"
                    + " goes on meanwhile), and how long a stop waits for unstored room changes.");

    public static final List<Setting<?>> ALL = List.of(SERVICE_NAME, SHARD_THREADS, COMMAND_QUEUE_CAPACITY,
            ROOM_CREATION, ROOM_CREATORS, SERVICE_ADMINS, HISTORY_SIZE, DEFAULT_MAX_OCCUPANTS,
            DEFAULT_PRESENCE_POLICY, PRESENCE_BROADCAST_LIMIT, DEFAULT_PUBLIC, DEFAULT_PERSISTENT,
            DEFAULT_NON_ANONYMOUS, DEFAULT_PARTICIPANTS_CHANGE_SUBJECT, PRIVATE_MESSAGES, OCCUPANT_MESSAGES_PER_SECOND,
            OCCUPANT_BURST, ROOM_MESSAGES_PER_SECOND, ROOM_BURST, MAX_MESSAGE_BYTES, MAX_MESSAGE_LINES,
            MAX_STANZA_CHARS, MODERATORS_EXEMPT, MAX_NICKNAME_LENGTH, LOG_ALL_ROOMS, STANZA_ID_NODE, OCCUPANT_IDS,
            ROOM_STORE_TIMEOUT);

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
