package org.mucscale.engine.store;

import java.util.List;

/**
 * One page of a room's archive, oldest first.
 *
 * @param records  the page's messages in the room's order (logTime, stanzaId)
 * @param complete true when no message of the range lies beyond the page in the paging direction (XEP-0313
 *                 {@code complete}: forward, none after the last; for a last-page query, none before the first)
 * @param count    messages in the whole range (RSM count), or -1 when not asked
 */
public record ArchivePage(List<RoomLogRecord> records, boolean complete, long count) {
}
