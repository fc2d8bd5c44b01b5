package org.mucscale.engine.muc;

import org.mucscale.engine.stanza.Jid;

/**
 * Where accepted groupchat messages are logged (the store's write-behind queue). Called on the room's thread after
 * the filter accepted a message and before it is broadcast; it must only enqueue. {@code stanzaId} is unique and
 * serves as the log's idempotency key. Returning false (queue full) refuses the message: the sender gets a
 * {@code resource-constraint} error and nothing is broadcast, so the log never misses a delivered message.
 */
public interface RoomLogSink {

    boolean offer(String stanzaId, Jid room, String nick, Jid realJid, long timestampMillis, String body,
                  String subject, MessageInspector.Action filterAction);

    RoomLogSink NONE = (stanzaId, room, nick, realJid, timestampMillis, body, subject, filterAction) -> true;
}
