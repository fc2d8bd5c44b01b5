package org.mucscale.engine.muc;

/** Who may create a room by being the first to join it. Refused creators get {@code not-allowed}. */
public enum RoomCreationPolicy {
    /** Any user. */
    ANYONE,
    /** Users listed in {@code mucscale.muc.room-creators}, and service admins. */
    LISTED,
    /** Only service admins ({@code mucscale.muc.service-admins}). */
    ADMINS_ONLY
}
