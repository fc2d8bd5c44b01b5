package org.mucscale.engine.muc;

import java.util.Map;

import org.mucscale.engine.stanza.Jid;

/**
 * A persistent room as the repository keeps it. {@code affiliations} maps bare JIDs to their affiliation (NONE is
 * never stored). {@code password} is null when the room has none.
 */
public record StoredRoom(Jid room, String name, String description, String subject, boolean isPublic,
                         boolean moderated, boolean membersOnly, String password, int maxOccupants,
                         boolean nonAnonymous, boolean participantsChangeSubject, String allowPrivateMessages,
                         boolean loggingEnabled, PresencePolicy presencePolicy, Map<Jid, Affiliation> affiliations) {
    public StoredRoom {
        affiliations = Map.copyOf(affiliations);
    }
}
