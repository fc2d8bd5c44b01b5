package org.mucscale.engine.muc;

import java.util.Locale;
import org.mucscale.engine.muc.Stanzas.Condition;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.Xml;
import org.mucscale.engine.stanza.XmlElement;

/**
 * The checks every stanza passes on the caller's thread before {@link MucService} routes it: a stanza kind and a
 * sender; then, before anything reads or echoes it, a depth it is safe to walk and only characters XML allows; a
 * valid address of this service; the service running; an IQ with an id and a type; the size limit. Each refusal is
 * answered (never an error to an error) and counted through {@link MucListener}.
 *
 * <p>Stateless but for the service context, which it only reads (its configuration is replaced whole on reconfigure);
 * any thread.
 */
final class InboundChecks {
    private final ServiceContext ctx;

    InboundChecks(ServiceContext ctx) {
        this.ctx = ctx;
    }

    /** The stanza's sender, or null (counted) when it is not a message, presence or IQ, or has no valid sender. */
    Jid sender(XmlElement stanza) {
        String kind = stanza.name();
        if (!kind.equals("message") && !kind.equals("presence") && !kind.equals("iq")) {
            ctx.listener.stanzaRefused("not-a-stanza");
            return null;
        }
        Jid from = Jid.tryParse(stanza.attribute("from"));
        if (from == null) {
            ctx.listener.stanzaRefused("no-sender");
        }
        return from;
    }

    /** The address of this service the stanza is for, or null when it was refused (answered and counted). */
    Jid admit(XmlElement stanza, Jid from, boolean isError, boolean running) {
        // Before anything reads or echoes it: a stanza too deep to walk safely, or holding characters XML does not
        // allow (which, echoed to the server, would make it close the whole link), gets an error and goes no further.
        if (stanza.depth() > XmlElement.MAX_DEPTH) {
            // The hosts' parsers build one level past the limit and skip the rest; nothing walks it any further.
            refuseUnsafe(stanza, from, isError, Condition.POLICY_VIOLATION,
                    "stanza nested deeper than " + XmlElement.MAX_DEPTH + " elements", "too-deep");
            return null;
        }
        if (!onlyXmlCharacters(stanza)) {
            refuseUnsafe(stanza, from, isError, Condition.BAD_REQUEST,
                    "stanza holds characters that XML does not allow", "not-xml-text");
            return null;
        }
        String toText = stanza.attribute("to");
        Jid to = toText == null ? ctx.serviceJid : Jid.tryParse(toText);
        if (to == null) {
            if (!isError) {
                sendError(stanza, ctx.serviceJid, from, Condition.JID_MALFORMED,
                        "the 'to' address is not a valid JID");
            }
            ctx.listener.stanzaRefused("bad-address");
            return null;
        }
        if (!to.domain().equals(ctx.serviceJid.domain())) {
            if (!isError) {
                sendError(stanza, ctx.serviceJid, from, Condition.ITEM_NOT_FOUND,
                        "this service only serves " + ctx.serviceJid);
            }
            ctx.listener.stanzaRefused("wrong-domain");
            return null;
        }
        if (!running) {
            if (!isError) {
                sendError(stanza, to, from, Condition.SERVICE_UNAVAILABLE,
                        "the chat service is not running");
            }
            ctx.listener.stanzaRefused("not-running");
            return null;
        }
        if (stanza.name().equals("iq") && !isError && !"result".equals(stanza.attribute("type"))) {
            String type = stanza.attribute("type");
            if (!"get".equals(type) && !"set".equals(type) || stanza.attribute("id") == null) {
                sendError(stanza, to, from, Condition.BAD_REQUEST,
                        "an IQ needs an id and a type of get or set");
                ctx.listener.stanzaRefused("bad-iq");
                return null;
            }
        }
        int limit = ctx.config.maxStanzaChars;
        if (Stanzas.approximateChars(stanza, limit) > limit) {
            ctx.listener.floodRejected(to.bare(), MucListener.FloodLimit.STANZA_SIZE);
            if (!isError) {
                sendError(stanza, to, from, Condition.POLICY_VIOLATION,
                        "the stanza is too large: at most " + limit + " characters");
            }
            return null;
        }
        return to;
    }

    /**
     * Answers a stanza that is not walked any further from the service's address, echoing only what is safe to echo
     * (its name and an id of XML characters); a sender whose own address is not XML text gets no answer.
     */
    private void refuseUnsafe(XmlElement stanza, Jid from, boolean isError, Condition condition, String text,
                              String reason) {
        String id = stanza.attribute("id");
        if (!isError && Xml.isXmlText(from.toString())) {
            XmlElement head = XmlElement.builder(stanza.name())
                    .attribute("id", id != null && Xml.isXmlText(id) ? id : null).build();
            ctx.delivery.send(Stanzas.error(head, replyAddress(stanza), from, condition, text));
        }
        ctx.listener.stanzaRefused(reason);
    }

    /**
     * The address the stanza was sent to when it is one of this service's (a room, an occupant), else the service: a
     * client waiting for an IQ answer only takes one from the address it asked.
     */
    private Jid replyAddress(XmlElement stanza) {
        String to = stanza.attribute("to");
        Jid jid = to == null || !Xml.isXmlText(to) ? null : Jid.tryParse(to);
        return jid != null && jid.domain().equals(ctx.serviceJid.domain()) ? jid : ctx.serviceJid;
    }

    /** True when every name, attribute and text in the stanza is XML 1.0 text (depth already bounded). */
    private static boolean onlyXmlCharacters(XmlElement e) {
        if (!Xml.isXmlText(e.name()) || e.namespace() != null && !Xml.isXmlText(e.namespace())) {
            return false;
        }
        for (int i = 0; i < e.attributeCount(); i++) {
            if (!Xml.isXmlText(e.attributeName(i)) || !Xml.isXmlText(e.attributeValue(i))) {
                return false;
            }
        }
        for (Object c : e.children()) {
            if (c instanceof XmlElement child ? !onlyXmlCharacters(child) : !Xml.isXmlText((String) c)) {
                return false;
            }
        }
        return true;
    }

    /** An error to a stanza's sender from {@code errorFrom}, unless the sender is over its error budget. */
    private void sendError(XmlElement stanza, Jid errorFrom, Jid to, Condition condition, String text) {
        Room.sendError(ctx, stanza, errorFrom, to, null, condition, text);
    }

    /** Room addresses are case-insensitive: the local part is lower-cased (nodeprep's case mapping). */
    static Jid normalizeRoom(Jid jid) {
        try {
            String lower = jid.local().toLowerCase(Locale.ROOT);
            if (jid.isBare() && lower.equals(jid.local())) {
                return jid; // the common case: no new address per stanza
            }
            return Jid.of(lower, jid.domain(), null);
        } catch (RuntimeException e) {
            return null;
        }
    }
}
