package org.mucscale.engine.muc;

import java.util.List;

import org.mucscale.engine.stanza.Jid;

/**
 * What a room's owner replicates of its {@link AcceptedMarks}: per link, the newest forward the room handled
 * ({@code newest}), as of the room's tail record {@code tailSeq} (a take-over trusts the mark only if the tail it read
 * reaches that far: the mark and the tail records of one write round land in no particular order).
 */
public record AcceptedMark(Jid room, long tailSeq, List<Forwarded> newest) {
}
