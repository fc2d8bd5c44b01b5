package org.mucscale.engine.filter;

/** What happens to a message that matched. */
public enum Action {
    /** Deliver with the matched spans replaced by the mask character. */
    MASK,
    /** Do not deliver; the sender gets an error stanza with {@link FilterVerdict#senderError()}. */
    REJECT,
    /** Do not deliver and tell nobody (counted in metrics, so never silent to the operator). */
    DROP,
    /** Deliver unchanged, record it and notify the room's moderators. */
    FLAG
}
