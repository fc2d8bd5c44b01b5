package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.mucscale.engine.stanza.Jid;

/**
 * A room's affiliation list: each user (by {@link Stanzas#userKey}) to their affiliation; NONE is never kept. Service
 * admins own every room whatever the list says.
 *
 * <p>Thread: owned by the room's shard thread ({@link RoomShard}); nothing here is synchronised.
 */
final class Affiliations {
    private final ServiceContext ctx;
    private final Map<Jid, Affiliation> byUser = new HashMap<>();

    Affiliations(ServiceContext ctx) {
        this.ctx = ctx;
    }

    /** The affiliation of {@code user} (any JID of theirs). */
    Affiliation of(Jid user) {
        Jid key = Stanzas.userKey(user);
        if (ctx.isServiceAdmin(key)) {
            return Affiliation.OWNER;
        }
        return byUser.getOrDefault(key, Affiliation.NONE);
    }

    /** The affiliation the list gives the user {@code key} (a {@link Stanzas#userKey}), or null when none. */
    Affiliation listed(Jid key) {
        return byUser.get(key);
    }

    /** Sets the affiliation of the user {@code key} (a {@link Stanzas#userKey}); NONE removes them from the list. */
    void set(Jid key, Affiliation aff) {
        if (aff == Affiliation.NONE) {
            byUser.remove(key);
        } else {
            byUser.put(key, aff);
        }
    }

    /** The users listed with {@code aff}. */
    List<Jid> withAffiliation(Affiliation aff) {
        List<Jid> out = new ArrayList<>();
        for (Map.Entry<Jid, Affiliation> e : byUser.entrySet()) {
            if (e.getValue() == aff) {
                out.add(e.getKey());
            }
        }
        return out;
    }

    /** The number of owners on the list (service admins not counted). */
    int owners() {
        int n = 0;
        for (Affiliation a : byUser.values()) {
            if (a == Affiliation.OWNER) {
                n++;
            }
        }
        return n;
    }

    /** The list as it is now, for storage and replication (the caller copies it). */
    Map<Jid, Affiliation> asMap() {
        return java.util.Collections.unmodifiableMap(byUser);
    }
}
