package org.mucscale.engine.muc;

import java.util.Objects;
import java.util.function.Predicate;

import org.mucscale.engine.stanza.Jid;

/**
 * Occupants a room removes in one step because their sessions went away with a node (docs/cluster.md, "Occupants of a
 * departed node leave as one step per room"): {@code gone} picks them by real JID; {@code reachable} says which of
 * their sessions can still be written to (a node that announced its leave and is still routed to), so that each of
 * those gets its own unavailable presence. A session not reachable gets nothing. Immutable; any thread.
 */
public record GoneSessions(Predicate<Jid> gone, Predicate<Jid> reachable) {
    public GoneSessions {
        Objects.requireNonNull(gone, "gone");
        Objects.requireNonNull(reachable, "reachable");
    }
}
