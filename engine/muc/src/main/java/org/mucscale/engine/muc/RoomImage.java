package org.mucscale.engine.muc;

import java.util.List;
import java.util.Set;

import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * Everything a room is, except its message tail: configuration and affiliations ({@link StoredRoom}), whether it is
 * persistent and locked, its subject message, and its occupants with the node each one's session is on. What a node
 * that takes the room over restores it from.
 *
 * @param tailSeq the sequence number of the room's newest tail record when the image was taken
 */
public record RoomImage(StoredRoom config, boolean persistent, boolean locked, Set<Role> presenceBroadcastRoles,
                        XmlElement subjectMessage, List<OccupantImage> occupants, long tailSeq) {

    public RoomImage {
        presenceBroadcastRoles = Set.copyOf(presenceBroadcastRoles);
        occupants = List.copyOf(occupants);
    }

    public Jid room() {
        return config.room();
    }

    /**
     * One occupant. {@code node} is the cluster node the occupant's session is on (null: unknown, treated as the
     * room's own node); {@code presence} the last available presence the user sent.
     */
    public record OccupantImage(String nick, Jid realJid, Role role, Affiliation affiliation, XmlElement presence,
                                String occupantId, String node) {
    }
}
