package org.mucscale.engine.muc;

import java.text.Normalizer;
import java.util.Locale;

import org.mucscale.engine.stanza.Xml;

/**
 * The nickname profile (after RFC 8266): NFKC, no control, format (bidi marks, zero-width joiners), unassigned,
 * private-use or surrogate-mismatched characters, no leading/trailing spaces, not empty, at most N code points.
 * Comparison is case-insensitive ({@link #key}).
 */
final class Nicknames {
    private Nicknames() {
    }

    /** The normalised nickname, or null when it is not acceptable. */
    static String normalize(String nick, int maxCodePoints) {
        if (nick == null || nick.isEmpty()) {
            return null;
        }
        String n = Normalizer.isNormalized(nick, Normalizer.Form.NFKC) ? nick
                : Normalizer.normalize(nick, Normalizer.Form.NFKC);
        int count = 0;
        for (int i = 0; i < n.length(); ) {
            int cp = n.codePointAt(i);
            i += Character.charCount(cp);
            count++;
            if (!Xml.isXmlChar(cp)) {
                return null;
            }
            int type = Character.getType(cp);
            if (type == Character.CONTROL || type == Character.FORMAT || type == Character.UNASSIGNED
                    || type == Character.PRIVATE_USE || type == Character.SURROGATE
                    || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR) {
                return null;
            }
            if (Character.isWhitespace(cp) && cp != ' ') {
                return null;
            }
        }
        if (count > maxCodePoints || n.charAt(0) == ' ' || n.charAt(n.length() - 1) == ' ') {
            return null;
        }
        return n;
    }

    /** Comparison key: two nicknames with the same key conflict. */
    static String key(String normalizedNick) {
        return normalizedNick.toLowerCase(Locale.ROOT);
    }
}
