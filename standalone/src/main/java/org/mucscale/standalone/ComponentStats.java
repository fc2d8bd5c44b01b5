package org.mucscale.standalone;

/**
 * Counters of one component connection, since it was created (all reconnects included).
 *
 * @param stanzasReceived stanzas handed to the engine
 * @param stanzasSent stanzas written to the server's queue
 * @param bytesSent bytes written to the server's queue
 * @param outboundDroppedQueueFull stanzas not sent because the write queue was full (policy DROP_NEWEST or RECONNECT)
 * @param outboundDroppedDisconnected stanzas not sent because no stream was up at that moment
 * @param streamErrorsSent stream errors we sent (malformed or oversized input)
 * @param streamErrorsReceived stream errors the server sent
 * @param handshakes successful handshakes (1 + reconnects that succeeded)
 * @param connectFailures failed connection or handshake attempts
 * @param handlerFailures stanzas the engine threw on (logged; the stream goes on)
 * @param queuedBytes bytes waiting in the write queue to the server now (0 when disconnected)
 * @param writeRequests buffers handed to MINA: one per room-thread batch, or per stanza from other threads
 * @param backPressurePauses times a room thread paused because the write queue was above its high-water mark
 * @param backPressureTimeouts pauses that ended at write-queue-max-wait with the queue still above low water
 */
public record ComponentStats(long stanzasReceived, long stanzasSent, long bytesSent, long outboundDroppedQueueFull,
                             long outboundDroppedDisconnected, long streamErrorsSent, long streamErrorsReceived,
                             long handshakes, long connectFailures, long handlerFailures,
                             long queuedBytes, long writeRequests, long backPressurePauses,
                             long backPressureTimeouts) {
}
