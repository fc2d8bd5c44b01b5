package org.mucscale.loadgen;

import java.nio.charset.StandardCharsets;

/** Allocation-free searches over the byte ranges {@link XmlScanner} hands out. */
final class Bytes {
    private Bytes() {
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Index of needle in b[from, to), or -1. */
    static int indexOf(byte[] b, int from, int to, byte[] needle) {
        int n = needle.length;
        if (n == 0) {
            return from;
        }
        byte first = needle[0];
        int last = to - n;
        outer:
        for (int i = from; i <= last; i++) {
            if (b[i] != first) {
                continue;
            }
            for (int j = 1; j < n; j++) {
                if (b[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    static boolean contains(byte[] b, int from, int to, byte[] needle) {
        return indexOf(b, from, to, needle) >= 0;
    }

    /** True when b[from, to) equals the ASCII text. */
    static boolean equalsAscii(byte[] b, int from, int to, String text) {
        int n = text.length();
        if (to - from != n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (b[from + i] != (byte) text.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The value of attribute {@code name} inside the start tag b[from, tagEnd), either quote style, as a
     * {@code [start, end)} pair packed into a long (start in the high half), or -1 when absent. No allocation.
     */
    static long attribute(byte[] b, int from, int tagEnd, String name) {
        int n = name.length();
        int p = from + 1;
        while (p < tagEnd && b[p] != ' ' && b[p] != '\t' && b[p] != '\n' && b[p] != '\r' && b[p] != '>' && b[p] != '/') {
            p++;
        }
        while (p < tagEnd) {
            byte c = b[p];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                p++;
                continue;
            }
            if (c == '>' || c == '/') {
                return -1;
            }
            int nameStart = p;
            while (p < tagEnd && b[p] != '=' && b[p] != ' ') {
                p++;
            }
            int nameEnd = p;
            while (p < tagEnd && b[p] != '"' && b[p] != '\'') {
                p++;
            }
            if (p >= tagEnd) {
                return -1;
            }
            byte quote = b[p];
            int valueStart = ++p;
            while (p < tagEnd && b[p] != quote) {
                p++;
            }
            int valueEnd = p;
            p++;
            if (nameEnd - nameStart == n && equalsAscii(b, nameStart, nameEnd, name)) {
                return ((long) valueStart << 32) | valueEnd;
            }
        }
        return -1;
    }

    static String attributeString(byte[] b, int from, int tagEnd, String name) {
        long r = attribute(b, from, tagEnd, name);
        if (r < 0) {
            return null;
        }
        int s = (int) (r >>> 32);
        int e = (int) r;
        return new String(b, s, e - s, StandardCharsets.UTF_8);
    }

    /**
     * The local name of the first child element of the first {@code <marker} element found in b[from, to)
     * (e.g. the condition inside {@code <error>} or SASL {@code <failure>}); "unknown" when there is none.
     */
    static String firstChildNameAfter(byte[] b, int from, int to, byte[] marker) {
        int at = marker == null ? from : indexOf(b, from, to, marker);
        if (at < 0) {
            return "unknown";
        }
        int p = at + 1;
        while (p < to && b[p] != '>') {
            p++;
        }
        if (p > at && p < to && b[p - 1] == '/') {
            return "empty";
        }
        while (++p < to) {
            if (b[p] == '<' && p + 1 < to && b[p + 1] != '/' && b[p + 1] != '!' && b[p + 1] != '?') {
                int s = p + 1;
                int e = s;
                while (e < to && b[e] != ' ' && b[e] != '>' && b[e] != '/') {
                    e++;
                }
                String name = new String(b, s, e - s, StandardCharsets.UTF_8);
                int colon = name.indexOf(':');
                return colon >= 0 ? name.substring(colon + 1) : name;
            }
        }
        return "unknown";
    }

    /** Reads a non-negative decimal number starting at p; returns value, and stores the end in endOut[0]. */
    static long parseDecimal(byte[] b, int p, int to, int[] endOut) {
        long v = 0;
        int start = p;
        while (p < to) {
            int d = b[p] - '0';
            if (d < 0 || d > 9) {
                break;
            }
            v = v * 10 + d;
            p++;
        }
        endOut[0] = p == start ? -1 : p;
        return v;
    }

    static String text(byte[] b, int from, int to) {
        return new String(b, from, to - from, StandardCharsets.UTF_8);
    }

    /** Text content between the first {@code <tag ...>} and its {@code </tag>} in b[from, to), or null. */
    static String elementText(byte[] b, int from, int to, String tag) {
        byte[] open = ascii("<" + tag);
        int at = indexOf(b, from, to, open);
        while (at >= 0) {
            int after = at + open.length;
            if (after < to && (b[after] == '>' || b[after] == ' ')) {
                break;
            }
            at = indexOf(b, after, to, open);
        }
        if (at < 0) {
            return null;
        }
        int p = at;
        while (p < to && b[p] != '>') {
            p++;
        }
        if (p >= to || b[p - 1] == '/') {
            return "";
        }
        int close = indexOf(b, p + 1, to, ascii("</" + tag + ">"));
        return close < 0 ? null : text(b, p + 1, close);
    }

    /** Text content of a stanza's root element whose start tag ends at startTagEnd; "" when self-closing. */
    static String rootText(byte[] b, int startTagEnd, int end) {
        int close = end - 1;
        while (close >= startTagEnd && b[close] != '<') {
            close--;
        }
        return close < startTagEnd ? "" : text(b, startTagEnd, close);
    }
}
