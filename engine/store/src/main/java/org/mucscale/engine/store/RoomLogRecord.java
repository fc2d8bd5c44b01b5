package org.mucscale.engine.store;

import java.util.Objects;

/**
 * One room message as the room log stores it. Immutable for callers; the store stamps two internal fields when the
 * record enters it (enqueue time for latency, and the write-ahead segment holding it, if any), written by the
 * thread that hands the record in, before the record is published to the writer.
 *
 * @param stanzaId     the room-assigned stanza id (XEP-0359); unique, so a retried insert never duplicates
 * @param roomJid      bare JID of the room
 * @param logTimeMillis when the room accepted the message (wall clock, ms since the epoch)
 * @param senderNick   the sender's nickname in the room
 * @param senderJid    the sender's real full JID, or null
 * @param body         message body, or null
 * @param subject      subject change, or null
 * @param filterAction what the content filter did (e.g. NONE, MASKED), or null
 * @param stanza       the message as rendered XML for exact history replay, or null
 */
public final class RoomLogRecord {
    private final String stanzaId;
    private final String roomJid;
    private final long logTimeMillis;
    private final String senderNick;
    private final String senderJid;
    private final String body;
    private final String subject;
    private final String filterAction;
    private final String stanza;

    // Stamped by the store on the handing-in thread before publication (see class note).
    long enqueueNanos;
    WriteAheadLog.Segment walSegment;
    // Flagged for review: the matched terms (see ReviewQueue); set before the record is handed in, not persisted in
    // spill or write-ahead files.
    private String reviewTerms;

    public RoomLogRecord(String stanzaId, String roomJid, long logTimeMillis, String senderNick, String senderJid,
                         String body, String subject, String filterAction, String stanza) {
        this.stanzaId = Objects.requireNonNull(stanzaId, "stanzaId");
        this.roomJid = Objects.requireNonNull(roomJid, "roomJid");
        this.logTimeMillis = logTimeMillis;
        this.senderNick = Objects.requireNonNull(senderNick, "senderNick");
        this.senderJid = senderJid;
        this.body = body;
        this.subject = subject;
        this.filterAction = filterAction;
        this.stanza = stanza;
    }

    /** A plain message without subject, filter action or stanza XML. */
    public static RoomLogRecord message(String stanzaId, String roomJid, long logTimeMillis, String senderNick,
                                        String senderJid, String body) {
        return new RoomLogRecord(stanzaId, roomJid, logTimeMillis, senderNick, senderJid, body, null, null, null);
    }

    public String stanzaId() { return stanzaId; }
    public String roomJid() { return roomJid; }
    public long logTimeMillis() { return logTimeMillis; }
    public String senderNick() { return senderNick; }
    public String senderJid() { return senderJid; }
    public String body() { return body; }
    public String subject() { return subject; }
    public String filterAction() { return filterAction; }
    public String stanza() { return stanza; }
    public String reviewTerms() { return reviewTerms; }

    /**
     * Queues the message for a moderator's review ({@link ReviewQueue}) with the terms the filter matched; call before
     * handing the record to the store. Returns this record.
     */
    public RoomLogRecord forReview(String terms) {
        this.reviewTerms = terms == null ? "" : terms;
        return this;
    }

    /** Rough size in bytes on the wire, for keeping multi-row statements under the server's packet limit. */
    int estimatedBytes() {
        return 64 + len(stanzaId) + len(roomJid) + len(senderNick) + len(senderJid) + len(body) + len(subject)
                + len(filterAction) + len(stanza);
    }

    private static int len(String s) {
        return s == null ? 0 : s.length() * 3;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof RoomLogRecord r)) {
            return false;
        }
        return logTimeMillis == r.logTimeMillis && stanzaId.equals(r.stanzaId) && roomJid.equals(r.roomJid)
                && senderNick.equals(r.senderNick) && Objects.equals(senderJid, r.senderJid)
                && Objects.equals(body, r.body) && Objects.equals(subject, r.subject)
                && Objects.equals(filterAction, r.filterAction) && Objects.equals(stanza, r.stanza);
    }

    @Override
    public int hashCode() {
        return stanzaId.hashCode();
    }

    @Override
    public String toString() {
        return "RoomLogRecord{" + stanzaId + " in " + roomJid + " at " + logTimeMillis + "}";
    }
}
