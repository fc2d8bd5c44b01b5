package org.mucscale.engine.muc;

import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/** Namespaces and error replies (RFC 6120 section 8.3, conditions as XEP-0045 assigns them). */
final class Stanzas {
    private Stanzas() {
    }

    static final String NS_MUC = "http://jabber.org/protocol/muc";
    static final String NS_MUC_USER = "http://jabber.org/protocol/muc#user";
    static final String NS_MUC_ADMIN = "http://jabber.org/protocol/muc#admin";
    static final String NS_MUC_OWNER = "http://jabber.org/protocol/muc#owner";
    static final String NS_DISCO_INFO = "http://jabber.org/protocol/disco#info";
    static final String NS_DISCO_ITEMS = "http://jabber.org/protocol/disco#items";
    static final String NS_SID = "urn:xmpp:sid:0";
    static final String NS_PING = "urn:xmpp:ping";
    static final String NS_DATA = "jabber:x:data";
    static final String NS_DELAY = "urn:xmpp:delay";
    static final String NS_STANZAS = "urn:ietf:params:xml:ns:xmpp-stanzas";
    /** The service reflects the id of a client's presence in its self-presence (and of messages). */
    static final String NS_STABLE_ID = "http://jabber.org/protocol/muc#stable_id";
    static final String NS_OCCUPANT_ID = "urn:xmpp:occupant-id:0";
    static final String NS_SELF_PING = "http://jabber.org/protocol/muc#self-ping";

    /** Error conditions with the type XEP-0045 pairs them with. */
    enum Condition {
        BAD_REQUEST("bad-request", "modify"),
        CONFLICT("conflict", "cancel"),
        FEATURE_NOT_IMPLEMENTED("feature-not-implemented", "cancel"),
        FORBIDDEN("forbidden", "auth"),
        INTERNAL_SERVER_ERROR("internal-server-error", "wait"),
        ITEM_NOT_FOUND("item-not-found", "cancel"),
        JID_MALFORMED("jid-malformed", "modify"),
        NOT_ACCEPTABLE("not-acceptable", "modify"),
        NOT_ALLOWED("not-allowed", "cancel"),
        NOT_AUTHORIZED("not-authorized", "auth"),
        POLICY_VIOLATION("policy-violation", "modify"),
        REGISTRATION_REQUIRED("registration-required", "auth"),
        RESOURCE_CONSTRAINT("resource-constraint", "wait"),
        SERVICE_UNAVAILABLE("service-unavailable", "cancel"),
        /** Room full: XEP-0045 7.2.9 uses service-unavailable with type wait. */
        SERVICE_UNAVAILABLE_WAIT("service-unavailable", "wait");

        final String element;
        final String type;

        Condition(String element, String type) {
            this.element = element;
            this.type = type;
        }
    }

    /**
     * The error reply to {@code original}: same name and id, from {@code errorFrom} (the address the sender used) to
     * the sender. Never call for a stanza of type error (no error loops).
     */
    static XmlElement error(XmlElement original, Jid errorFrom, Jid to, Condition condition, String text) {
        XmlElement.Builder err = XmlElement.builder("error").attribute("type", condition.type)
                .child(XmlElement.builder(condition.element, NS_STANZAS).build());
        if (text != null) {
            err.child(XmlElement.builder("text", NS_STANZAS).attribute("xml:lang", "en").text(text).build());
        }
        XmlElement.Builder reply = XmlElement.builder(original.name())
                .attribute("from", errorFrom == null ? null : errorFrom.toString())
                .attribute("to", to.toString())
                .attribute("type", "error")
                .attribute("id", original.attribute("id"));
        if (original.name().equals("presence")) {
            XmlElement x = original.child("x", NS_MUC);
            if (x != null) {
                reply.child(XmlElement.builder("x", NS_MUC).build());
            }
        }
        return reply.child(err.build()).build();
    }

    /** An IQ result with an optional payload. */
    static XmlElement result(XmlElement iq, Jid from, Jid to, XmlElement payload) {
        XmlElement.Builder b = XmlElement.builder("iq").attribute("from", from.toString()).attribute("to", to.toString())
                .attribute("type", "result").attribute("id", iq.attribute("id"));
        if (payload != null) {
            b.child(payload);
        }
        return b.build();
    }

    /**
     * The bare JID used as a key for affiliations and admin lists: local part lower-cased (nodeprep's case mapping),
     * so an admin typing {@code Bob@example.org} addresses the same user the server calls {@code bob@example.org}.
     */
    static Jid userKey(Jid jid) {
        String local = jid.local();
        String lower = local == null ? null : local.toLowerCase(java.util.Locale.ROOT);
        if (jid.isBare() && (local == null || local.equals(lower))) {
            return jid;
        }
        return Jid.of(lower, jid.domain(), null);
    }

    /** True when the stanza is an error reply (never answered, to avoid loops). */
    static boolean isError(XmlElement stanza) {
        return "error".equals(stanza.attribute("type"));
    }

    /** An element the room adds itself; copies sent by clients are dropped so they cannot be spoofed. */
    static boolean isRoomAssigned(XmlElement e) {
        return NS_OCCUPANT_ID.equals(e.namespace());
    }

    /** True for the namespace of a stanza's own children (body, subject): inherited, jabber:client or component. */
    static boolean isContentNamespace(String ns) {
        return ns == null || ns.equals("jabber:client") || ns.equals("jabber:component:accept")
                || ns.equals("jabber:server");
    }

    /** The first child element (an IQ's payload), or null. */
    static XmlElement firstElement(XmlElement e) {
        for (Object c : e.children()) {
            if (c instanceof XmlElement x) {
                return x;
            }
        }
        return null;
    }

    /** Characters of text and attributes in the tree: a cheap size bound without serializing. */
    static int approximateChars(XmlElement e, int limit) {
        int n = e.name().length() + 5;
        for (int i = 0; i < e.attributeCount(); i++) {
            n += e.attributeName(i).length() + e.attributeValue(i).length() + 4;
        }
        for (Object c : e.children()) {
            if (n > limit) {
                return n;
            }
            if (c instanceof String s) {
                n += s.length();
            } else {
                n += approximateChars((XmlElement) c, limit - n);
            }
        }
        return n;
    }

    static XmlElement feature(String var) {
        return XmlElement.builder("feature").attribute("var", var).build();
    }

    static XmlElement formField(String var, String type, String label, String... values) {
        XmlElement.Builder f = XmlElement.builder("field").attribute("var", var);
        if (type != null) {
            f.attribute("type", type);
        }
        if (label != null) {
            f.attribute("label", label);
        }
        for (String v : values) {
            f.child(XmlElement.builder("value").text(v).build());
        }
        return f.build();
    }
}
