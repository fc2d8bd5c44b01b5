package org.mucscale.engine.runtime.admin;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Minimal JSON for the room-administration API: a strict parser (objects as ordered maps, arrays as lists, numbers
 * as Long or Double, true/false, null; depth and size bounded by the caller's body limit and {@link #MAX_DEPTH}) and
 * a writer whose strings never carry markup characters literally. Stateless.
 */
final class JsonText {
    static final int MAX_DEPTH = 32;

    private JsonText() {
    }

    /** Parses one JSON value; a malformed text is an IllegalArgumentException saying where and what. */
    static Object parse(String text) {
        Parser p = new Parser(text);
        p.space();
        Object v = p.value(0);
        p.space();
        if (p.i != text.length()) {
            throw p.error("unexpected text after the JSON value");
        }
        return v;
    }

    private static final class Parser {
        final String s;
        int i;

        Parser(String s) {
            this.s = s;
        }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException("malformed JSON at character " + i + ": " + what);
        }

        void space() {
            while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
        }

        Object value(int depth) {
            if (depth > MAX_DEPTH) {
                throw error("nested deeper than " + MAX_DEPTH);
            }
            if (i >= s.length()) {
                throw error("a value was expected");
            }
            char c = s.charAt(i);
            switch (c) {
                case '{' -> {
                    return object(depth);
                }
                case '[' -> {
                    return array(depth);
                }
                case '"' -> {
                    return string();
                }
                case 't' -> {
                    return literal("true", Boolean.TRUE);
                }
                case 'f' -> {
                    return literal("false", Boolean.FALSE);
                }
                case 'n' -> {
                    return literal("null", null);
                }
                default -> {
                    if (c == '-' || c >= '0' && c <= '9') {
                        return number();
                    }
                    throw error("unexpected character '" + c + "'");
                }
            }
        }

        Object literal(String word, Object v) {
            if (!s.startsWith(word, i)) {
                throw error("expected " + word);
            }
            i += word.length();
            return v;
        }

        Map<String, Object> object(int depth) {
            Map<String, Object> m = new LinkedHashMap<>();
            i++;
            space();
            if (i < s.length() && s.charAt(i) == '}') {
                i++;
                return m;
            }
            while (true) {
                space();
                if (i >= s.length() || s.charAt(i) != '"') {
                    throw error("a field name in quotes was expected");
                }
                String key = string();
                space();
                if (i >= s.length() || s.charAt(i) != ':') {
                    throw error("':' was expected after \"" + key + "\"");
                }
                i++;
                space();
                if (m.put(key, value(depth + 1)) != null) {
                    throw error("field \"" + key + "\" is given twice");
                }
                space();
                if (i < s.length() && s.charAt(i) == ',') {
                    i++;
                } else if (i < s.length() && s.charAt(i) == '}') {
                    i++;
                    return m;
                } else {
                    throw error("',' or '}' was expected");
                }
            }
        }

        List<Object> array(int depth) {
            List<Object> l = new ArrayList<>();
            i++;
            space();
            if (i < s.length() && s.charAt(i) == ']') {
                i++;
                return l;
            }
            while (true) {
                space();
                l.add(value(depth + 1));
                space();
                if (i < s.length() && s.charAt(i) == ',') {
                    i++;
                } else if (i < s.length() && s.charAt(i) == ']') {
                    i++;
                    return l;
                } else {
                    throw error("',' or ']' was expected");
                }
            }
        }

        String string() {
            StringBuilder b = new StringBuilder();
            i++;
            while (true) {
                if (i >= s.length()) {
                    throw error("unterminated string");
                }
                char c = s.charAt(i++);
                if (c == '"') {
                    return b.toString();
                }
                if (c < 0x20) {
                    throw error("control character in a string");
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                if (i >= s.length()) {
                    throw error("unterminated escape");
                }
                char e = s.charAt(i++);
                switch (e) {
                    case '"', '\\', '/' -> b.append(e);
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'u' -> {
                        if (i + 4 > s.length()) {
                            throw error("short \\u escape");
                        }
                        try {
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw error("bad \\u escape");
                        }
                        i += 4;
                    }
                    default -> throw error("unknown escape \\" + e);
                }
            }
        }

        Object number() {
            int start = i;
            if (s.charAt(i) == '-') {
                i++;
            }
            boolean fraction = false;
            while (i < s.length() && "0123456789.eE+-".indexOf(s.charAt(i)) >= 0) {
                fraction |= "0123456789".indexOf(s.charAt(i)) < 0;
                i++;
            }
            String n = s.substring(start, i);
            try {
                return fraction ? (Object) Double.parseDouble(n) : (Object) Long.parseLong(n);
            } catch (NumberFormatException e) {
                i = start;
                throw error("bad number '" + n + "'");
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ writing

    /** Writes maps, lists, strings, numbers, booleans and null (records and other types: their toString). */
    static String write(Object v) {
        StringBuilder b = new StringBuilder(256);
        write(b, v);
        return b.toString();
    }

    @SuppressWarnings("unchecked")
    private static void write(StringBuilder b, Object v) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof Map<?, ?> m) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                string(b, String.valueOf(e.getKey()));
                b.append(':');
                write(b, e.getValue());
            }
            b.append('}');
        } else if (v instanceof Iterable<?> l) {
            b.append('[');
            boolean first = true;
            for (Object o : l) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                write(b, o);
            }
            b.append(']');
        } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long) {
            b.append(v);
        } else if (v instanceof Number n) {
            b.append(n.doubleValue());
        } else {
            string(b, v.toString());
        }
    }

    private static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\'' || c == '\u2028' || c == '\u2029') {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }
}
