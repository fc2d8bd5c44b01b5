package org.mucscale.engine.metrics;

/** Minimal JSON writing for the dashboard data: strings escaped so the output is also safe inside HTML. */
final class Json {

    private Json() {
    }

    static void string(StringBuilder sb, String s) {
        sb.append('"');
        if (s != null) {
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> sb.append("\\\"");
                    case '\\' -> sb.append("\\\\");
                    case '\n' -> sb.append("\\n");
                    case '\r' -> sb.append("\\r");
                    case '\t' -> sb.append("\\t");
                    // Never let markup characters through literally, even though JSON would allow them.
                    case '<', '>', '&', '\'', '\u2028', '\u2029' -> unicode(sb, c);
                    default -> {
                        if (c < 0x20) {
                            unicode(sb, c);
                        } else {
                            sb.append(c);
                        }
                    }
                }
            }
        }
        sb.append('"');
    }

    private static void unicode(StringBuilder sb, char c) {
        String hex = Integer.toHexString(c);
        sb.append("\\u");
        for (int i = hex.length(); i < 4; i++) {
            sb.append('0');
        }
        sb.append(hex);
    }

    /** A number rounded to 3 decimals; NaN and infinities become null. */
    static void number(StringBuilder sb, double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            sb.append("null");
            return;
        }
        double rounded = Math.round(v * 1000.0) / 1000.0;
        if (rounded == Math.rint(rounded) && Math.abs(rounded) < 1e15) {
            sb.append((long) rounded);
        } else {
            sb.append(rounded);
        }
    }
}
