package org.mucscale.openfire;

import java.util.ArrayList;
import java.util.List;
import org.dom4j.Element;
import org.dom4j.Node;
import org.mucscale.engine.filter.Action;
import org.mucscale.engine.filter.ContentFilter;
import org.mucscale.engine.filter.FilterVerdict;

/**
 * What {@link BuiltInMucFilter} checks in a client's stanza to a room of Openfire's own MUC: every text clients
 * render, on the stanza's dom4j element, masked in place. The same parts as the engine's {@code ContentInspection}:
 * <ul>
 *   <li>messages (group and private): every top-level {@code <body>} and {@code <subject>} whatever its
 *       {@code xml:lang} or namespace, XEP-0071 XHTML-IM text (descendant text joined without separators, plus
 *       {@code alt} and {@code title}; the {@code <html>} is removed when the message is masked, since it repeats
 *       the plain body), XEP-0066 {@code <desc>} and XEP-0444 {@code <reaction>} texts, {@code <thread>} and a
 *       XEP-0172 {@code <nick>};</li>
 *   <li>invitation and decline {@code <reason>}s;</li>
 *   <li>the room name and description of a submitted configuration form;</li>
 *   <li>the {@code <status>} texts and a XEP-0172 {@code <nick>} of an available presence to {@code room/nick};</li>
 *   <li>the room's address, at every join (Openfire creates a room at its first join): refused with its own text;</li>
 *   <li>the nickname of an available presence to {@code room/nick}, when {@code mucscale.filter.nicknames} is on.</li>
 * </ul>
 * The most severe verdict of all parts decides. Messages and reasons: REJECT refuses with the policy's text, DROP
 * silently. Forms and nicknames: any refusal carries an error (the owner or joiner must learn it), and a nickname is
 * refused on MASK too (a masked nickname identifies nobody). Stateless; safe on many threads.
 */
final class BuiltInMucContent {
    static final String NS_MUC_USER = "http://jabber.org/protocol/muc#user";
    static final String NS_MUC_OWNER = "http://jabber.org/protocol/muc#owner";
    static final String NS_DATA = "jabber:x:data";
    static final String NS_XHTML_IM = "http://jabber.org/protocol/xhtml-im";
    static final String NS_OOB = "jabber:x:oob";
    static final String NS_REACTIONS = "urn:xmpp:reactions:0";
    /** XEP-0172 user nickname: clients show it as the sender's name. */
    static final String NS_NICK = "http://jabber.org/protocol/nick";

    /** A refused stanza; {@code errorText} null means refused silently (DROP of a message). */
    record Refusal(String errorText) {
    }

    private BuiltInMucContent() {
    }

    /**
     * Checks one client stanza addressed to {@code room} (bare JID) or, with {@code nick}, to an occupant of it. Masks
     * in place; returns null when the stanza may go on, else the refusal.
     */
    static Refusal check(ContentFilter filter, Element stanza, String room, String nick) {
        String type = stanza.attributeValue("type");
        switch (stanza.getName()) {
            case "message" -> {
                if ("error".equals(type)) {
                    return null;
                }
                if ("groupchat".equals(type) || nick != null) {
                    return message(filter, stanza, room);
                }
                Element x = stanza.element(qualified("x", NS_MUC_USER));
                return x == null ? null : reasons(filter, x, room);
            }
            case "presence" -> {
                if (type != null || nick == null) {
                    return null;
                }
                Refusal address = roomAddress(filter, room);
                if (address != null) {
                    return address;
                }
                Refusal status = statuses(filter, stanza, room);
                if (status != null || !filter.config().nicknames()) {
                    return status;
                }
                FilterVerdict v = filter.inspect(room, nick, null);
                return v.clean() || v.action() == Action.FLAG ? null
                        : new Refusal("the nickname is not allowed in this room");
            }
            case "iq" -> {
                if (!"set".equals(type) || nick != null) {
                    return null;
                }
                Element query = stanza.element(qualified("query", NS_MUC_OWNER));
                Element form = query == null ? null : query.element(qualified("x", NS_DATA));
                return form == null || !"submit".equals(form.attributeValue("type")) ? null
                        : configuration(filter, form, room);
            }
            default -> {
                return null;
            }
        }
    }

    private static org.dom4j.QName qualified(String name, String namespace) {
        return org.dom4j.QName.get(name, namespace);
    }

    private static Refusal message(ContentFilter filter, Element message, String room) {
        Action worst = null;
        String errorText = null;
        List<Element> html = null;
        for (Element e : message.elements()) {
            FilterVerdict v = FilterVerdict.CLEAN;
            String name = e.getName();
            String ns = e.getNamespaceURI();
            if (name.equals("body") || name.equals("subject") || name.equals("thread")
                    || (name.equals("nick") && NS_NICK.equals(ns))) {
                v = inspectText(filter, room, e);
            } else if (name.equals("html") && NS_XHTML_IM.equals(ns)) {
                v = filter.inspect(room, renderedText(e), null);
                if (html == null) {
                    html = new ArrayList<>(1);
                }
                html.add(e);
            } else if ((name.equals("x") && NS_OOB.equals(ns)) || (name.equals("reactions") && NS_REACTIONS.equals(ns))) {
                for (Element leaf : e.elements(NS_OOB.equals(ns) ? "desc" : "reaction")) {
                    FilterVerdict lv = inspectText(filter, room, leaf);
                    if (rank(lv.action()) > rank(v.action())) {
                        v = lv;
                    }
                }
            }
            if (rank(v.action()) > rank(worst)) {
                worst = v.action();
                errorText = v.senderError();
            }
        }
        if (worst == Action.MASK && html != null) {
            for (Element h : html) {
                message.remove(h);
            }
        }
        return refusal(worst, errorText);
    }

    /**
     * Every {@code <status>} of an available presence (clients show them all, whatever the language), masked in place;
     * a refusal always carries an error, DROP too: a join that got no answer would hang its client.
     */
    private static Refusal statuses(ContentFilter filter, Element presence, String room) {
        String refused = null;
        for (Element e : presence.elements()) {
            boolean userNick = e.getName().equals("nick") && NS_NICK.equals(e.getNamespaceURI());
            if (!userNick && !e.getName().equals("status")) {
                continue;
            }
            FilterVerdict v = inspectText(filter, room, e);
            if (refused == null && (v.action() == Action.REJECT || v.action() == Action.DROP)) {
                refused = userNick ? "the nickname in the presence (XEP-0172)" : "the presence status";
            }
        }
        // The policy's text speaks of "your message": a presence is told what of it was refused.
        return refused == null ? null : new Refusal(refused + NOT_ACCEPTED);
    }

    static final String NOT_ACCEPTED = " was not accepted: it contains text that is not allowed in this room";

    /** The room's local part, which every room list shows: refused whatever the action except FLAG. */
    private static Refusal roomAddress(ContentFilter filter, String room) {
        int at = room.indexOf('@');
        if (at <= 0) {
            return null;
        }
        String local = room.substring(0, at);
        FilterVerdict v = filter.inspect(room, local, null);
        return v.clean() || v.action() == Action.FLAG ? null : new Refusal("the room address '" + local
                + "' contains words that are not allowed on this service; choose another address");
    }

    private static Refusal reasons(ContentFilter filter, Element mucUser, String room) {
        Action worst = null;
        String errorText = null;
        for (Element inviteOrDecline : mucUser.elements()) {
            if (!inviteOrDecline.getName().equals("invite") && !inviteOrDecline.getName().equals("decline")) {
                continue;
            }
            for (Element reason : inviteOrDecline.elements("reason")) {
                FilterVerdict v = inspectText(filter, room, reason);
                if (rank(v.action()) > rank(worst)) {
                    worst = v.action();
                    errorText = v.senderError();
                }
            }
        }
        return refusal(worst, errorText);
    }

    private static Refusal configuration(ContentFilter filter, Element form, String room) {
        for (Element field : form.elements("field")) {
            String var = field.attributeValue("var");
            if (!"muc#roomconfig_roomname".equals(var) && !"muc#roomconfig_roomdesc".equals(var)) {
                continue;
            }
            for (Element value : field.elements("value")) {
                FilterVerdict v = inspectText(filter, room, value);
                if (!v.clean() && v.action() != Action.MASK && v.action() != Action.FLAG) {
                    return new Refusal((var.endsWith("roomname") ? "the room name" : "the room description")
                            + NOT_ACCEPTED);
                }
            }
        }
        return null;
    }

    /** Inspects an element's text and masks it in place on MASK. */
    private static FilterVerdict inspectText(ContentFilter filter, String room, Element e) {
        String text = e.getText();
        if (text == null || text.isEmpty()) {
            return FilterVerdict.CLEAN;
        }
        FilterVerdict v = filter.inspect(room, text, null);
        if (v.action() == Action.MASK && v.maskedBody() != null) {
            e.setText(v.maskedBody());
        }
        return v;
    }

    private static Refusal refusal(Action worst, String errorText) {
        if (worst == Action.REJECT) {
            return new Refusal(errorText != null ? errorText : "the message was refused by the content filter");
        }
        return worst == Action.DROP ? new Refusal(null) : null;
    }

    private static int rank(Action a) {
        if (a == null) {
            return 0;
        }
        return switch (a) {
            case FLAG -> 1;
            case MASK -> 2;
            case DROP -> 3;
            case REJECT -> 4;
        };
    }

    /**
     * Descendant text in document order without separators, then {@code alt} and {@code title} attributes; walks
     * with its own stack, so no nesting depth overflows the connection thread's stack.
     */
    static String renderedText(Element html) {
        StringBuilder text = new StringBuilder();
        StringBuilder attributes = new StringBuilder();
        List<Element> elements = new ArrayList<>();
        List<Integer> next = new ArrayList<>();
        elements.add(html);
        next.add(0);
        while (!elements.isEmpty()) {
            int top = elements.size() - 1;
            Element e = elements.get(top);
            int i = next.get(top);
            if (i == 0) {
                appendAttribute(attributes, e.attributeValue("alt"));
                appendAttribute(attributes, e.attributeValue("title"));
            }
            if (i >= e.nodeCount()) {
                elements.remove(top);
                next.remove(top);
                continue;
            }
            next.set(top, i + 1);
            Node child = e.node(i);
            if (child instanceof Element c) {
                elements.add(c);
                next.add(0);
            } else if (child.getNodeType() == Node.TEXT_NODE || child.getNodeType() == Node.CDATA_SECTION_NODE
                    || child.getNodeType() == Node.ENTITY_REFERENCE_NODE) {
                text.append(child.getText());
            }
        }
        return text.append(attributes).toString();
    }

    private static void appendAttribute(StringBuilder out, String value) {
        if (value != null && !value.isEmpty()) {
            out.append(' ').append(value);
        }
    }
}
