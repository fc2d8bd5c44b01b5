package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.mucscale.engine.muc.MessageInspector.Action;
import org.mucscale.engine.muc.MessageInspector.Verdict;
import org.mucscale.engine.muc.Stanzas.Condition;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * Puts every part of a stanza that clients show as text through the {@link MessageInspector}, and acts on the
 * verdict: group and private messages, invitation and decline reasons, room names and descriptions from the
 * configuration form, and (when the inspector asks for them) nicknames. One per shard, used only on its thread
 * (the MASK bookkeeping below is scratch state between {@link #inspectMessage} and {@link #masked}).
 *
 * <p>Parts of a message, each inspected:
 * <ul>
 *   <li>every top-level {@code <body>} and {@code <subject>}, whatever its {@code xml:lang} and namespace: a
 *       foreign-namespace one is inspected too, so it neither hides the real body nor smuggles text to lenient
 *       clients. The first body of the client namespace goes with the first subject in one call (for an ordinary
 *       message the only call, and nothing is allocated here); every other one gets a call of its own. On MASK each
 *       is rewritten with its own masked text, its attributes kept;</li>
 *   <li>XEP-0071 XHTML-IM {@code <html>}: the text of all its descendants, joined without separators (so markup
 *       cannot split a word), plus {@code alt} and {@code title} attributes. On MASK the whole {@code <html>} is
 *       dropped: it repeats the plain body, which clients then show masked (rewriting text split across markup
 *       would leave the word readable);</li>
 *   <li>XEP-0066 out-of-band {@code <desc>} and XEP-0444 {@code <reaction>} texts: rewritten on MASK;</li>
 *   <li>{@code <thread>} (some clients show it as the conversation's title) and a XEP-0172 {@code <nick>}:
 *       rewritten on MASK. A XEP-0461 reply's fallback is part of the body; masking keeps its code point offsets.</li>
 * </ul>
 * The most severe verdict of all parts decides (REJECT, DROP, MASK, FLAG, PASS). Other payloads carry no text of
 * their own and pass unchanged.
 */
final class ContentInspection {
    static final String NS_XHTML_IM = "http://jabber.org/protocol/xhtml-im";
    static final String NS_OOB = "jabber:x:oob";
    static final String NS_REACTIONS = "urn:xmpp:reactions:0";
    /** XEP-0172 user nickname: clients show it beside (or instead of) the occupant nickname. */
    static final String NS_NICK = "http://jabber.org/protocol/nick";
    /** Returned by {@link #admitReason} when the stanza was refused. */
    static final XmlElement REFUSED = XmlElement.builder("refused").build();
    /** MASK of a part other than the first body and subject: Room's plain body and subject stay as they are. */
    private static final Verdict MASK_OTHER_PARTS = Verdict.mask(null, null);

    private final ServiceContext ctx;
    /** Parts masked by the last {@link #inspectMessage}, with their masked texts (same index). */
    private final List<XmlElement> maskedParts = new ArrayList<>(4);
    private final List<String> maskedTexts = new ArrayList<>(4);

    ContentInspection(ServiceContext ctx) {
        this.ctx = ctx;
    }

    // ------------------------------------------------------------------------------------------------ messages

    /** The first {@code <body>} of the client namespace: the message's text as logged and kept in history. */
    static String plainBody(XmlElement message) {
        XmlElement e = first(message, "body");
        return e == null ? null : e.text();
    }

    /** The first {@code <subject>} of the client namespace, or null. */
    static XmlElement plainSubject(XmlElement message) {
        return first(message, "subject");
    }

    /**
     * True when the message has text beyond a plain body and subject that clients render (rich or foreign). A thread
     * or XEP-0172 nick alone does not make one: clients show them only with a message (chat states carry them too).
     */
    static boolean rendersOtherText(XmlElement message) {
        List<Object> children = message.children();
        for (int i = 0, n = children.size(); i < n; i++) {
            if (children.get(i) instanceof XmlElement e && isOtherPart(e) && !"thread".equals(e.name())
                    && !isUserNick(e)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Inspects every rendered part of {@code message} (see the class comment) and returns the most severe verdict.
     * A MASK verdict carries the masked first body and subject (null where unchanged); {@link #masked} then builds
     * the message to send. Not counted: the caller counts the action once per message.
     */
    Verdict inspectMessage(Jid room, String nick, Jid realJid, XmlElement message) {
        maskedParts.clear();
        maskedTexts.clear();
        XmlElement firstBody = null;
        XmlElement firstSubject = null;
        boolean otherParts = false;
        List<Object> children = message.children();
        int n = children.size();
        for (int i = 0; i < n; i++) {
            if (children.get(i) instanceof XmlElement e) {
                if (firstBody == null && isPlain(e, "body")) {
                    firstBody = e;
                } else if (firstSubject == null && isPlain(e, "subject")) {
                    firstSubject = e;
                } else if (isOtherPart(e)) {
                    otherParts = true;
                }
            }
        }
        Verdict verdict = Verdict.PASS;
        if (firstBody != null || firstSubject != null) {
            verdict = ctx.inspector.inspect(room, nick, realJid, firstBody == null ? null : firstBody.text(),
                    firstSubject == null ? null : firstSubject.text());
            if (verdict.action() == Action.MASK) {
                remember(firstBody, verdict.body());
                remember(firstSubject, verdict.subject());
            }
        }
        if (!otherParts) {
            return verdict;
        }
        for (int i = 0; i < n; i++) {
            if (!(children.get(i) instanceof XmlElement e) || e == firstBody || e == firstSubject) {
                continue;
            }
            if (isTextElement(e)) {
                verdict = worse(verdict, inspectPart(room, nick, realJid, e));
            } else if (isXhtml(e)) {
                Verdict v = ctx.inspector.inspect(room, nick, realJid, renderedText(e), null);
                verdict = worse(verdict, v.action() == Action.MASK ? MASK_OTHER_PARTS : v);
            } else if (isTextContainer(e)) {
                for (XmlElement leaf : e.elements(leafName(e))) {
                    verdict = worse(verdict, inspectPart(room, nick, realJid, leaf));
                }
            }
        }
        return verdict;
    }

    /**
     * The message as the last {@link #inspectMessage} (which returned MASK) says to send it: each masked part with its
     * masked text, XHTML-IM dropped, everything else as it was.
     */
    XmlElement masked(XmlElement message) {
        XmlElement.Builder b = copyWithoutChildren(message);
        for (Object o : message.children()) {
            if (!(o instanceof XmlElement e)) {
                b.text((String) o);
            } else if (isXhtml(e)) {
                continue; // dropped: see the class comment
            } else if (isTextContainer(e)) {
                XmlElement.Builder container = copyWithoutChildren(e);
                for (Object leaf : e.children()) {
                    if (leaf instanceof XmlElement l) {
                        container.child(replaced(l));
                    } else {
                        container.text((String) leaf);
                    }
                }
                b.child(container.build());
            } else {
                b.child(replaced(e));
            }
        }
        return b.build();
    }

    /**
     * A private message as it may be relayed: itself, its masked copy, or null when refused (REJECT answers the
     * sender with not-acceptable, DROP answers nothing). Counted with the listener like group messages.
     */
    XmlElement admitPrivateMessage(Command c, Jid room, Occupant sender) {
        Verdict v = inspectMessage(room, sender.nick, sender.realJid, c.stanza);
        if (refused(c, room, v, "the private message", true)) {
            return null;
        }
        return v.action() == Action.MASK ? masked(c.stanza) : c.stanza;
    }

    // ------------------------------------------------------------------------------------------------ other texts

    /**
     * An invitation's or decline's {@code <reason>} as it may be relayed: itself (or null when there is none), its
     * masked copy, or {@link #REFUSED} (REJECT answered, DROP silent: the invitation is not sent).
     */
    XmlElement admitReason(Command c, Jid room, String nick, XmlElement reason) {
        if (reason == null) {
            return null;
        }
        Verdict v = ctx.inspector.inspect(room, nick, c.from, reason.text(), null);
        if (refused(c, room, v, "the reason", true)) {
            return REFUSED;
        }
        return v.action() == Action.MASK && v.body() != null ? withText(reason, v.body()) : reason;
    }

    /**
     * An available presence as the room may show it: itself, a copy with each {@code <status>} text masked, or null
     * when a status is refused (REJECT and DROP both answer not-acceptable: a join that got no answer would hang its
     * client). Every {@code <status>} child counts, whatever its namespace or language, as clients show them all; so
     * does a XEP-0172 {@code <nick>}, which clients show as the sender's name.
     */
    XmlElement admitStatus(Command c, Jid room, String nick) {
        XmlElement presence = c.stanza;
        List<Object> children = presence.children();
        Map<XmlElement, String> maskedTexts = null;
        for (int i = 0, n = children.size(); i < n; i++) {
            if (!(children.get(i) instanceof XmlElement e) || !("status".equals(e.name()) || isUserNick(e))) {
                continue;
            }
            String text = e.text();
            if (text == null || text.isEmpty()) {
                continue;
            }
            Verdict v = ctx.inspector.inspect(room, nick, c.from, text, null);
            if (refused(c, room, v, isUserNick(e) ? "the nickname in the presence (XEP-0172)" : "the presence status",
                    false)) {
                return null;
            }
            if (v.action() == Action.MASK && v.body() != null) {
                if (maskedTexts == null) {
                    maskedTexts = new java.util.IdentityHashMap<>();
                }
                maskedTexts.put(e, v.body());
            }
        }
        if (maskedTexts == null) {
            return presence;
        }
        XmlElement.Builder b = copyWithoutChildren(presence);
        for (Object o : children) {
            if (o instanceof XmlElement e) {
                String masked = maskedTexts.get(e);
                b.child(masked == null ? e : withText(e, masked));
            } else {
                b.text((String) o);
            }
        }
        return b.build();
    }

    /**
     * Inspects a submitted room name and description; masks them in {@code sub}, or refuses the whole form with
     * not-acceptable (DROP too: an owner must learn that the configuration was not applied). False when refused.
     */
    boolean admitConfiguration(Command c, Jid room, String ownerNick, RoomConfigForm.Submission sub) {
        if (sub.name != null && !sub.name.isEmpty()) {
            Verdict v = ctx.inspector.inspect(room, ownerNick, c.from, sub.name, null);
            if (refused(c, room, v, "the room name", false)) {
                return false;
            }
            if (v.action() == Action.MASK && v.body() != null) {
                sub.name = v.body();
            }
        }
        if (sub.description != null && !sub.description.isEmpty()) {
            Verdict v = ctx.inspector.inspect(room, ownerNick, c.from, sub.description, null);
            if (refused(c, room, v, "the room description", false)) {
                return false;
            }
            if (v.action() == Action.MASK && v.body() != null) {
                sub.description = v.body();
            }
        }
        return true;
    }

    /**
     * Inspects the address of a room about to be created: it shows in every room list, so a match refuses the
     * creation with not-acceptable whatever the action, except FLAG (counted, created). False when refused.
     */
    boolean admitRoomAddress(Command c, Jid room) {
        String local = room.local();
        if (local == null || local.isEmpty()) {
            return true;
        }
        Verdict v = ctx.inspector.inspect(room, null, c.from, local, null);
        Action a = v.action();
        if (a == Action.PASS) {
            return true;
        }
        ctx.listener.filtered(room, a);
        if (a == Action.FLAG) {
            return true;
        }
        Room.reply(ctx, c, Condition.NOT_ACCEPTABLE, "the room address '" + local
                + "' contains words that are not allowed on this service; choose another address");
        return false;
    }

    /**
     * Inspects a nickname someone wants to take (join or nick change) when the inspector asks for nicknames. A match
     * refuses it with not-acceptable whatever the action (a masked nickname identifies nobody), except FLAG, which
     * is counted and let through. False when refused.
     */
    boolean admitNickname(Command c, Jid room, String nick) {
        if (!ctx.inspector.inspectsNicknames()) {
            return true;
        }
        Verdict v = ctx.inspector.inspect(room, nick, c.from, nick, null);
        Action a = v.action();
        if (a == Action.PASS) {
            return true;
        }
        ctx.listener.filtered(room, a);
        if (a == Action.FLAG) {
            return true;
        }
        Room.reply(ctx, c, Condition.NOT_ACCEPTABLE, "the nickname is not allowed in this room");
        return false;
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** Counts a non-PASS verdict; true (after answering a REJECT, or any refusal unless DROP may be silent) when refused. */
    private boolean refused(Command c, Jid room, Verdict v, String what, boolean dropIsSilent) {
        Action a = v.action();
        if (a == Action.PASS) {
            return false;
        }
        ctx.listener.filtered(room, a);
        if (a == Action.REJECT || (a == Action.DROP && !dropIsSilent)) {
            // The configured text speaks of "your message": a presence or a form gets a text naming what was refused.
            boolean message = c.stanza.name().equals("message");
            Room.reply(ctx, c, Condition.NOT_ACCEPTABLE, message && v.errorText() != null ? v.errorText()
                    : what + " was not accepted: it contains text that is not allowed in this room");
            return true;
        }
        return a == Action.DROP;
    }

    private Verdict inspectPart(Jid room, String nick, Jid realJid, XmlElement part) {
        String text = part.text();
        if (text == null || text.isEmpty()) {
            return Verdict.PASS;
        }
        Verdict v = ctx.inspector.inspect(room, nick, realJid, text, null);
        if (v.action() != Action.MASK) {
            return v;
        }
        remember(part, v.body());
        return MASK_OTHER_PARTS;
    }

    private void remember(XmlElement part, String maskedText) {
        if (part != null && maskedText != null) {
            maskedParts.add(part);
            maskedTexts.add(maskedText);
        }
    }

    private XmlElement replaced(XmlElement e) {
        for (int i = 0; i < maskedParts.size(); i++) {
            if (maskedParts.get(i) == e) {
                return withText(e, maskedTexts.get(i));
            }
        }
        return e;
    }

    private static int rank(Action a) {
        return switch (a) {
            case PASS -> 0;
            case FLAG -> 1;
            case MASK -> 2;
            case DROP -> 3;
            case REJECT -> 4;
        };
    }

    private static Verdict worse(Verdict a, Verdict b) {
        return rank(b.action()) > rank(a.action()) ? b : a;
    }

    private static XmlElement first(XmlElement message, String name) {
        List<Object> children = message.children();
        for (int i = 0, n = children.size(); i < n; i++) {
            if (children.get(i) instanceof XmlElement e && isPlain(e, name)) {
                return e;
            }
        }
        return null;
    }

    private static boolean isPlain(XmlElement e, String name) {
        return name.equals(e.name()) && Stanzas.isContentNamespace(e.namespace());
    }

    /** A top-level body, subject or thread in any namespace, or a XEP-0172 nick. */
    private static boolean isTextElement(XmlElement e) {
        String name = e.name();
        return "body".equals(name) || "subject".equals(name) || "thread".equals(name) || isUserNick(e);
    }

    private static boolean isUserNick(XmlElement e) {
        return "nick".equals(e.name()) && NS_NICK.equals(e.namespace());
    }

    private static boolean isXhtml(XmlElement e) {
        return "html".equals(e.name()) && NS_XHTML_IM.equals(e.namespace());
    }

    private static boolean isTextContainer(XmlElement e) {
        return ("x".equals(e.name()) && NS_OOB.equals(e.namespace()))
                || ("reactions".equals(e.name()) && NS_REACTIONS.equals(e.namespace()));
    }

    private static String leafName(XmlElement container) {
        return NS_OOB.equals(container.namespace()) ? "desc" : "reaction";
    }

    private static boolean isOtherPart(XmlElement e) {
        return isTextElement(e) || isXhtml(e) || isTextContainer(e);
    }

    private static XmlElement.Builder copyWithoutChildren(XmlElement e) {
        XmlElement.Builder b = XmlElement.builder(e.name(), e.namespace());
        for (int i = 0; i < e.attributeCount(); i++) {
            b.attribute(e.attributeName(i), e.attributeValue(i));
        }
        return b;
    }

    private static XmlElement withText(XmlElement e, String text) {
        return copyWithoutChildren(e).text(text).build();
    }

    /**
     * The text an XHTML-IM payload shows: all descendant text in document order, joined without separators (so
     * {@code sh<b/>it} reads as one word), then {@code alt} and {@code title} attributes, each after a space. Walks
     * with its own stack, so no nesting depth overflows the room thread's stack.
     */
    static String renderedText(XmlElement html) {
        StringBuilder text = new StringBuilder();
        StringBuilder attributes = new StringBuilder();
        List<XmlElement> elements = new ArrayList<>();
        int[] next = new int[16];
        elements.add(html);
        while (!elements.isEmpty()) {
            int top = elements.size() - 1;
            XmlElement e = elements.get(top);
            List<Object> children = e.children();
            int i = next[top];
            if (i == 0) {
                appendAttribute(attributes, e.attribute("alt"));
                appendAttribute(attributes, e.attribute("title"));
            }
            if (i >= children.size()) {
                elements.remove(top);
                continue;
            }
            next[top] = i + 1;
            Object child = children.get(i);
            if (child instanceof String s) {
                text.append(s);
            } else {
                if (elements.size() == next.length) {
                    next = java.util.Arrays.copyOf(next, next.length * 2);
                }
                next[elements.size()] = 0;
                elements.add((XmlElement) child);
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
