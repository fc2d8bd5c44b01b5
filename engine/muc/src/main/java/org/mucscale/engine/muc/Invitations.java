package org.mucscale.engine.muc;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import org.mucscale.engine.stanza.Jid;

/**
 * The mediated invitations (XEP-0045 7.8.2) one room has relayed and that may still be declined. A decline is relayed
 * only to the inviter of a pending invitation to the decliner, and only once: without this record, anyone could make
 * the room send a message from its own address to any JID (a reflection vector).
 *
 * <p>Runs on the room's thread only. Memory is bounded: invitations expire after {@code invitation-ttl-seconds}
 * (all share one time to live, so insertion order is expiry order and expiry pops from the head), and beyond
 * {@code max-pending-invitations} the oldest is forgotten.
 */
final class Invitations {
    private record Key(Jid invitee, Jid inviter) {
    }

    private record Pending(Jid inviterFullJid, long expiresNs) {
    }

    private final LinkedHashMap<Key, Pending> pending = new LinkedHashMap<>();
    private final ServiceContext ctx;

    Invitations(ServiceContext ctx) {
        this.ctx = ctx;
    }

    /** The room relayed an invitation from {@code inviter} (full JID) to {@code invitee}. */
    void relayed(Jid inviter, Jid invitee) {
        long now = ctx.clock.nanoTime();
        expire(now);
        Key key = new Key(Stanzas.userKey(invitee), Stanzas.userKey(inviter));
        pending.remove(key); // a repeated invitation moves to the tail with a fresh expiry
        pending.put(key, new Pending(inviter, now + ctx.config.invitationTtlSeconds * 1_000_000_000L));
        int max = ctx.config.maxPendingInvitations;
        for (Iterator<Key> it = pending.keySet().iterator(); pending.size() > max && it.hasNext(); ) {
            it.next();
            it.remove();
        }
    }

    /**
     * Takes the pending invitation a decline from {@code decliner} answers: the one from {@code addressedTo} when the
     * decline names its inviter, else the newest one to the decliner. Returns the inviter's full JID to relay the
     * decline to, or null when there is none (the decline must be refused).
     */
    Jid takeFor(Jid decliner, Jid addressedTo) {
        long now = ctx.clock.nanoTime();
        expire(now);
        Jid invitee = Stanzas.userKey(decliner);
        if (addressedTo != null) {
            Pending p = pending.remove(new Key(invitee, Stanzas.userKey(addressedTo)));
            return p == null ? null : p.inviterFullJid();
        }
        Key newest = null;
        for (Key k : pending.keySet()) {
            if (k.invitee().equals(invitee)) {
                newest = k;
            }
        }
        return newest == null ? null : pending.remove(newest).inviterFullJid();
    }

    int size() {
        return pending.size();
    }

    private void expire(long now) {
        for (Iterator<Map.Entry<Key, Pending>> it = pending.entrySet().iterator(); it.hasNext(); ) {
            if (now - it.next().getValue().expiresNs() < 0) {
                return;
            }
            it.remove();
        }
    }
}
