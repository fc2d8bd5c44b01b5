package org.mucscale.engine.store;

/** The outcome of handing one record to the store. Every value is counted; none means "lost". */
public enum OfferResult {
    /** In the write-behind queue; the writer commits it with the next batch. */
    QUEUED,
    /** The queue was full: appended to the local spill file, replayed into the database later. */
    SPILLED,
    /** The queue was full and the policy is {@link OverflowPolicy#REJECT_WITH_ERROR}: not stored, tell the sender. */
    REJECTED;

    /** True when the record will reach the database. */
    public boolean accepted() {
        return this != REJECTED;
    }
}
