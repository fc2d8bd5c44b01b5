package org.mucscale.engine.muc;

import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * One accepted groupchat message as a room's replicated tail keeps it: what the room log needs to store it again
 * (idempotently: room, time and stanza id are its key) and the message as broadcast, for history on join.
 *
 * @param seq the room's own counter, one per accepted message
 */
public record TailRecord(Jid room, long seq, String stanzaId, String nick, Jid realJid, long timestampMillis,
                         String body, String subject, MessageInspector.Action action, XmlElement message) {
}
