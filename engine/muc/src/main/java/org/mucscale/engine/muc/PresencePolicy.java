package org.mucscale.engine.muc;

/**
 * Which occupants' presence a room broadcasts. Large rooms pay for a full join with one presence per occupant to the
 * joiner and one to every occupant; these policies cut that storm. The joiner's own presence (status 110) is always
 * sent.
 */
public enum PresencePolicy {
    /** XEP-0045: every occupant's presence to every occupant. */
    FULL,
    /** Only moderators' presence is broadcast and shown to joiners. */
    MODERATORS_ONLY,
    /**
     * Full presence while the room has at most {@code mucscale.muc.presence-broadcast-limit} occupants; above that,
     * joins, leaves and presence changes are not broadcast and joiners receive only the moderators' presence.
     */
    NONE_ABOVE_N
}
