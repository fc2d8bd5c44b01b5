package org.mucscale.engine.muc.admin;

import java.util.List;
import java.util.Set;

import org.mucscale.engine.muc.RoomAdminBridge;

/**
 * A room as administration shows it: its configuration (in the REST API plugin's field names), affiliations by list,
 * occupants (each session with its real JID and cluster node) and the newest history messages.
 */
public record RoomDetails(String roomName, String naturalName, String description, String subject,
                          boolean persistent, boolean publicRoom, boolean moderated, boolean membersOnly,
                          boolean passwordProtected, int maxUsers, boolean canAnyoneDiscoverJID,
                          boolean canOccupantsChangeSubject, String allowPM, boolean logEnabled,
                          boolean archivingEnabled, Set<String> broadcastPresenceRoles, boolean locked,
                          List<String> owners, List<String> admins, List<String> members, List<String> outcasts,
                          List<RoomAdminBridge.OccupantView> occupants, List<RoomAdminBridge.HistoryView> history,
                          long lastActivityMillis) {
}
