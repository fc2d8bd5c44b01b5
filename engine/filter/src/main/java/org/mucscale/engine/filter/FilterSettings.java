package org.mucscale.engine.filter;

import org.mucscale.engine.config.Setting;

import java.util.List;

/** Every tunable of the content filter. Keys {@code mucscale.filter.*}; {@link FilterConfig#from} reads them. */
public final class FilterSettings {

    public static final Setting<Boolean> ENABLED = Setting.ofBoolean("mucscale.filter.enabled", true, true,
            "Whether group messages are checked against the word lists at all.");

    public static final Setting<Action> DEFAULT_ACTION = Setting.ofEnum("mucscale.filter.default-action", Action.class,
            Action.MASK, true, "What happens to a matching message in rooms without their own policy: MASK, REJECT, DROP or FLAG.");

    public static final Setting<String> LANGUAGES = Setting.ofString("mucscale.filter.languages", "en", true,
            "Comma-separated languages whose built-in and extra lists apply by default (built-in: "
                    + String.join(",", WordLists.BUILTIN_LANGUAGES) + ").",
            FilterSettings::checkLanguages);

    public static final Setting<Severity> MIN_SEVERITY = Setting.ofEnum("mucscale.filter.min-severity", Severity.class,
            Severity.LOW, true, "Entries below this severity are ignored in rooms without their own threshold.");

    public static final Setting<Boolean> BUILTIN_LISTS = Setting.ofBoolean("mucscale.filter.builtin-lists", true, true,
            "Whether the shipped lists (and the shipped allow-list) of the configured languages are used.");

    public static final Setting<String> EXTRA_LISTS = Setting.ofString("mucscale.filter.extra-lists", "", true,
            "Comma-separated paths of operator word lists, added to the built-in ones.");

    public static final Setting<String> EXTRA_ALLOW_LISTS = Setting.ofString("mucscale.filter.extra-allow-lists", "", true,
            "Comma-separated paths of operator allow-lists, whose entries beat matches they contain.");

    public static final Setting<Boolean> GUARD_COMMON_WORDS = Setting.ofBoolean("mucscale.filter.guard-common-words",
            true, true, "List entries (not marked force) that would match common words of a compiled language become whole-word matches; refused only if a common word of another compiled language even as a whole word.");

    public static final Setting<String> POLICY_FILE = Setting.ofString("mucscale.filter.policy-file", "", false,
            "Properties file holding per-room policies; empty keeps them in the host's own store or in memory.");

    public static final Setting<String> REJECT_MESSAGE = Setting.ofString("mucscale.filter.reject-message",
            "Your message was not sent because it contains words that are not allowed in this room.", true,
            "Error text sent to the sender when a message is rejected.",
            v -> v == null ? "non-empty text" : (v.isBlank() ? "non-empty text" : null));

    public static final Setting<String> MASK_CHAR = Setting.ofString("mucscale.filter.mask-char", "*", true,
            "The character that replaces each masked character.",
            v -> v == null ? "one character" : (v.length() == 1 && !Character.isWhitespace(v.charAt(0)) ? null : "one character"));

    public static final Setting<Boolean> NICKNAMES = Setting.ofBoolean("mucscale.filter.nicknames", true, true,
            "Whether nicknames are checked too: a matching one is refused (not-acceptable) at join and nick change,"
                    + " whatever the room's action except FLAG.");

    public static final Setting<Boolean> REVIEW_QUEUE = Setting.ofBoolean("mucscale.filter.review-queue", false, false,
            "Whether messages the filter flags (action FLAG: delivered unmasked) wait in the review queue"
                    + " (table mucscaleReview, with the matched terms) until a moderator retracts or dismisses them;"
                    + " needs the room log.");

    public static final Setting<Boolean> REFUSE_UNBALANCED_BIDI = Setting.ofBoolean(
            "mucscale.filter.refuse-unbalanced-bidi", true, true,
            "Whether a text that opens a bidi override, embedding or isolate (U+202A-U+202E, U+2066-U+2068) without"
                    + " closing it in the same line is refused (not-acceptable) whatever the room's action: it would"
                    + " reorder what the client shows after it. Text under closed controls is judged as shown either way.");

    public static final List<Setting<?>> ALL = List.of(ENABLED, DEFAULT_ACTION, LANGUAGES, MIN_SEVERITY, BUILTIN_LISTS,
            EXTRA_LISTS, EXTRA_ALLOW_LISTS, GUARD_COMMON_WORDS, POLICY_FILE, REJECT_MESSAGE, MASK_CHAR, NICKNAMES,
            REVIEW_QUEUE, REFUSE_UNBALANCED_BIDI);

    private FilterSettings() {
    }

    private static String checkLanguages(String value) {
        String rule = "comma-separated language codes like en,de";
        if (value == null) {
            return rule;
        }
        for (String l : value.split(",")) {
            String s = l.strip();
            if (s.isEmpty() && value.isBlank()) {
                continue;
            }
            if (!(s.equals("*") || (s.length() >= 2 && s.length() <= 3 && s.chars().allMatch(c -> c >= 'a' && c <= 'z')))) {
                return rule;
            }
        }
        return null;
    }
}
