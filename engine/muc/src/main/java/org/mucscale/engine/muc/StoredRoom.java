package org.mucscale.engine.muc;

import java.util.Map;

import org.mucscale.engine.stanza.Jid;

/**
 * A persistent room as the repository keeps it. {@code affiliations} maps bare JIDs to their affiliation (NONE is
 * never stored). {@code password} is null when the room has none. {@code archivingEnabled} is null for a room stored
 * before archiving was configurable: it follows {@code mucscale.muc.archive-by-default}.
 */
public record StoredRoom(Jid room, String name, String description, String subject, boolean isPublic,
                         boolean moderated, boolean membersOnly, String password, int maxOccupants,
                         boolean nonAnonymous, boolean participantsChangeSubject, String allowPrivateMessages,
                         boolean loggingEnabled, PresencePolicy presencePolicy, Map<Jid, Affiliation> affiliations,
                         Boolean archivingEnabled) {
    public StoredRoom {
        affiliations = Map.copyOf(affiliations);
    }

    /** A room whose archiving follows the service default. */
    public StoredRoom(Jid room, String name, String description, String subject, boolean isPublic, boolean moderated,
                      boolean membersOnly, String password, int maxOccupants, boolean nonAnonymous,
                      boolean participantsChangeSubject, String allowPrivateMessages, boolean loggingEnabled,
                      PresencePolicy presencePolicy, Map<Jid, Affiliation> affiliations) {
        this(room, name, description, subject, isPublic, moderated, membersOnly, password, maxOccupants, nonAnonymous,
                participantsChangeSubject, allowPrivateMessages, loggingEnabled, presencePolicy, affiliations, null);
    }
}
