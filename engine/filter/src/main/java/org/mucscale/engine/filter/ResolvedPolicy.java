package org.mucscale.engine.filter;

/**
 * A room policy resolved against compiled lists: the room rule's settings, with what it leaves open taken from the
 * default rule, and its languages as a bit mask over the lists' languages.
 *
 * <p>Threads: immutable; built by the filter's compile thread (or the starting thread), read by message threads.
 */
final class ResolvedPolicy {
    final boolean enabled;
    final Action action;
    final long languageMask;
    final Severity minSeverity;
    final String rejectMessage;
    /** The rule's own terms, or null when it has none. */
    final CompiledLists terms;

    ResolvedPolicy(boolean enabled, Action action, long languageMask, Severity minSeverity, String rejectMessage,
                   CompiledLists terms) {
        this.enabled = enabled;
        this.action = action;
        this.languageMask = languageMask;
        this.minSeverity = minSeverity;
        this.rejectMessage = rejectMessage;
        this.terms = terms;
    }
}
