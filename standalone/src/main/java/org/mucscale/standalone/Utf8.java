package org.mucscale.standalone;

import org.apache.mina.core.buffer.IoBuffer;

/**
 * Writes an XML attribute value as escaped UTF-8 straight into an output buffer: the per-recipient part of a
 * delivery, so no String or byte[] is made per recipient.
 */
final class Utf8 {
    private Utf8() {
    }

    /** Bytes {@link #putEscapedAttribute} will write for {@code s}. */
    static int escapedAttributeLength(String s) {
        int n = 0;
        for (int i = 0, len = s.length(); i < len; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n += switch (c) {
                    case '&' -> 5;
                    case '<', '>' -> 4;
                    case '"', '\'' -> 6;
                    default -> 1;
                };
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3; // includes a lone surrogate, written as U+FFFD
            }
        }
        return n;
    }

    static void putEscapedAttribute(IoBuffer out, String s) {
        for (int i = 0, len = s.length(); i < len; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                switch (c) {
                    case '&' -> put(out, '&', 'a', 'm', 'p', ';');
                    case '<' -> put(out, '&', 'l', 't', ';');
                    case '>' -> put(out, '&', 'g', 't', ';');
                    case '"' -> put(out, '&', 'q', 'u', 'o', 't', ';');
                    case '\'' -> put(out, '&', 'a', 'p', 'o', 's', ';');
                    default -> out.put((byte) c);
                }
            } else if (c < 0x800) {
                out.put((byte) (0xC0 | (c >> 6)));
                out.put((byte) (0x80 | (c & 0x3F)));
            } else if (Character.isHighSurrogate(c) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                out.put((byte) (0xF0 | (cp >> 18)));
                out.put((byte) (0x80 | ((cp >> 12) & 0x3F)));
                out.put((byte) (0x80 | ((cp >> 6) & 0x3F)));
                out.put((byte) (0x80 | (cp & 0x3F)));
            } else {
                int cp = Character.isSurrogate(c) ? 0xFFFD : c;
                out.put((byte) (0xE0 | (cp >> 12)));
                out.put((byte) (0x80 | ((cp >> 6) & 0x3F)));
                out.put((byte) (0x80 | (cp & 0x3F)));
            }
        }
    }

    private static void put(IoBuffer out, char... ascii) {
        for (char a : ascii) {
            out.put((byte) a);
        }
    }
}
