package org.mucscale.engine.runtime;

import org.mucscale.engine.filter.ContentFilter;
import org.mucscale.engine.filter.FilterVerdict;
import org.mucscale.engine.muc.MessageInspector;
import org.mucscale.engine.stanza.Jid;

/** The MUC engine's filter port, served by the content filter. A clean message allocates nothing here. */
final class FilterInspector implements MessageInspector {
    private final ContentFilter filter;

    FilterInspector(ContentFilter filter) {
        this.filter = filter;
    }

    @Override
    public Verdict inspect(Jid room, String nick, Jid realJid, String body, String subject) {
        FilterVerdict v = filter.inspect(room.toString(), body, subject);
        if (v.clean()) {
            return Verdict.PASS;
        }
        return switch (v.action()) {
            case MASK -> Verdict.mask(v.maskedBody() != null ? v.maskedBody() : body,
                    v.maskedSubject() != null ? v.maskedSubject() : subject);
            case REJECT -> Verdict.reject(v.senderError());
            case DROP -> Verdict.DROP;
            case FLAG -> Verdict.FLAG;
        };
    }

    @Override
    public boolean inspectsNicknames() {
        return filter.config().nicknames();
    }
}
