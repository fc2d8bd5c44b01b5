package org.mucscale.engine.muc;

import org.mucscale.engine.stanza.Jid;

/**
 * Content filter port: called on the room's thread before anything is relayed, so it must be fast and must not block.
 * An ordinary message is one call (its body and subject); every further rendered text (another body or subject, an
 * XHTML-IM body, a private message, an invitation reason, a room name or description, a nickname) is a call of its
 * own with the text as {@code body} (see {@code ContentInspection}). The default passes everything.
 */
public interface MessageInspector {

    /** What the filter decided. */
    enum Action {
        /** Broadcast unchanged. */
        PASS,
        /** Broadcast with the verdict's body/subject instead. */
        MASK,
        /** Refuse; the sender gets a {@code not-acceptable} error with the verdict's text. */
        REJECT,
        /** Accept silently without broadcasting (the sender sees no error); counted by the listener. */
        DROP,
        /** Broadcast unchanged and mark the log entry for review. */
        FLAG
    }

    /** A decision. {@link #PASS} is shared so the common case allocates nothing. */
    record Verdict(Action action, String body, String subject, String errorText) {
        public static final Verdict PASS = new Verdict(Action.PASS, null, null, null);
        public static final Verdict FLAG = new Verdict(Action.FLAG, null, null, null);
        public static final Verdict DROP = new Verdict(Action.DROP, null, null, null);

        public static Verdict mask(String newBody, String newSubject) {
            return new Verdict(Action.MASK, newBody, newSubject, null);
        }

        public static Verdict reject(String errorText) {
            return new Verdict(Action.REJECT, null, null, errorText);
        }
    }

    /** Inspects one text; {@code body} or {@code subject} may be null, {@code nick} too (a non-occupant's decline). Never returns null. */
    Verdict inspect(Jid room, String nick, Jid realJid, String body, String subject);

    /** Whether nicknames are inspected too, at join and nick change (the filter's {@code nicknames} setting). */
    default boolean inspectsNicknames() {
        return false;
    }

    MessageInspector PASS_ALL = (room, nick, realJid, body, subject) -> Verdict.PASS;
}
