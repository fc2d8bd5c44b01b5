package org.mucscale.engine.muc;

import org.mucscale.engine.stanza.Jid;

/**
 * Content filter port: called once per groupchat message (on the room's thread, before broadcast), so it must be
 * fast and must not block. The default passes everything.
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

    /** Inspects one message; {@code body} or {@code subject} may be null. Never returns null. */
    Verdict inspect(Jid room, String nick, Jid realJid, String body, String subject);

    MessageInspector PASS_ALL = (room, nick, realJid, body, subject) -> Verdict.PASS;
}
