package org.mucscale.engine.store;

import java.util.List;

/**
 * One archive (XEP-0313) query over one room's log, in store terms. Times are inclusive bounds in ms (use
 * {@link Long#MIN_VALUE}/{@link Long#MAX_VALUE} for none); ids are stanza ids of the room, null for none.
 *
 * @param senderNick only messages sent under this nickname (the query's {@code with}), or null
 * @param afterId    form field {@code after-id}: only messages after this one (exclusive)
 * @param beforeId   form field {@code before-id}: only messages before this one (exclusive)
 * @param pageAfter  RSM {@code <after>}: the page right after this message
 * @param pageBefore RSM {@code <before>}: the page right before this message
 * @param lastPage   RSM {@code <before/>} (empty) or {@code pageBefore} set: the page at the end of the range
 * @param ids        form field {@code ids}: exactly these messages (then paging and the other bounds still apply)
 * @param max        page size, at least 0 (0: only the count)
 * @param count      whether to count the messages of the whole range (RSM {@code <count/>})
 */
public record ArchiveRequest(long startMillis, long endMillis, String senderNick, String afterId, String beforeId,
                             String pageAfter, String pageBefore, boolean lastPage, List<String> ids, int max,
                             boolean count) {
    public ArchiveRequest {
        if (max < 0) {
            throw new IllegalArgumentException("max must be at least 0, was " + max);
        }
        ids = ids == null ? null : List.copyOf(ids);
    }

    /** The first {@code max} messages of the room, no bounds. */
    public static ArchiveRequest firstPage(int max) {
        return new ArchiveRequest(Long.MIN_VALUE, Long.MAX_VALUE, null, null, null, null, null, false, null, max, true);
    }
}
