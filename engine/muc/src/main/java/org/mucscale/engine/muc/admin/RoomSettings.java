package org.mucscale.engine.muc.admin;

import java.util.List;
import java.util.Set;

import org.mucscale.engine.muc.Role;

/**
 * What a create or update asks of a room: every field is optional (null: not given). A create fills what is not given
 * from the service's room template; a partial update changes only what is given; a full update resets what is not
 * given to the template. The affiliation lists, when given, replace that list (JIDs bare); when absent, the list is
 * left as it is. Not thread-safe: build it on one thread, then hand it over.
 */
public final class RoomSettings {
    public String naturalName;
    public String description;
    public Boolean persistent;
    public Boolean publicRoom;
    public Boolean moderated;
    public Boolean membersOnly;
    /** The password; "" removes it. */
    public String password;
    public Integer maxUsers;
    /** Real JIDs visible to everyone (true) or to moderators only (false). */
    public Boolean canAnyoneDiscoverJID;
    public Boolean canOccupantsChangeSubject;
    /** Who may send private messages: anyone, participants, moderators or none. */
    public String allowPM;
    public Boolean logEnabled;
    public Boolean archivingEnabled;
    public Set<Role> broadcastPresenceRoles;
    public List<String> owners;
    public List<String> admins;
    public List<String> members;
    public List<String> outcasts;

    /** Whether any affiliation list is given. */
    boolean hasAffiliations() {
        return owners != null || admins != null || members != null || outcasts != null;
    }
}
