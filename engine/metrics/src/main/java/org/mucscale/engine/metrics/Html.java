package org.mucscale.engine.metrics;

/** Escaping for the admin pages' HTML (the dashboard, the review queue, the log import). */
public final class Html {
    private Html() {
    }

    /** {@code s} safe as HTML text and inside a quoted attribute value. */
    public static String escape(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }
}
