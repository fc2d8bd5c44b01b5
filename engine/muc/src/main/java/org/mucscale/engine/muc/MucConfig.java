package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.mucscale.engine.config.Settings;
import org.mucscale.engine.stanza.Jid;

/**
 * The MUC service's configuration: immutable, validated by {@link MucSettings} when the {@link Settings} snapshot was
 * built. Build with {@link #from(Settings)}; {@link #defaults()} for tests.
 */
public final class MucConfig {
    final String serviceName;
    final int shardThreads;
    final int commandQueueCapacity;
    final RoomCreationPolicy roomCreation;
    final Set<Jid> roomCreators;
    final Set<Jid> serviceAdmins;
    final int historySize;
    final int defaultMaxOccupants;
    final PresencePolicy defaultPresencePolicy;
    final int presenceBroadcastLimit;
    final boolean defaultPublic;
    final boolean defaultPersistent;
    final boolean defaultNonAnonymous;
    final boolean defaultParticipantsChangeSubject;
    final boolean privateMessages;
    final int occupantMessagesPerSecond;
    final int occupantBurst;
    final int roomMessagesPerSecond;
    final int roomBurst;
    final int maxMessageBytes;
    final int maxMessageLines;
    final int maxStanzaChars;
    final boolean moderatorsExempt;
    final int maxNicknameLength;
    final boolean logAllRooms;
    final String stanzaIdNode;
    final boolean occupantIds;
    final int rateMemorySeconds;
    final int occupantJoinsPerMinute;
    final int occupantJoinBurst;
    final int roomJoinsPerMinute;
    final int roomJoinBurst;
    final int userJoinsPerMinute;
    final int userJoinBurst;
    final int userInvitesPerMinute;
    final int userInviteBurst;
    final int roomInvitesPerMinute;
    final int roomInviteBurst;
    final int userErrorsPerMinute;
    final int userErrorBurst;
    final int invitationTtlSeconds;
    final int maxPendingInvitations;
    final int maxRoomsPerUser;
    final int maxRooms;
    final long roomStoreTimeoutMs;
    final boolean archiveByDefault;
    final int archiveMaxPage;
    final int archiveThreads;
    final int archiveQueue;

    private MucConfig(Settings s) {
        serviceName = s.get(MucSettings.SERVICE_NAME);
        int threads = s.get(MucSettings.SHARD_THREADS);
        shardThreads = threads == 0 ? Math.max(1, Runtime.getRuntime().availableProcessors()) : threads;
        commandQueueCapacity = s.get(MucSettings.COMMAND_QUEUE_CAPACITY);
        roomCreation = s.get(MucSettings.ROOM_CREATION);
        roomCreators = jids(s.get(MucSettings.ROOM_CREATORS));
        serviceAdmins = jids(s.get(MucSettings.SERVICE_ADMINS));
        historySize = s.get(MucSettings.HISTORY_SIZE);
        defaultMaxOccupants = s.get(MucSettings.DEFAULT_MAX_OCCUPANTS);
        defaultPresencePolicy = s.get(MucSettings.DEFAULT_PRESENCE_POLICY);
        presenceBroadcastLimit = s.get(MucSettings.PRESENCE_BROADCAST_LIMIT);
        defaultPublic = s.get(MucSettings.DEFAULT_PUBLIC);
        defaultPersistent = s.get(MucSettings.DEFAULT_PERSISTENT);
        defaultNonAnonymous = s.get(MucSettings.DEFAULT_NON_ANONYMOUS);
        defaultParticipantsChangeSubject = s.get(MucSettings.DEFAULT_PARTICIPANTS_CHANGE_SUBJECT);
        privateMessages = s.get(MucSettings.PRIVATE_MESSAGES);
        occupantMessagesPerSecond = s.get(MucSettings.OCCUPANT_MESSAGES_PER_SECOND);
        occupantBurst = s.get(MucSettings.OCCUPANT_BURST);
        roomMessagesPerSecond = s.get(MucSettings.ROOM_MESSAGES_PER_SECOND);
        roomBurst = s.get(MucSettings.ROOM_BURST);
        maxMessageBytes = s.get(MucSettings.MAX_MESSAGE_BYTES);
        maxMessageLines = s.get(MucSettings.MAX_MESSAGE_LINES);
        maxStanzaChars = s.get(MucSettings.MAX_STANZA_CHARS);
        moderatorsExempt = s.get(MucSettings.MODERATORS_EXEMPT);
        maxNicknameLength = s.get(MucSettings.MAX_NICKNAME_LENGTH);
        logAllRooms = s.get(MucSettings.LOG_ALL_ROOMS);
        stanzaIdNode = s.get(MucSettings.STANZA_ID_NODE);
        occupantIds = s.get(MucSettings.OCCUPANT_IDS);
        rateMemorySeconds = s.get(MucSettings.RATE_MEMORY_SECONDS);
        occupantJoinsPerMinute = s.get(MucSettings.OCCUPANT_JOINS_PER_MINUTE);
        occupantJoinBurst = s.get(MucSettings.OCCUPANT_JOIN_BURST);
        roomJoinsPerMinute = s.get(MucSettings.ROOM_JOINS_PER_MINUTE);
        roomJoinBurst = s.get(MucSettings.ROOM_JOIN_BURST);
        userJoinsPerMinute = s.get(MucSettings.USER_JOINS_PER_MINUTE);
        userJoinBurst = s.get(MucSettings.USER_JOIN_BURST);
        userInvitesPerMinute = s.get(MucSettings.USER_INVITES_PER_MINUTE);
        userInviteBurst = s.get(MucSettings.USER_INVITE_BURST);
        roomInvitesPerMinute = s.get(MucSettings.ROOM_INVITES_PER_MINUTE);
        roomInviteBurst = s.get(MucSettings.ROOM_INVITE_BURST);
        userErrorsPerMinute = s.get(MucSettings.USER_ERRORS_PER_MINUTE);
        userErrorBurst = s.get(MucSettings.USER_ERROR_BURST);
        invitationTtlSeconds = s.get(MucSettings.INVITATION_TTL_SECONDS);
        maxPendingInvitations = s.get(MucSettings.MAX_PENDING_INVITATIONS);
        maxRoomsPerUser = s.get(MucSettings.MAX_ROOMS_PER_USER);
        maxRooms = s.get(MucSettings.MAX_ROOMS);
        roomStoreTimeoutMs = s.get(MucSettings.ROOM_STORE_TIMEOUT).toMillis();
        archiveByDefault = s.get(MucSettings.ARCHIVE_BY_DEFAULT);
        archiveMaxPage = s.get(MucSettings.ARCHIVE_MAX_PAGE);
        archiveThreads = s.get(MucSettings.ARCHIVE_THREADS);
        archiveQueue = s.get(MucSettings.ARCHIVE_QUEUE);
    }

    /** Copies {@code dynamic}'s values but keeps the values of settings that need a restart from {@code running}. */
    private MucConfig(MucConfig dynamic, MucConfig running) {
        serviceName = running.serviceName;
        shardThreads = running.shardThreads;
        commandQueueCapacity = running.commandQueueCapacity;
        historySize = running.historySize;
        stanzaIdNode = running.stanzaIdNode;
        occupantIds = running.occupantIds;
        roomCreation = dynamic.roomCreation;
        roomCreators = dynamic.roomCreators;
        serviceAdmins = dynamic.serviceAdmins;
        defaultMaxOccupants = dynamic.defaultMaxOccupants;
        defaultPresencePolicy = dynamic.defaultPresencePolicy;
        presenceBroadcastLimit = dynamic.presenceBroadcastLimit;
        defaultPublic = dynamic.defaultPublic;
        defaultPersistent = dynamic.defaultPersistent;
        defaultNonAnonymous = dynamic.defaultNonAnonymous;
        defaultParticipantsChangeSubject = dynamic.defaultParticipantsChangeSubject;
        privateMessages = dynamic.privateMessages;
        occupantMessagesPerSecond = dynamic.occupantMessagesPerSecond;
        occupantBurst = dynamic.occupantBurst;
        roomMessagesPerSecond = dynamic.roomMessagesPerSecond;
        roomBurst = dynamic.roomBurst;
        maxMessageBytes = dynamic.maxMessageBytes;
        maxMessageLines = dynamic.maxMessageLines;
        maxStanzaChars = dynamic.maxStanzaChars;
        moderatorsExempt = dynamic.moderatorsExempt;
        maxNicknameLength = dynamic.maxNicknameLength;
        logAllRooms = dynamic.logAllRooms;
        rateMemorySeconds = dynamic.rateMemorySeconds;
        occupantJoinsPerMinute = dynamic.occupantJoinsPerMinute;
        occupantJoinBurst = dynamic.occupantJoinBurst;
        roomJoinsPerMinute = dynamic.roomJoinsPerMinute;
        roomJoinBurst = dynamic.roomJoinBurst;
        userJoinsPerMinute = dynamic.userJoinsPerMinute;
        userJoinBurst = dynamic.userJoinBurst;
        userInvitesPerMinute = dynamic.userInvitesPerMinute;
        userInviteBurst = dynamic.userInviteBurst;
        roomInvitesPerMinute = dynamic.roomInvitesPerMinute;
        roomInviteBurst = dynamic.roomInviteBurst;
        userErrorsPerMinute = dynamic.userErrorsPerMinute;
        userErrorBurst = dynamic.userErrorBurst;
        invitationTtlSeconds = dynamic.invitationTtlSeconds;
        maxPendingInvitations = dynamic.maxPendingInvitations;
        maxRoomsPerUser = dynamic.maxRoomsPerUser;
        maxRooms = dynamic.maxRooms;
        roomStoreTimeoutMs = dynamic.roomStoreTimeoutMs;
        archiveByDefault = dynamic.archiveByDefault;
        archiveMaxPage = dynamic.archiveMaxPage;
        archiveThreads = running.archiveThreads;
        archiveQueue = running.archiveQueue;
    }

    /** {@code next}'s dynamic values on top of this running configuration; the others stay until a restart. */
    MucConfig withDynamicValuesOf(MucConfig next) {
        return new MucConfig(next, this);
    }

    /** Keys of non-dynamic settings whose value differs in {@code next} (they need a restart). */
    List<String> restartNeededFor(MucConfig next) {
        List<String> keys = new ArrayList<>();
        if (!serviceName.equals(next.serviceName)) {
            keys.add(MucSettings.SERVICE_NAME.key());
        }
        if (shardThreads != next.shardThreads) {
            keys.add(MucSettings.SHARD_THREADS.key());
        }
        if (commandQueueCapacity != next.commandQueueCapacity) {
            keys.add(MucSettings.COMMAND_QUEUE_CAPACITY.key());
        }
        if (historySize != next.historySize) {
            keys.add(MucSettings.HISTORY_SIZE.key());
        }
        if (!stanzaIdNode.equals(next.stanzaIdNode)) {
            keys.add(MucSettings.STANZA_ID_NODE.key());
        }
        if (occupantIds != next.occupantIds) {
            keys.add(MucSettings.OCCUPANT_IDS.key());
        }
        if (archiveThreads != next.archiveThreads) {
            keys.add(MucSettings.ARCHIVE_THREADS.key());
        }
        if (archiveQueue != next.archiveQueue) {
            keys.add(MucSettings.ARCHIVE_QUEUE.key());
        }
        return keys;
    }

    /** Reads the {@code mucscale.muc.*} values of a snapshot (which must contain {@link MucSettings#ALL}). */
    public static MucConfig from(Settings settings) {
        return new MucConfig(settings);
    }

    /** Every setting at its default. */
    public static MucConfig defaults() {
        return new MucConfig(Settings.defaults(MucSettings.ALL));
    }

    public int shardThreads() {
        return shardThreads;
    }

    public int commandQueueCapacity() {
        return commandQueueCapacity;
    }

    private static Set<Jid> jids(String list) {
        Set<Jid> out = new LinkedHashSet<>();
        for (String part : list.split(",")) {
            String p = part.trim();
            if (!p.isEmpty()) {
                out.add(Stanzas.userKey(Jid.parse(p)));
            }
        }
        return Set.copyOf(out);
    }
}
