package org.mucscale.engine.metrics;

/** Reads single numbers out of the dashboard JSON in tests (the document's shape is pinned by these reads). */
final class JsonProbe {
    private JsonProbe() {
    }

    /** The number after the first {@code "key":} following {@code after} (or from the start when null). */
    static double number(String json, String after, String key) {
        int from = after == null ? 0 : json.indexOf(after);
        if (from < 0) {
            throw new AssertionError("no " + after + " in " + json);
        }
        int at = json.indexOf("\"" + key + "\":", from);
        if (at < 0) {
            throw new AssertionError("no " + key + " in " + json);
        }
        int start = at + key.length() + 3;
        int end = start;
        while (end < json.length() && "-+.0123456789eE".indexOf(json.charAt(end)) >= 0) {
            end++;
        }
        if (end == start) {
            return Double.NaN; // null
        }
        return Double.parseDouble(json.substring(start, end));
    }

    /** The last value of the series column {@code name} ("series":{"name":[...]}); NaN when null. */
    static double lastInColumn(String json, String name) {
        int at = json.indexOf("\"" + name + "\":[");
        if (at < 0) {
            throw new AssertionError("no column " + name + " in " + json);
        }
        String column = json.substring(at + name.length() + 4, json.indexOf(']', at));
        String last = column.substring(column.lastIndexOf(',') + 1);
        return last.isEmpty() || last.equals("null") ? Double.NaN : Double.parseDouble(last);
    }
}
