package org.mucscale.engine.muc;

import java.util.Map;
import java.util.Set;

import org.mucscale.engine.stanza.Jid;

/**
 * A persistent room as the repository keeps it. {@code affiliations} maps bare JIDs to their affiliation (NONE is
 * never stored). {@code password} is null when the room has none. {@code registrationOpen}: users may register with
 * the room (XEP-0045 7.10) and so become members; {@code memberListRoles}: the roles whose occupants may retrieve the
 * member list besides admins and owners ({@code muc#roomconfig_getmemberlist}); {@code reservedNicks}: the nickname
 * each registered user reserved (XEP-0045 7.12), keyed by bare JID, every one of them also in {@code affiliations}.
 * {@code archivingEnabled} is null for a room stored before archiving was configurable: it follows
 * {@code mucscale.muc.archive-by-default}.
 */
public record StoredRoom(Jid room, String name, String description, String subject, boolean isPublic,
                         boolean moderated, boolean membersOnly, String password, int maxOccupants,
                         boolean nonAnonymous, boolean participantsChangeSubject, String allowPrivateMessages,
                         boolean loggingEnabled, PresencePolicy presencePolicy, Map<Jid, Affiliation> affiliations,
                         boolean registrationOpen, Set<Role> memberListRoles, Map<Jid, String> reservedNicks,
                         Boolean archivingEnabled) {
    public StoredRoom {
        affiliations = Map.copyOf(affiliations);
        memberListRoles = Set.copyOf(memberListRoles);
        reservedNicks = Map.copyOf(reservedNicks);
    }

    /**
     * A room without registration, reserved nicknames or member-list roles, whose archiving follows the service
     * default (rooms stored before these existed).
     */
    public StoredRoom(Jid room, String name, String description, String subject, boolean isPublic,
                      boolean moderated, boolean membersOnly, String password, int maxOccupants,
                      boolean nonAnonymous, boolean participantsChangeSubject, String allowPrivateMessages,
                      boolean loggingEnabled, PresencePolicy presencePolicy, Map<Jid, Affiliation> affiliations) {
        this(room, name, description, subject, isPublic, moderated, membersOnly, password, maxOccupants, nonAnonymous,
                participantsChangeSubject, allowPrivateMessages, loggingEnabled, presencePolicy, affiliations, false,
                Set.of(), Map.of(), null);
    }
}
