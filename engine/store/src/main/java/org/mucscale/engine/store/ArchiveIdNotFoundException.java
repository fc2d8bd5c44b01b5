package org.mucscale.engine.store;

/** An archive query named a stanza id the room's log does not hold (XEP-0313: item-not-found). */
public final class ArchiveIdNotFoundException extends Exception {
    private final String stanzaId;

    public ArchiveIdNotFoundException(String stanzaId) {
        super("no message with id '" + stanzaId + "' in this room's archive");
        this.stanzaId = stanzaId;
    }

    public String stanzaId() {
        return stanzaId;
    }
}
