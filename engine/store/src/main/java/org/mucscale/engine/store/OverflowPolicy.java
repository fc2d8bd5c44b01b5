package org.mucscale.engine.store;

/** What happens to a room log record when the write-behind queue is full. Neither policy drops silently. */
public enum OverflowPolicy {
    /** Append the record to a local append-only spill file; the writer replays it into the database later. */
    SPILL_TO_DISK,
    /** Refuse the record: the caller answers the sender with a resource-constraint error and counts it. */
    REJECT_WITH_ERROR
}
