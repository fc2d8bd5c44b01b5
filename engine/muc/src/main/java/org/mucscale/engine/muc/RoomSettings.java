package org.mucscale.engine.muc;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import org.mucscale.engine.stanza.Jid;

/**
 * A room's configuration as one immutable value: what the owner's form shows and changes, what is stored and
 * replicated. A change makes a new value ({@link #toBuilder()}, or {@link RoomConfigForm.Submission#applyTo}) that the
 * room swaps in whole, so a reader never sees half a change and the field list lives here, in {@link #defaults},
 * {@link #fromStored} and {@link #toStored}, and nowhere else.
 *
 * <p>Thread: immutable, so any thread may read a value it was handed; only the room's shard thread swaps the room's
 * current value ({@link Room#settings(RoomSettings)}).
 *
 * @param password null: none
 * @param archivingEnabled muc#roomconfig_enablearchiving: messages are logged and the archive answers XEP-0313 queries
 * @param memberListRoles roles whose occupants may retrieve the member list besides admins and owners
 *                        (muc#roomconfig_getmemberlist)
 * @param registrationOpen users may register with the room (XEP-0045 7.10) and so become members
 */
record RoomSettings(String name, String description, boolean isPublic, boolean persistent, boolean moderated,
                    boolean membersOnly, String password, int maxOccupants, boolean nonAnonymous,
                    boolean participantsChangeSubject, PrivateMessagePolicy allowPrivateMessages,
                    boolean loggingEnabled, boolean archivingEnabled, PresencePolicy presencePolicy,
                    Set<Role> presenceBroadcastRoles, Set<Role> memberListRoles, boolean registrationOpen) {

    /** Every role an occupant can have: whose presence a new room broadcasts. */
    static final Set<Role> ALL_ROLES = Collections.unmodifiableSet(
            EnumSet.of(Role.MODERATOR, Role.PARTICIPANT, Role.VISITOR));

    RoomSettings {
        // EnumSet keeps the roles in declaration order (the form lists them so) and makes contains() cheap
        presenceBroadcastRoles = frozen(presenceBroadcastRoles);
        memberListRoles = frozen(memberListRoles);
    }

    private static Set<Role> frozen(Set<Role> roles) {
        return Collections.unmodifiableSet(roles.isEmpty() ? EnumSet.noneOf(Role.class) : EnumSet.copyOf(roles));
    }

    /** A new room's configuration: the service defaults. */
    static RoomSettings defaults(Jid room, MucConfig c) {
        return new RoomSettings(room.local(), "", c.defaultPublic, c.defaultPersistent, false, false, null,
                c.defaultMaxOccupants, c.defaultNonAnonymous, c.defaultParticipantsChangeSubject,
                PrivateMessagePolicy.ANYONE, false, c.archiveByDefault, c.defaultPresencePolicy,
                ALL_ROLES, EnumSet.noneOf(Role.class), false);
    }

    /**
     * A stored or replicated room's configuration. The store keeps neither persistence (a stored room is persistent)
     * nor the presence broadcast roles (replication carries them beside), so both are given.
     */
    static RoomSettings fromStored(StoredRoom s, boolean persistent, Set<Role> presenceBroadcastRoles, MucConfig c) {
        return new RoomSettings(s.name(), s.description() == null ? "" : s.description(), s.isPublic(), persistent,
                s.moderated(), s.membersOnly(), s.password(), s.maxOccupants(), s.nonAnonymous(),
                s.participantsChangeSubject(), PrivateMessagePolicy.fromStored(s.allowPrivateMessages()),
                s.loggingEnabled(), s.archivingEnabled() == null ? c.archiveByDefault : s.archivingEnabled(),
                s.presencePolicy(), presenceBroadcastRoles, s.memberListRoles(), s.registrationOpen());
    }

    /** The room as the repository keeps it: this configuration with the room's subject and affiliations. */
    StoredRoom toStored(Jid room, String subject, Map<Jid, Affiliation> affiliations,
                        Map<Jid, String> reservedNicks) {
        return new StoredRoom(room, name, description, subject, isPublic, moderated, membersOnly, password,
                maxOccupants, nonAnonymous, participantsChangeSubject, allowPrivateMessages.xmlName(), loggingEnabled,
                presencePolicy, affiliations, registrationOpen, memberListRoles, reservedNicks, archivingEnabled);
    }

    /** The name the room shows: its configured name, else its address's local part. */
    String displayName(Jid room) {
        return name == null || name.isEmpty() ? room.local() : name;
    }

    Builder toBuilder() {
        return new Builder(this);
    }

    /** A copy being changed; {@link #build()} makes the new value. Confined to the thread that made it. */
    static final class Builder {
        String name;
        String description;
        boolean isPublic;
        boolean persistent;
        boolean moderated;
        boolean membersOnly;
        String password;
        int maxOccupants;
        boolean nonAnonymous;
        boolean participantsChangeSubject;
        PrivateMessagePolicy allowPrivateMessages;
        boolean loggingEnabled;
        boolean archivingEnabled;
        PresencePolicy presencePolicy;
        Set<Role> presenceBroadcastRoles;
        Set<Role> memberListRoles;
        boolean registrationOpen;

        private Builder(RoomSettings s) {
            name = s.name;
            description = s.description;
            isPublic = s.isPublic;
            persistent = s.persistent;
            moderated = s.moderated;
            membersOnly = s.membersOnly;
            password = s.password;
            maxOccupants = s.maxOccupants;
            nonAnonymous = s.nonAnonymous;
            participantsChangeSubject = s.participantsChangeSubject;
            allowPrivateMessages = s.allowPrivateMessages;
            loggingEnabled = s.loggingEnabled;
            archivingEnabled = s.archivingEnabled;
            presencePolicy = s.presencePolicy;
            presenceBroadcastRoles = s.presenceBroadcastRoles;
            memberListRoles = s.memberListRoles;
            registrationOpen = s.registrationOpen;
        }

        RoomSettings build() {
            return new RoomSettings(name, description, isPublic, persistent, moderated, membersOnly, password,
                    maxOccupants, nonAnonymous, participantsChangeSubject, allowPrivateMessages, loggingEnabled,
                    archivingEnabled, presencePolicy, presenceBroadcastRoles, memberListRoles, registrationOpen);
        }
    }
}
