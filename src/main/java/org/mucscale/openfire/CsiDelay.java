package org.mucscale.openfire;

import org.mucscale.engine.stanza.RenderedStanza;

/**
 * Whether Openfire's client state indication (XEP-0352, {@code CsiManager.canDelay}) may hold back a rendered stanza
 * for an inactive client, read from the rendered text without parsing it.
 *
 * <p>Openfire 5.1.1's rule, mirrored: IQs are never delayed; a presence without a type or of type unavailable is
 * delayed unless it is a MUC self-presence (status 110); other presences are not; a message with a body is not; a
 * message without a body is delayed unless it carries a subject, a MUC invitation, an encrypted payload or a Jingle
 * Message Initiation element. The text is the engine's own rendering ({@link RenderedStanza}: {@code <name to="},
 * the recipient, then {@code "} and the rest, attributes in double quotes). Where the text cannot tell (a {@code body}
 * nested in an extension, say), the answer is "not delayed": such a stanza is written at once, as Openfire writes an
 * active client's, never held longer than Openfire would hold it.
 *
 * <p>Stateless; any thread.
 */
final class CsiDelay {
    private CsiDelay() {
    }

    static boolean openfireMayDelay(RenderedStanza stanza) {
        String prefix = stanza.prefix();
        String suffix = stanza.suffix();
        if (prefix.startsWith("<presence")) {
            String type = rootAttribute(suffix, "type");
            if (type != null && !"unavailable".equals(type)) {
                return false;
            }
            return !suffix.contains("<status code=\"110\"");
        }
        if (prefix.startsWith("<message")) {
            return !hasElement(suffix, "body")
                    && !hasElement(suffix, "subject")
                    && !hasElement(suffix, "invite")
                    && !hasElement(suffix, "encrypted")
                    && !suffix.contains("urn:xmpp:jingle-message:");
        }
        return false;
    }

    /** The value of the root element's attribute {@code name}, or null: the start tag ends at the first '>' outside quotes. */
    static String rootAttribute(String suffix, String name) {
        boolean quoted = suffix.startsWith("\""); // the recipient's closing quote
        int i = quoted ? 1 : 0;
        for (; i < suffix.length(); i++) {
            char c = suffix.charAt(i);
            if (c == '>') {
                return null;
            }
            if (c == ' ' && suffix.startsWith(name, i + 1) && suffix.startsWith("=\"", i + 1 + name.length())) {
                int start = i + 1 + name.length() + 2;
                int end = suffix.indexOf('"', start);
                return end < 0 ? null : suffix.substring(start, end);
            }
            if (c == '"') {
                int end = suffix.indexOf('"', i + 1);
                if (end < 0) {
                    return null;
                }
                i = end;
            }
        }
        return null;
    }

    /** Whether an element named {@code name} (any depth) starts somewhere in the text. */
    private static boolean hasElement(String text, String name) {
        int from = 0;
        while (true) {
            int at = text.indexOf(name, from);
            if (at < 0) {
                return false;
            }
            int after = at + name.length();
            if (at > 0 && text.charAt(at - 1) == '<' && after < text.length()) {
                char c = text.charAt(after);
                if (c == '>' || c == ' ' || c == '/') {
                    return true;
                }
            }
            from = after;
        }
    }
}
