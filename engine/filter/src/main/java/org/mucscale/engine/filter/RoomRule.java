package org.mucscale.engine.filter;

import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * A per-room override of the default policy. Null (or empty languages) means "as the default".
 *
 * @param pattern       a room address ("lobby@conference.example.org") or a glob with {@code *} and {@code ?}
 *                      ("*@games.example.org", "team-*@conference.example.org"); case-insensitive
 * @param enabled       false turns the filter off in matching rooms
 * @param action        what to do on a match, or null for the default
 * @param languages     list languages that apply ("en", "de"; "*" for all), or empty for the default
 * @param minSeverity   ignore entries below this, or null for the default
 * @param rejectMessage error text sent to the sender on REJECT, or null for the default
 */
public record RoomRule(String pattern, boolean enabled, Action action, Set<String> languages, Severity minSeverity,
                       String rejectMessage) {

    public RoomRule {
        Objects.requireNonNull(pattern, "pattern");
        pattern = pattern.strip().toLowerCase(Locale.ROOT);
        if (pattern.isEmpty() || pattern.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("room pattern must be a room address or a glob without spaces, was '"
                    + pattern + "'");
        }
        languages = languages == null ? Set.of() : Set.copyOf(languages);
        for (String l : languages) {
            WordLists.checkLanguage(l, "room rule " + pattern, 0);
        }
    }

    /** A rule that only changes the action. */
    public static RoomRule action(String pattern, Action action) {
        return new RoomRule(pattern, true, action, Set.of(), null, null);
    }

    /** True when the pattern has wildcards. */
    public boolean isGlob() {
        return pattern.indexOf('*') >= 0 || pattern.indexOf('?') >= 0;
    }

    /** Case-insensitive glob match without allocation. */
    boolean matches(String room) {
        return glob(pattern, 0, room, 0);
    }

    private static boolean glob(String p, int pi, String s, int si) {
        int star = -1;
        int mark = 0;
        while (si < s.length()) {
            if (pi < p.length() && (p.charAt(pi) == '?'
                    || Character.toLowerCase(p.charAt(pi)) == Character.toLowerCase(s.charAt(si)))) {
                pi++;
                si++;
            } else if (pi < p.length() && p.charAt(pi) == '*') {
                star = pi++;
                mark = si;
            } else if (star >= 0) {
                pi = star + 1;
                si = ++mark;
            } else {
                return false;
            }
        }
        while (pi < p.length() && p.charAt(pi) == '*') {
            pi++;
        }
        return pi == p.length();
    }
}
