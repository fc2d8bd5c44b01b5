package org.mucscale.engine.muc;

import java.util.Set;

import org.mucscale.engine.muc.Stanzas.Condition;

/**
 * Every "who may" rule of a room (XEP-0045 5.1, 5.2 and the sections on each action) as pure functions of roles,
 * affiliations and configuration: no state, no stanzas, so each rule can be tested over every combination
 * (RoomPermissionsTest). The room's parts ask here and only send the refusal.
 *
 * <p>Thread: stateless; callable from any thread (the room's parts call it on the room's shard thread).
 */
final class RoomPermissions {
    private RoomPermissions() {
    }

    /** Why an action is refused: the error condition and the text the requester is sent. */
    record Refusal(Condition condition, String text) {
    }

    // ------------------------------------------------------------------------------------------------ entering

    /**
     * Whether a user of affiliation {@code aff} may enter (before nickname, password and capacity checks), or why
     * not: a locked room admits only its owners, an outcast never enters, a members-only room needs members.
     */
    static Refusal joinRefusal(boolean locked, boolean membersOnly, Affiliation aff) {
        if (locked && aff != Affiliation.OWNER) {
            return new Refusal(Condition.ITEM_NOT_FOUND, "the room is locked until its owner configures it");
        }
        if (aff == Affiliation.OUTCAST) {
            return new Refusal(Condition.FORBIDDEN, "you are banned from this room");
        }
        if (membersOnly && !aff.atLeast(Affiliation.MEMBER)) {
            return new Refusal(Condition.REGISTRATION_REQUIRED, "this room is for members only");
        }
        return null;
    }

    /** Owners enter a password-protected room without the password. */
    static boolean needsPassword(String password, Affiliation aff) {
        return password != null && !aff.atLeast(Affiliation.OWNER);
    }

    /** Admins and owners may enter a full room. */
    static boolean mayExceedCapacity(Affiliation aff) {
        return aff.atLeast(Affiliation.ADMIN);
    }

    /** The role an entering user of affiliation {@code aff} gets (XEP-0045 5.1.2). */
    static Role defaultRole(Affiliation aff, boolean moderated) {
        return switch (aff) {
            case OWNER, ADMIN -> Role.MODERATOR;
            case MEMBER -> Role.PARTICIPANT;
            case NONE -> moderated ? Role.VISITOR : Role.PARTICIPANT;
            case OUTCAST -> Role.NONE;
        };
    }

    /** The role an occupant of role {@code role} has after its affiliation went from {@code before} to {@code aff}. */
    static Role roleAfterAffiliationChange(Role role, Affiliation before, Affiliation aff, boolean moderated) {
        if (aff.atLeast(Affiliation.ADMIN)) {
            return Role.MODERATOR;
        }
        if (before.atLeast(Affiliation.ADMIN)) {
            return defaultRole(aff, moderated);
        }
        if (aff == Affiliation.MEMBER && role == Role.VISITOR) {
            return Role.PARTICIPANT;
        }
        return role;
    }

    // ------------------------------------------------------------------------------------------------ messages

    /** Visitors have no voice in a moderated room. */
    static boolean maySpeak(Role role) {
        return role != Role.VISITOR;
    }

    /** Moderators may change the subject; participants too when the room allows it. */
    static boolean maySetSubject(Role role, boolean participantsChangeSubject) {
        return role == Role.MODERATOR || (participantsChangeSubject && role == Role.PARTICIPANT);
    }

    /** Whether an occupant of role {@code role} may send private messages under {@code policy}. */
    static boolean mayPrivateMessage(PrivateMessagePolicy policy, Role role) {
        return switch (policy) {
            case ANYONE -> true;
            case PARTICIPANTS -> role == Role.PARTICIPANT || role == Role.MODERATOR;
            case MODERATORS -> role == Role.MODERATOR;
            case NONE -> false;
        };
    }

    /** Only admins and owners may invite to a members-only room (which makes the invitee a member). */
    static boolean mayInvite(boolean membersOnly, Affiliation aff) {
        return !membersOnly || aff.atLeast(Affiliation.ADMIN);
    }

    /** Moderators may retract any message (XEP-0425); {@code role} is NONE for a non-occupant. */
    static boolean mayRetract(Role role) {
        return role == Role.MODERATOR;
    }

    // ------------------------------------------------------------------------------------------------ admin

    /** Only moderators may change roles (kick, voice, moderator status) or list occupants by role. */
    static boolean mayChangeRoles(Role actorRole) {
        return actorRole == Role.MODERATOR;
    }

    /**
     * Whether a moderator of affiliation {@code actorAff} may give the occupant of role {@code targetRole} and
     * affiliation {@code targetAff} the role {@code role} (NONE: kick), or why not.
     */
    static Refusal roleChangeRefusal(Affiliation actorAff, Role targetRole, Affiliation targetAff, Role role) {
        boolean targetPrivileged = targetAff.atLeast(Affiliation.ADMIN);
        boolean targetModerator = targetRole == Role.MODERATOR;
        boolean actorPrivileged = actorAff.atLeast(Affiliation.ADMIN);
        return switch (role) {
            case NONE -> targetPrivileged || (targetModerator && !actorPrivileged)
                    ? new Refusal(Condition.NOT_ALLOWED, "admins and owners cannot be kicked") : null;
            case VISITOR -> targetPrivileged || (targetModerator && !actorPrivileged)
                    ? new Refusal(Condition.NOT_ALLOWED, "the voice of admins, owners and moderators cannot be revoked")
                    : null;
            case PARTICIPANT -> {
                if (!targetModerator) {
                    yield null;
                }
                if (!actorPrivileged) {
                    yield new Refusal(Condition.NOT_ALLOWED, "only admins and owners may revoke moderator status");
                }
                yield targetAff.compareTo(actorAff) > 0 || targetPrivileged
                        ? new Refusal(Condition.NOT_ALLOWED, "moderator status of an admin or owner cannot be revoked")
                        : null;
            }
            case MODERATOR -> actorPrivileged ? null
                    : new Refusal(Condition.FORBIDDEN, "only admins and owners may grant moderator status");
        };
    }

    /**
     * Whether a user of affiliation {@code actor} may change the affiliation {@code current} of another to
     * {@code wanted}, or why not. {@code owners} is the room's number of owners; service admins own every room.
     */
    static Refusal affiliationChangeRefusal(Affiliation actor, Affiliation current, Affiliation wanted, int owners,
                                            boolean targetIsServiceAdmin) {
        if (!actor.atLeast(Affiliation.ADMIN)) {
            return new Refusal(Condition.FORBIDDEN, "only admins and owners may change affiliations");
        }
        boolean ownerOnly = wanted.atLeast(Affiliation.ADMIN) || current.atLeast(Affiliation.ADMIN);
        if (ownerOnly && actor != Affiliation.OWNER) {
            return new Refusal(current.atLeast(Affiliation.ADMIN) ? Condition.NOT_ALLOWED : Condition.FORBIDDEN,
                    "only owners may change the affiliation of admins and owners");
        }
        if (current == Affiliation.OWNER && wanted != Affiliation.OWNER && owners <= 1) {
            return new Refusal(Condition.CONFLICT, "the room's only owner cannot give up ownership");
        }
        if (targetIsServiceAdmin && wanted != Affiliation.OWNER) {
            return new Refusal(Condition.NOT_ALLOWED, "service admins own every room");
        }
        return null;
    }

    /**
     * Whether a requester may list the users of affiliation {@code wanted}: admins and owners may list any; the member
     * list is also open to members of a members-only room and to the occupants whose role (null: not an occupant)
     * the room names in {@code memberListRoles}.
     */
    static boolean mayListAffiliation(Affiliation actor, Role actorRole, Affiliation wanted, boolean membersOnly,
                                      Set<Role> memberListRoles) {
        if (actor.atLeast(Affiliation.ADMIN)) {
            return true;
        }
        return wanted == Affiliation.MEMBER && (membersOnly && actor == Affiliation.MEMBER
                || actorRole != null && memberListRoles.contains(actorRole));
    }

    // ------------------------------------------------------------------------------------------------ owner

    /** Only owners may configure or destroy the room. */
    static boolean mayConfigure(Affiliation aff) {
        return aff == Affiliation.OWNER;
    }
}
