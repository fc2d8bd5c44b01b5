package org.mucscale.engine.stanza;

/** XML escaping without intermediate strings: callers append straight into their own builder. */
public final class Xml {
    private Xml() {
    }

    /** Appends text content, escaping {@code & < >}. */
    public static void appendText(StringBuilder out, CharSequence s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                default -> out.append(c);
            }
        }
    }

    /** Appends an attribute value for a double-quoted attribute. */
    public static void appendAttribute(StringBuilder out, CharSequence s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                default -> out.append(c);
            }
        }
    }

    /** {@code s} escaped for a double-quoted attribute; a String with nothing to escape is returned as is (no copy). */
    public static String escapeAttribute(CharSequence s) {
        if (s instanceof String text && !needsAttributeEscape(text)) {
            return text;
        }
        StringBuilder sb = new StringBuilder(s.length() + 8);
        appendAttribute(sb, s);
        return sb.toString();
    }

    private static boolean needsAttributeEscape(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c == '&' || c == '<' || c == '>' || c == '"' || c == '\'') {
                return true;
            }
        }
        return false;
    }

    public static String escapeText(CharSequence s) {
        StringBuilder sb = new StringBuilder(s.length() + 8);
        appendText(sb, s);
        return sb.toString();
    }

    /**
     * True if every code point of {@code s} may appear in an XML 1.0 document (surrogates only in pairs). Text that
     * fails this cannot be written: a server reading it closes the stream.
     */
    public static boolean isXmlText(CharSequence s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c < 0xD800 || c == '\n' || c == '\t' || c == '\r') {
                continue; // the common case, one comparison
            }
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
                continue;
            }
            if (!isXmlChar(c) || Character.isSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /**
     * True if {@code c} may appear in an XML 1.0 document. Parsers reject the others; the engine also refuses them
     * in user text so a stored or relayed stanza can always be parsed again.
     */
    public static boolean isXmlChar(int c) {
        return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD)
                || (c >= 0x10000 && c <= 0x10FFFF);
    }
}
