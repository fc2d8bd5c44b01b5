package org.mucscale.engine.muc.admin;

/**
 * One room in a listing. {@code lastActivityMillis} is the newest message in the room's memory (0: none there).
 * {@code node} is the cluster node that serves the room (null alone).
 */
public record RoomSummary(String roomName, String naturalName, String description, boolean persistent,
                          boolean publicRoom, boolean membersOnly, boolean moderated, boolean archivingEnabled,
                          int occupants, int maxUsers, long lastActivityMillis, String node) {
}
