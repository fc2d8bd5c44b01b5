package org.mucscale.standalone;

import java.util.SplittableRandom;
import org.mucscale.engine.stanza.XmlElement;

/**
 * Random client stanzas for the fuzz tests, reproducible from a seed: XEP-0045 shapes (joins, messages, private
 * messages, invitations, admin and owner queries, disco) mixed with foreign payloads, random nesting (now and then far
 * past {@link XmlElement#MAX_DEPTH}), random namespaces, sizes from empty to tens of kilobytes, and text from every
 * Unicode plane with XML's special characters. {@link #toXml} writes one as stream text in a random but equivalent
 * form (prefixes, CDATA, character references, either quote), so what a parser reads back must equal the element.
 *
 * <p>With {@code xmlSafe} false the text also holds what no parser would let through (control characters, lone
 * surrogates, U+FFFE), for stanzas handed to the engine directly.
 */
final class FuzzStanzas {
    static final String DOMAIN = "muc.example.test";
    static final String NS_MUC = "http://jabber.org/protocol/muc";
    static final String NS_USER = NS_MUC + "#user";
    static final String NS_ADMIN = NS_MUC + "#admin";
    static final String NS_OWNER = NS_MUC + "#owner";
    static final String NS_DATA = "jabber:x:data";
    private static final String[] NAMESPACES = {NS_MUC, NS_USER, NS_ADMIN, NS_OWNER, NS_DATA,
            "http://jabber.org/protocol/disco#info", "http://jabber.org/protocol/disco#items",
            "http://jabber.org/protocol/xhtml-im", "http://www.w3.org/1999/xhtml", "urn:xmpp:sid:0",
            "urn:xmpp:occupant-id:0", "jabber:client", "urn:ietf:params:xml:ns:xmpp-stanzas", "urn:x:\u00e9\u4e2d",
            "urn:fuzz:" + "n".repeat(300), "http://etherx.jabber.org/streams", "jabber:iq:version"};
    private static final String[] NAMES = {"body", "subject", "thread", "x", "item", "query", "field", "value",
            "invite", "decline", "reason", "status", "destroy", "password", "history", "html", "p", "span", "a", "error",
            "text", "stanza-id", "occupant-id", "nick", "\u00e9l\u00e9ment", "n".repeat(200), "b-2.c_d"};
    private static final String[] TYPES = {"groupchat", "chat", "normal", "headline", "error", "get", "set",
            "result", "unavailable", "subscribe", "probe", "", "GROUPCHAT", "x\u00e9"};

    private final SplittableRandom rnd;
    private final boolean xmlSafe;
    private final int rooms;
    private final int users;

    FuzzStanzas(long seed, boolean xmlSafe, int rooms, int users) {
        this.rnd = new SplittableRandom(seed);
        this.xmlSafe = xmlSafe;
        this.rooms = rooms;
        this.users = users;
    }

    SplittableRandom random() {
        return rnd;
    }

    /** One random top-level stanza. */
    XmlElement stanza() {
        int k = rnd.nextInt(100);
        String name = k < 45 ? "message" : k < 75 ? "presence" : k < 97 ? "iq" : pick(NAMES);
        XmlElement.Builder b = XmlElement.builder(name);
        if (rnd.nextInt(50) != 0) {
            b.attribute("from", from());
        }
        if (rnd.nextInt(50) != 0) {
            b.attribute("to", to());
        }
        if (rnd.nextInt(4) != 0) {
            b.attribute("type", typeFor(name));
        }
        if (rnd.nextInt(3) != 0) {
            b.attribute("id", rnd.nextInt(10) == 0 ? text(20) : "i" + rnd.nextInt(1000));
        }
        if (rnd.nextInt(20) == 0) {
            b.attribute("xml:lang", rnd.nextBoolean() ? "en" : text(5));
        }
        int payloads = rnd.nextInt(100) < 10 ? 0 : 1 + rnd.nextInt(rnd.nextInt(10) == 0 ? 12 : 3);
        for (int i = 0; i < payloads; i++) {
            b.child(payload(name));
            if (rnd.nextInt(8) == 0) {
                b.text(text(smallLength()));
            }
        }
        return b.build();
    }

    private String typeFor(String name) {
        if (rnd.nextInt(6) == 0) {
            return pick(TYPES);
        }
        return switch (name) {
            case "message" -> rnd.nextInt(3) == 0 ? "chat" : "groupchat";
            case "iq" -> rnd.nextBoolean() ? "get" : "set";
            default -> rnd.nextInt(4) == 0 ? "unavailable" : pick(TYPES);
        };
    }

    /** A real user's full JID, or now and then a malformed or odd one. */
    String from() {
        int k = rnd.nextInt(100);
        if (k < 92) {
            return "u" + rnd.nextInt(users) + "@example.test/r" + rnd.nextInt(3);
        }
        return switch (k) {
            case 92 -> "";
            case 93 -> "@@";
            case 94 -> "u1@example.test/" + text(smallLength());
            case 95 -> "x".repeat(2000) + "@example.test/r";
            case 96 -> "u2@example.test";
            case 97 -> "\u00fc" + rnd.nextInt(users) + "@\u00e9xample.test/r";
            case 98 -> "u3@" + DOMAIN + "/r";
            default -> text(smallLength());
        };
    }

    /** A room, an occupant, the service, or now and then an address elsewhere or malformed. */
    String to() {
        int k = rnd.nextInt(100);
        if (k < 40) {
            return room() + "@" + DOMAIN;
        }
        if (k < 85) {
            return room() + "@" + DOMAIN + "/" + nick();
        }
        return switch (k) {
            case 85, 86, 87 -> DOMAIN;
            case 88 -> "r1@other.example.test/x";
            case 89 -> "r1@@" + DOMAIN;
            case 90 -> room() + "@" + DOMAIN + "/" + text(smallLength());
            case 91 -> "R" + rnd.nextInt(rooms) + "@" + DOMAIN.toUpperCase();
            case 92 -> "\u00e9" + room() + "@" + DOMAIN;
            default -> DOMAIN + "/" + nick();
        };
    }

    String room() {
        return rnd.nextInt(3) == 0 ? "r" + rnd.nextInt(rooms) : "f" + rnd.nextInt(rooms * 2);
    }

    private String nick() {
        int k = rnd.nextInt(20);
        return k == 0 ? "Owner" : k == 1 ? text(smallLength()) : "n" + rnd.nextInt(users);
    }

    private XmlElement payload(String stanzaName) {
        int k = rnd.nextInt(100);
        if (k < 25) {
            return XmlElement.builder(rnd.nextInt(5) == 0 ? "subject" : "body", rnd.nextInt(15) == 0 ? pick(NAMESPACES) : null)
                    .attribute("xml:lang", rnd.nextInt(5) == 0 ? pick(new String[] {"en", "de", "x"}) : null)
                    .text(text(textLength())).build();
        }
        if (k < 40) {
            XmlElement.Builder x = XmlElement.builder("x", NS_MUC);
            if (rnd.nextInt(4) == 0) {
                x.child(XmlElement.builder("password").text(text(smallLength())).build());
            }
            if (rnd.nextInt(4) == 0) {
                x.child(XmlElement.builder("history").attribute("maxstanzas", number())
                        .attribute("seconds", number()).attribute("maxchars", number()).build());
            }
            return x.build();
        }
        if (k < 55) {
            XmlElement.Builder x = XmlElement.builder("x", NS_USER);
            String what = pick(new String[] {"invite", "decline", "item", "status", "destroy"});
            x.child(XmlElement.builder(what).attribute("to", rnd.nextBoolean() ? from() : null)
                    .attribute("from", rnd.nextInt(4) == 0 ? from() : null)
                    .attribute("code", rnd.nextInt(4) == 0 ? number() : null)
                    .child(XmlElement.builder("reason").text(text(smallLength())).build()).build());
            return x.build();
        }
        if (k < 68) {
            XmlElement.Builder q = XmlElement.builder("query", NS_ADMIN);
            int items = 1 + rnd.nextInt(3);
            for (int i = 0; i < items; i++) {
                q.child(XmlElement.builder("item")
                        .attribute("role", rnd.nextInt(3) == 0 ? null : pick(new String[] {"none", "visitor",
                                "participant", "moderator", "x"}))
                        .attribute("affiliation", rnd.nextInt(3) == 0 ? null : pick(new String[] {"none", "outcast",
                                "member", "admin", "owner", "x"}))
                        .attribute("nick", rnd.nextBoolean() ? nick() : null)
                        .attribute("jid", rnd.nextBoolean() ? from() : null)
                        .child(XmlElement.builder("reason").text(text(smallLength())).build()).build());
            }
            return q.build();
        }
        if (k < 78) {
            XmlElement.Builder q = XmlElement.builder("query", NS_OWNER);
            if (rnd.nextInt(5) == 0) {
                q.child(XmlElement.builder("destroy").attribute("jid", to()).build());
            } else {
                XmlElement.Builder form = XmlElement.builder("x", NS_DATA).attribute("type",
                        pick(new String[] {"submit", "cancel", "form", "x"}));
                int fields = rnd.nextInt(6);
                for (int i = 0; i < fields; i++) {
                    form.child(XmlElement.builder("field").attribute("var", pick(new String[] {"FORM_TYPE",
                                    "muc#roomconfig_roomname", "muc#roomconfig_membersonly",
                                    "muc#roomconfig_passwordprotectedroom", "muc#roomconfig_maxusers",
                                    "muc#roomconfig_whois", "muc#roomconfig_persistentroom", text(10)}))
                            .child(XmlElement.builder("value").text(rnd.nextBoolean() ? number() : text(smallLength()))
                                    .build()).build());
                }
                q.child(form.build());
            }
            return q.build();
        }
        if (k < 84) {
            return XmlElement.builder("query", pick(new String[] {"http://jabber.org/protocol/disco#info",
                    "http://jabber.org/protocol/disco#items", "jabber:iq:version", "urn:xmpp:ping"}))
                    .attribute("node", rnd.nextInt(5) == 0 ? text(10) : null).build();
        }
        // foreign or rich payloads, nested at random: now and then far past the engine's depth limit
        int depth = rnd.nextInt(100) < 3 ? XmlElement.MAX_DEPTH - 5 + rnd.nextInt(300) : 1 + rnd.nextInt(6);
        return nested(depth, stanzaName.equals("message") && rnd.nextBoolean()
                ? "http://jabber.org/protocol/xhtml-im" : pick(NAMESPACES));
    }

    /** An element {@code depth} levels deep, with random siblings and text along the way (built bottom-up). */
    private XmlElement nested(int depth, String namespace) {
        XmlElement inner = XmlElement.builder(pick(NAMES), rnd.nextBoolean() ? null : pick(NAMESPACES))
                .text(text(smallLength())).build();
        for (int level = depth - 1; level > 0; level--) {
            XmlElement.Builder b = XmlElement.builder(pick(NAMES), level == 1 ? namespace
                    : rnd.nextInt(4) == 0 ? pick(NAMESPACES) : null);
            if (rnd.nextInt(4) == 0) {
                b.attribute(pick(new String[] {"a", "href", "style", "xml:lang", "b-c"}), text(smallLength()));
            }
            if (rnd.nextInt(5) == 0) {
                b.text(text(smallLength()));
            }
            b.child(inner);
            if (rnd.nextInt(6) == 0) {
                b.child(XmlElement.builder(pick(NAMES)).text(text(smallLength())).build());
            }
            inner = b.build();
        }
        return inner;
    }

    private String number() {
        return switch (rnd.nextInt(6)) {
            case 0 -> "-1";
            case 1 -> "99999999999999999999";
            case 2 -> "x";
            default -> Integer.toString(rnd.nextInt(100));
        };
    }

    private int smallLength() {
        return rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(24);
    }

    private int textLength() {
        int k = rnd.nextInt(1000);
        return k < 900 ? rnd.nextInt(60) : k < 995 ? rnd.nextInt(2000) : rnd.nextInt(60_000);
    }

    /** Random text: ASCII, XML specials, whitespace, BMP scripts, marks, astral characters (and, unsafe, worse). */
    String text(int length) {
        StringBuilder sb = new StringBuilder(length + 4);
        while (sb.length() < length) {
            int k = rnd.nextInt(100);
            if (k < 50) {
                sb.append((char) ('a' + rnd.nextInt(26)));
            } else if (k < 58) {
                sb.append(" &<>\"';]]>".charAt(rnd.nextInt(10)));
            } else if (k < 62) {
                sb.append("\t\n\r".charAt(rnd.nextInt(3)));
            } else if (k < 75) {
                sb.append(pick(new String[] {"\u00e9", "\u4e2d", "\u0627", "\u05d0", "\u200d", "\u200f", "\u0301",
                        "\u2028", "\ufeff", "\u00a0", "\ufffd", "\u0131", "\u1e9e"}));
            } else if (k < 85) {
                sb.appendCodePoint(0x1F300 + rnd.nextInt(0x300)); // emoji
            } else if (k < 92) {
                sb.appendCodePoint(0x20 + rnd.nextInt(0xD7FF - 0x20));
            } else if (k < 97) {
                sb.appendCodePoint(0x10000 + rnd.nextInt(0x100000)); // any astral plane
            } else if (xmlSafe) {
                sb.append((char) ('0' + rnd.nextInt(10)));
            } else {
                sb.append(pick(new String[] {"\u0000", "\u0001", "\u001f", "\ud800", "\udc00", "\ufffe", "\uffff"}));
            }
        }
        return sb.toString();
    }

    private String pick(String[] options) {
        return options[rnd.nextInt(options.length)];
    }

    // ------------------------------------------------------------------------------------------ as stream text

    /**
     * {@code stanza} as it could appear on a stream whose default namespace is {@code streamNamespace}: each element's
     * namespace written as a default declaration or a fresh prefix, text raw, in CDATA or as character references,
     * attributes in either quote. Whatever the choices, a parser must read back exactly {@code stanza}.
     */
    String toXml(XmlElement stanza) {
        StringBuilder out = new StringBuilder(256);
        write(out, stanza, null, null, new int[1]);
        return out.toString();
    }

    private void write(StringBuilder out, XmlElement e, String parentResolved, String defaultInScope, int[] prefixes) {
        String resolved = e.namespace() != null ? e.namespace() : parentResolved;
        String tag = e.name();
        String declaration = null;
        String childDefault = defaultInScope;
        if (resolved != null && !resolved.equals(defaultInScope)) {
            if (rnd.nextInt(3) == 0) {
                String prefix = "p" + prefixes[0]++;
                tag = prefix + ":" + e.name();
                declaration = " xmlns:" + prefix + "=" + quoted(resolved);
            } else {
                declaration = " xmlns=" + quoted(resolved);
                childDefault = resolved;
            }
        }
        out.append('<').append(tag);
        if (declaration != null) {
            out.append(declaration);
        }
        for (int i = 0; i < e.attributeCount(); i++) {
            out.append(' ').append(e.attributeName(i)).append('=').append(quoted(e.attributeValue(i)));
        }
        if (e.children().isEmpty() && rnd.nextBoolean()) {
            out.append("/>");
            return;
        }
        out.append('>');
        for (Object c : e.children()) {
            if (c instanceof XmlElement child) {
                write(out, child, resolved, childDefault, prefixes);
            } else {
                text(out, (String) c);
            }
        }
        out.append("</").append(tag).append('>');
    }

    private String quoted(String value) {
        char q = rnd.nextBoolean() ? '"' : '\'';
        StringBuilder sb = new StringBuilder(value.length() + 2).append(q);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '\t' -> sb.append("&#9;");   // a parser turns raw whitespace in attributes into spaces
                case '\n' -> sb.append("&#xA;");
                case '\r' -> sb.append("&#13;");
                default -> {
                    if (c == q) {
                        sb.append(q == '"' ? "&quot;" : "&apos;");
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append(q).toString();
    }

    private void text(StringBuilder out, String s) {
        if (!s.contains("]]>") && s.indexOf('\r') < 0 && rnd.nextInt(5) == 0) {
            out.append("<![CDATA[").append(s).append("]]>");
            return;
        }
        boolean refs = rnd.nextInt(5) == 0;
        for (int i = 0; i < s.length(); i++) {
            int cp = s.codePointAt(i);
            if (Character.isSupplementaryCodePoint(cp)) {
                i++;
            }
            if (cp == '&') {
                out.append("&amp;");
            } else if (cp == '<') {
                out.append("&lt;");
            } else if (cp == '>') {
                out.append("&gt;"); // "]]>" may not appear raw in content
            } else if (cp == '\r') {
                out.append("&#13;"); // a parser turns a raw CR into LF
            } else if (refs && rnd.nextInt(3) == 0) {
                out.append(rnd.nextBoolean() ? "&#" + cp + ";" : "&#x" + Integer.toHexString(cp) + ";");
            } else {
                out.appendCodePoint(cp);
            }
        }
    }
}
