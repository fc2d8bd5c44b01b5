package org.mucscale.engine.muc;

import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/** One user in one room. Owned by the room's shard thread only. */
final class Occupant {
    String nick;
    String nickKey;
    Jid occupantJid; // room@service/nick
    final Jid realJid; // full JID of the user's session
    final Jid bareJid;
    /** XEP-0421 occupant id, or null when the service does not add them. */
    String occupantId;
    Role role;
    Affiliation affiliation;
    /** The user's last available presence, whose children (show, status, caps ...) are broadcast. */
    XmlElement presence;
    final TokenBucket bucket;
    /** Presence updates are rate-limited apart from messages (each one is broadcast to the whole room). */
    TokenBucket presenceBucket;
    int index; // position in Room.occupants
    /**
     * The next session of the same user under the same nickname (XEP-0045 multi-session nicknames), or null. The
     * room's nickname index points at the first session; the others hang off it in this chain.
     */
    Occupant nextSession;
    /** Cached renders of this occupant's available presence for joiners; null when stale. */
    RenderedStanza presenceWithJid;
    RenderedStanza presenceWithoutJid;

    Occupant(String nick, Jid occupantJid, Jid realJid, Role role, Affiliation affiliation, XmlElement presence,
             TokenBucket bucket) {
        this.nick = nick;
        this.nickKey = Nicknames.key(nick);
        this.occupantJid = occupantJid;
        this.realJid = realJid;
        this.bareJid = Stanzas.userKey(realJid);
        this.role = role;
        this.affiliation = affiliation;
        this.presence = presence;
        this.bucket = bucket;
    }

    boolean isModerator() {
        return role == Role.MODERATOR;
    }

    void invalidatePresence() {
        presenceWithJid = null;
        presenceWithoutJid = null;
    }
}
