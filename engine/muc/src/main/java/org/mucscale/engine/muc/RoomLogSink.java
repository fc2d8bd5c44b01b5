package org.mucscale.engine.muc;

import java.util.function.Function;

import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * Where accepted groupchat messages are logged (the store's write-behind queue). Called on the room's thread after
 * the filter accepted a message and before it is broadcast; it must only enqueue. {@code stanzaId} is unique and
 * serves as the log's idempotency key. Returning false (queue full) refuses the message: the sender gets a
 * {@code resource-constraint} error and nothing is broadcast, so the log never misses a delivered message.
 */
public interface RoomLogSink {

    boolean offer(String stanzaId, Jid room, String nick, Jid realJid, long timestampMillis, String body,
                  String subject, MessageInspector.Action filterAction);

    /**
     * Retracts a logged message (XEP-0425 moderation): its text leaves the log for good, also when the message is
     * still queued, and {@code tombstone} (built from the message as logged) takes its place. Blocking: called on
     * the service's store threads, never on a room thread. Throws when the log could not be changed.
     */
    default Retraction retract(Jid room, String stanzaId, Function<LoggedMessage, XmlElement> tombstone)
            throws Exception {
        return Retraction.NOT_FOUND;
    }

    /** What a retraction found. */
    enum Retraction { RETRACTED, ALREADY_RETRACTED, NOT_FOUND }

    /** A message as the log holds it, for building its tombstone. {@code realJid} may be null. */
    record LoggedMessage(String stanzaId, String nick, Jid realJid, long timestampMillis) {
    }

    RoomLogSink NONE = (stanzaId, room, nick, realJid, timestampMillis, body, subject, filterAction) -> true;
}
