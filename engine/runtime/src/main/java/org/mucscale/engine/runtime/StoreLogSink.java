package org.mucscale.engine.runtime;

import org.mucscale.engine.filter.ContentFilter;
import org.mucscale.engine.filter.FilterMatch;
import org.mucscale.engine.muc.MessageInspector;
import org.mucscale.engine.muc.RoomLogSink;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.store.DurabilityMode;
import org.mucscale.engine.store.RoomLogRecord;
import org.mucscale.engine.store.ReviewQueue;
import org.mucscale.engine.store.RoomLogRetractions;
import org.mucscale.engine.store.RoomLogStore;
import org.mucscale.engine.stanza.XmlElement;

/**
 * The MUC engine's log port, served by the write-behind store. In the default mode this only enqueues. In write-ahead
 * mode the room thread waits for the group-committed append before the message is broadcast: that is the point of the
 * mode (nothing an occupant received is lost on kill -9), and group commit shares one fsync among all rooms' waiting
 * messages, but it does bound each room to the disk's fsync rate. The wait is bounded by
 * {@code mucscale.store.write-ahead-timeout} and ends when the room thread is interrupted at stop: the message is then
 * refused (resource-constraint), never broadcast unlogged.
 */
final class StoreLogSink implements RoomLogSink {
    private final RoomLogStore store;
    private final boolean durable;
    private final long durableTimeoutMs;
    /** Flagged messages go to the review queue (mucscale.filter.review-queue): the filter names their terms. */
    private final ContentFilter reviewFilter;

    StoreLogSink(RoomLogStore store, long durableTimeoutMs) {
        this(store, durableTimeoutMs, null);
    }

    StoreLogSink(RoomLogStore store, long durableTimeoutMs, ContentFilter reviewFilter) {
        this.store = store;
        this.durable = store.config().durability() != DurabilityMode.BATCHED;
        this.durableTimeoutMs = durableTimeoutMs;
        this.reviewFilter = reviewFilter;
    }

    @Override
    public boolean offer(String stanzaId, Jid room, String nick, Jid realJid, long timestampMillis, String body,
                         String subject, MessageInspector.Action filterAction) {
        RoomLogRecord record = new RoomLogRecord(stanzaId, room.toString(), timestampMillis, nick,
                realJid == null ? null : realJid.toString(), body, subject,
                filterAction == MessageInspector.Action.PASS ? null : filterAction.name(), null);
        if (filterAction == MessageInspector.Action.FLAG && reviewFilter != null) {
            // flagged messages are rare: scanning once more here names the terms without widening the filter port
            java.util.List<String> terms = new java.util.ArrayList<>();
            for (FilterMatch m : reviewFilter.inspect(room.toString(), body, subject).matches()) {
                terms.add(m.entry());
            }
            record.forReview(ReviewQueue.terms(terms));
        }
        if (!durable) {
            return store.offer(record).accepted();
        }
        return store.appendDurableWithin(record, durableTimeoutMs).accepted();
    }

    @Override
    public Retraction retract(Jid room, String stanzaId,
                              java.util.function.Function<LoggedMessage, XmlElement> tombstone) throws Exception {
        RoomLogRetractions.Outcome outcome = store.retract(room.toString(), stanzaId, r -> {
            Jid sender = null;
            if (r.senderJid() != null) {
                try {
                    sender = Jid.parse(r.senderJid());
                } catch (RuntimeException e) {
                    // an unreadable stored address: the tombstone goes without the sender's occupant id
                }
            }
            return tombstone.apply(new LoggedMessage(r.stanzaId(), r.senderNick(), sender, r.logTimeMillis())).toXml();
        });
        return switch (outcome) {
            case RETRACTED -> Retraction.RETRACTED;
            case ALREADY_RETRACTED -> Retraction.ALREADY_RETRACTED;
            case NOT_FOUND -> Retraction.NOT_FOUND;
        };
    }
}
