package org.mucscale.engine.filter;

import java.util.List;

/**
 * The outcome of {@link ContentFilter#inspect}. Clean messages get the shared {@link #CLEAN} instance (compare with
 * {@code ==} or call {@link #clean()}); only messages that matched allocate a verdict.
 */
public final class FilterVerdict {

    /** The verdict for every message that matched nothing (or whose room has filtering off). */
    public static final FilterVerdict CLEAN = new FilterVerdict(null, null, null, List.of(), null);

    private final Action action;
    private final String body;
    private final String subject;
    private final List<FilterMatch> matches;
    private final String senderError;

    FilterVerdict(Action action, String body, String subject, List<FilterMatch> matches, String senderError) {
        this.action = action;
        this.body = body;
        this.subject = subject;
        this.matches = matches;
        this.senderError = senderError;
    }

    /** True when nothing matched: deliver as is. */
    public boolean clean() {
        return action == null;
    }

    /** What to do; null when {@link #clean()}. */
    public Action action() {
        return action;
    }

    /** True when the message is delivered (clean, masked or flagged). */
    public boolean delivered() {
        return action == null || action == Action.MASK || action == Action.FLAG;
    }

    /** For {@link Action#MASK}: the body with matches masked, or null when the body had no match. */
    public String maskedBody() {
        return action == Action.MASK ? body : null;
    }

    /** For {@link Action#MASK}: the subject with matches masked, or null when the subject had no match. */
    public String maskedSubject() {
        return action == Action.MASK ? subject : null;
    }

    /** The entries found, in order of position (empty when clean). */
    public List<FilterMatch> matches() {
        return matches;
    }

    /** For {@link Action#REJECT}: the text of the error returned to the sender; else null. */
    public String senderError() {
        return senderError;
    }

    @Override
    public String toString() {
        if (clean()) {
            return "CLEAN";
        }
        StringBuilder sb = new StringBuilder(action.name()).append(' ');
        for (FilterMatch m : matches) {
            sb.append(m.entry()).append('(').append(m.severity()).append(',').append(m.language()).append(") ");
        }
        return sb.toString().trim();
    }
}
