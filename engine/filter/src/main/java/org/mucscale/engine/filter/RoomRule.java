package org.mucscale.engine.filter;

import java.util.ArrayList;
import java.util.List;
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
 * @param terms         extra terms that apply in matching rooms on top of the global lists, written as list entries
 *                      ("cheater", "noob*", "*hole"); compiled into a small automaton of the rule's own, scanned only
 *                      for rooms this rule resolves; whatever the room's languages and minimum severity
 */
public record RoomRule(String pattern, boolean enabled, Action action, Set<String> languages, Severity minSeverity,
                       String rejectMessage, List<String> terms) {

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
        List<String> distinct = new ArrayList<>();
        for (String t : terms == null ? List.<String>of() : terms) {
            String term = checkTerm(t);
            if (!distinct.contains(term)) {
                distinct.add(term);
            }
        }
        terms = List.copyOf(distinct);
    }

    /** A rule without extra terms. */
    public RoomRule(String pattern, boolean enabled, Action action, Set<String> languages, Severity minSeverity,
                    String rejectMessage) {
        this(pattern, enabled, action, languages, minSeverity, rejectMessage, List.of());
    }

    /** This rule with more terms (those it has already are not repeated). */
    public RoomRule withTerms(List<String> added) {
        List<String> more = new ArrayList<>(terms);
        more.addAll(added);
        return new RoomRule(pattern, enabled, action, languages, minSeverity, rejectMessage, more);
    }

    /**
     * The syntax check of one term (one list entry, without options); the list compiler checks the rest (letters,
     * length, emoji). Returns the term stripped.
     */
    static String checkTerm(String term) {
        if (term == null || term.isBlank()) {
            throw new IllegalArgumentException("a room term must not be empty");
        }
        String t = term.strip();
        if (t.indexOf('\n') >= 0 || t.indexOf('\r') >= 0 || t.indexOf(';') >= 0 || t.startsWith("#")
                || t.startsWith("@")) {
            throw new IllegalArgumentException("room term '" + t + "' must be one list entry: one line, no ';' options,"
                    + " not starting with '#' or '@'");
        }
        if (t.replace("*", "").isBlank()) {
            throw new IllegalArgumentException("room term '" + t + "' has nothing but wildcards");
        }
        return t;
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
