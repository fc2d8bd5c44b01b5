package org.mucscale.engine.muc;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.muc.RoomPermissions.Refusal;
import org.mucscale.engine.muc.Stanzas.Condition;

/**
 * Every "who may" rule over every role and affiliation. Each expectation is written as XEP-0045 words it (the
 * privilege tables of 5.1 and 5.2), not as a copy of the code's conditions, so a changed rule fails here.
 */
class RoomPermissionsTest {
    private static final Affiliation[] AFFILIATIONS = Affiliation.values();
    private static final Role[] ROLES = Role.values();

    private static boolean admin(Affiliation a) {
        return a == Affiliation.ADMIN || a == Affiliation.OWNER;
    }

    @Test
    void kickAndRevokeVoice_neverAdminsOrOwners_moderatorsOnlyByAdminsOrOwners() {
        int allowed = 0;
        for (Affiliation actor : AFFILIATIONS) {
            for (Role targetRole : ROLES) {
                for (Affiliation target : AFFILIATIONS) {
                    for (Role role : new Role[] {Role.NONE, Role.VISITOR}) {
                        boolean expected = !admin(target) && (targetRole != Role.MODERATOR || admin(actor));
                        Refusal r = RoomPermissions.roleChangeRefusal(actor, targetRole, target, role);
                        assertThat(r == null).as("%s sets %s/%s to %s", actor, targetRole, target, role)
                                .isEqualTo(expected);
                        if (r != null) {
                            assertThat(r.condition()).isEqualTo(Condition.NOT_ALLOWED);
                        }
                        allowed += expected ? 1 : 0;
                    }
                }
            }
        }
        assertThat(allowed).isGreaterThan(0);
    }

    @Test
    void grantVoice_alwaysToNonModerators_revokeModeratorOnlyByAdminsOrOwnersOfNonAdmins() {
        for (Affiliation actor : AFFILIATIONS) {
            for (Role targetRole : ROLES) {
                for (Affiliation target : AFFILIATIONS) {
                    boolean expected = targetRole != Role.MODERATOR || (admin(actor) && !admin(target));
                    Refusal r = RoomPermissions.roleChangeRefusal(actor, targetRole, target, Role.PARTICIPANT);
                    assertThat(r == null).as("%s sets %s/%s to participant", actor, targetRole, target)
                            .isEqualTo(expected);
                    if (r != null) {
                        assertThat(r.condition()).isEqualTo(Condition.NOT_ALLOWED);
                    }
                }
            }
        }
    }

    @Test
    void grantModerator_onlyByAdminsOrOwners() {
        for (Affiliation actor : AFFILIATIONS) {
            for (Role targetRole : ROLES) {
                for (Affiliation target : AFFILIATIONS) {
                    Refusal r = RoomPermissions.roleChangeRefusal(actor, targetRole, target, Role.MODERATOR);
                    assertThat(r == null).as("%s makes %s/%s moderator", actor, targetRole, target)
                            .isEqualTo(admin(actor));
                    if (r != null) {
                        assertThat(r.condition()).isEqualTo(Condition.FORBIDDEN);
                    }
                }
            }
        }
    }

    @Test
    void onlyModeratorsChangeRolesAndRetract() {
        for (Role role : ROLES) {
            assertThat(RoomPermissions.mayChangeRoles(role)).as("%s", role).isEqualTo(role == Role.MODERATOR);
            assertThat(RoomPermissions.mayRetract(role)).as("%s", role).isEqualTo(role == Role.MODERATOR);
        }
    }

    @Test
    void affiliationChange_adminsChangeBelowAdmin_ownersAnything_lastOwnerStays_serviceAdminsStayOwners() {
        for (Affiliation actor : AFFILIATIONS) {
            for (Affiliation current : AFFILIATIONS) {
                for (Affiliation wanted : AFFILIATIONS) {
                    for (int owners = 1; owners <= 2; owners++) {
                        for (boolean serviceAdmin : new boolean[] {false, true}) {
                            boolean mayTouch = actor == Affiliation.OWNER
                                    || actor == Affiliation.ADMIN && !admin(current) && !admin(wanted);
                            boolean lastOwnerLeaves = current == Affiliation.OWNER && wanted != Affiliation.OWNER
                                    && owners == 1;
                            boolean demotesServiceAdmin = serviceAdmin && wanted != Affiliation.OWNER;
                            boolean expected = mayTouch && !lastOwnerLeaves && !demotesServiceAdmin;
                            Refusal r = RoomPermissions.affiliationChangeRefusal(actor, current, wanted, owners,
                                    serviceAdmin);
                            assertThat(r == null).as("%s: %s to %s, %d owners, service admin %s", actor, current,
                                    wanted, owners, serviceAdmin).isEqualTo(expected);
                            if (r != null && !admin(actor)) {
                                assertThat(r.condition()).isEqualTo(Condition.FORBIDDEN);
                            } else if (r != null && !mayTouch) {
                                assertThat(r.condition()).isEqualTo(admin(current) ? Condition.NOT_ALLOWED
                                        : Condition.FORBIDDEN);
                            } else if (r != null && lastOwnerLeaves) {
                                assertThat(r.condition()).isEqualTo(Condition.CONFLICT);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void privateMessages_byPolicyAndRole() {
        for (PrivateMessagePolicy policy : PrivateMessagePolicy.values()) {
            for (Role role : ROLES) {
                boolean expected = switch (policy.xmlName()) {
                    case "anyone" -> true;
                    case "participants" -> role.compareTo(Role.PARTICIPANT) >= 0;
                    case "moderators" -> role == Role.MODERATOR;
                    default -> false;
                };
                assertThat(RoomPermissions.mayPrivateMessage(policy, role)).as("%s %s", policy, role)
                        .isEqualTo(expected);
            }
        }
    }

    @Test
    void subject_moderatorsAlways_participantsWhenAllowed_visitorsNever() {
        for (Role role : ROLES) {
            for (boolean participantsMay : new boolean[] {false, true}) {
                boolean expected = role == Role.MODERATOR || participantsMay && role == Role.PARTICIPANT;
                assertThat(RoomPermissions.maySetSubject(role, participantsMay)).as("%s %s", role, participantsMay)
                        .isEqualTo(expected);
            }
            assertThat(RoomPermissions.maySpeak(role)).isEqualTo(role != Role.VISITOR);
        }
    }

    @Test
    void configure_ownersOnly_invite_membersOnlyRoomsByAdmins() {
        for (Affiliation a : AFFILIATIONS) {
            assertThat(RoomPermissions.mayConfigure(a)).as("%s", a).isEqualTo(a == Affiliation.OWNER);
            assertThat(RoomPermissions.mayInvite(false, a)).isTrue();
            assertThat(RoomPermissions.mayInvite(true, a)).as("%s", a).isEqualTo(admin(a));
            assertThat(RoomPermissions.mayExceedCapacity(a)).as("%s", a).isEqualTo(admin(a));
            assertThat(RoomPermissions.needsPassword("secret", a)).as("%s", a).isEqualTo(a != Affiliation.OWNER);
            assertThat(RoomPermissions.needsPassword(null, a)).isFalse();
        }
    }

    @Test
    void join_lockedForAllButOwners_outcastsNever_membersOnlyForMembers() {
        for (Affiliation a : AFFILIATIONS) {
            for (boolean locked : new boolean[] {false, true}) {
                for (boolean membersOnly : new boolean[] {false, true}) {
                    Refusal r = RoomPermissions.joinRefusal(locked, membersOnly, a);
                    Condition expected = locked && a != Affiliation.OWNER ? Condition.ITEM_NOT_FOUND
                            : a == Affiliation.OUTCAST ? Condition.FORBIDDEN
                            : membersOnly && a == Affiliation.NONE ? Condition.REGISTRATION_REQUIRED : null;
                    assertThat(r == null ? null : r.condition()).as("%s locked %s members-only %s", a, locked,
                            membersOnly).isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void roles_onEntryAndAfterAffiliationChange() {
        for (boolean moderated : new boolean[] {false, true}) {
            assertThat(RoomPermissions.defaultRole(Affiliation.OWNER, moderated)).isEqualTo(Role.MODERATOR);
            assertThat(RoomPermissions.defaultRole(Affiliation.ADMIN, moderated)).isEqualTo(Role.MODERATOR);
            assertThat(RoomPermissions.defaultRole(Affiliation.MEMBER, moderated)).isEqualTo(Role.PARTICIPANT);
            assertThat(RoomPermissions.defaultRole(Affiliation.NONE, moderated))
                    .isEqualTo(moderated ? Role.VISITOR : Role.PARTICIPANT);
            assertThat(RoomPermissions.defaultRole(Affiliation.OUTCAST, moderated)).isEqualTo(Role.NONE);
            for (Role role : ROLES) {
                for (Affiliation before : AFFILIATIONS) {
                    for (Affiliation after : AFFILIATIONS) {
                        Role expected = admin(after) ? Role.MODERATOR
                                : admin(before) ? RoomPermissions.defaultRole(after, moderated)
                                : after == Affiliation.MEMBER && role == Role.VISITOR ? Role.PARTICIPANT : role;
                        assertThat(RoomPermissions.roleAfterAffiliationChange(role, before, after, moderated))
                                .as("%s %s→%s moderated %s", role, before, after, moderated).isEqualTo(expected);
                    }
                }
            }
        }
    }

    @Test
    void memberList_adminsAnyList_othersOnlyMembersWhenOpenedToThem() {
        Set<Role> none = EnumSet.noneOf(Role.class);
        for (Affiliation actor : AFFILIATIONS) {
            for (Affiliation wanted : AFFILIATIONS) {
                for (Role role : new Role[] {null, Role.VISITOR, Role.PARTICIPANT, Role.MODERATOR}) {
                    for (boolean membersOnly : new boolean[] {false, true}) {
                        for (Set<Role> open : java.util.List.of(none, EnumSet.of(Role.PARTICIPANT))) {
                            boolean expected = admin(actor) || wanted == Affiliation.MEMBER
                                    && (membersOnly && actor == Affiliation.MEMBER
                                    || role != null && open.contains(role));
                            assertThat(RoomPermissions.mayListAffiliation(actor, role, wanted, membersOnly, open))
                                    .as("%s (%s) lists %s, members-only %s, open to %s", actor, role, wanted,
                                            membersOnly, open).isEqualTo(expected);
                        }
                    }
                }
            }
        }
    }
}
