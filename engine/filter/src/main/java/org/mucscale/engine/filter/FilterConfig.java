package org.mucscale.engine.filter;

import org.mucscale.engine.config.Settings;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The filter's typed configuration, built from a {@link Settings} snapshot ({@link #from}) or in code (tests, CLI,
 * benchmarks) with {@link #builder()}.
 *
 * @param extraEntries entries given in code, added to the lists read from files
 * @param nicknames whether hosts also check nicknames (the filter itself checks whatever text it is given)
 * @param refuseUnbalancedBidi whether a text whose bidi controls are not closed is refused (REJECT)
 */
public record FilterConfig(boolean enabled, Action defaultAction, Set<String> languages, Severity minSeverity,
                           boolean builtinLists, List<Path> extraLists, List<Path> extraAllowLists,
                           boolean guardCommonWords, Path policyFile, String rejectMessage, char maskChar,
                           List<ListEntry> extraEntries, boolean nicknames, boolean refuseUnbalancedBidi) {

    public FilterConfig {
        Objects.requireNonNull(defaultAction, "defaultAction");
        Objects.requireNonNull(minSeverity, "minSeverity");
        Objects.requireNonNull(rejectMessage, "rejectMessage");
        languages = Set.copyOf(languages);
        extraLists = List.copyOf(extraLists);
        extraAllowLists = List.copyOf(extraAllowLists);
        extraEntries = List.copyOf(extraEntries);
    }

    public static FilterConfig from(Settings settings) {
        return new FilterConfig(settings.get(FilterSettings.ENABLED), settings.get(FilterSettings.DEFAULT_ACTION),
                split(settings.get(FilterSettings.LANGUAGES)), settings.get(FilterSettings.MIN_SEVERITY),
                settings.get(FilterSettings.BUILTIN_LISTS), paths(settings.get(FilterSettings.EXTRA_LISTS)),
                paths(settings.get(FilterSettings.EXTRA_ALLOW_LISTS)), settings.get(FilterSettings.GUARD_COMMON_WORDS),
                settings.get(FilterSettings.POLICY_FILE).isBlank() ? null : Path.of(settings.get(FilterSettings.POLICY_FILE).strip()),
                settings.get(FilterSettings.REJECT_MESSAGE), settings.get(FilterSettings.MASK_CHAR).charAt(0), List.of(),
                settings.get(FilterSettings.NICKNAMES), settings.get(FilterSettings.REFUSE_UNBALANCED_BIDI));
    }

    public static Builder builder() {
        return new Builder();
    }

    private static Set<String> split(String csv) {
        Set<String> out = new LinkedHashSet<>();
        for (String s : csv.split(",")) {
            if (!s.isBlank()) {
                out.add(s.strip());
            }
        }
        return out;
    }

    private static List<Path> paths(String csv) {
        List<Path> out = new ArrayList<>();
        for (String s : split(csv)) {
            out.add(Path.of(s));
        }
        return out;
    }

    /** The default policy these settings describe. */
    RoomRule defaultRule() {
        return new RoomRule("*", enabled, defaultAction, languages, minSeverity, rejectMessage);
    }

    /** Builds a config in code; starts from the settings' defaults. */
    public static final class Builder {
        private boolean enabled = FilterSettings.ENABLED.defaultValue();
        private Action defaultAction = FilterSettings.DEFAULT_ACTION.defaultValue();
        private Set<String> languages = Set.of("en");
        private Severity minSeverity = FilterSettings.MIN_SEVERITY.defaultValue();
        private boolean builtinLists = true;
        private final List<Path> extraLists = new ArrayList<>();
        private final List<Path> extraAllowLists = new ArrayList<>();
        private boolean guardCommonWords = true;
        private Path policyFile;
        private String rejectMessage = FilterSettings.REJECT_MESSAGE.defaultValue();
        private char maskChar = '*';
        private final List<ListEntry> extraEntries = new ArrayList<>();
        private boolean nicknames = FilterSettings.NICKNAMES.defaultValue();
        private boolean refuseUnbalancedBidi = FilterSettings.REFUSE_UNBALANCED_BIDI.defaultValue();

        public Builder enabled(boolean v) { enabled = v; return this; }
        public Builder defaultAction(Action v) { defaultAction = v; return this; }
        public Builder languages(String... v) { languages = Set.of(v); return this; }
        public Builder minSeverity(Severity v) { minSeverity = v; return this; }
        public Builder builtinLists(boolean v) { builtinLists = v; return this; }
        public Builder extraList(Path v) { extraLists.add(v); return this; }
        public Builder extraAllowList(Path v) { extraAllowLists.add(v); return this; }
        public Builder guardCommonWords(boolean v) { guardCommonWords = v; return this; }
        public Builder policyFile(Path v) { policyFile = v; return this; }
        public Builder rejectMessage(String v) { rejectMessage = v; return this; }
        public Builder maskChar(char v) { maskChar = v; return this; }
        public Builder entries(List<ListEntry> v) { extraEntries.addAll(v); return this; }
        public Builder nicknames(boolean v) { nicknames = v; return this; }
        public Builder refuseUnbalancedBidi(boolean v) { refuseUnbalancedBidi = v; return this; }

        public FilterConfig build() {
            return new FilterConfig(enabled, defaultAction, languages, minSeverity, builtinLists, extraLists,
                    extraAllowLists, guardCommonWords, policyFile, rejectMessage, maskChar, extraEntries, nicknames,
                    refuseUnbalancedBidi);
        }
    }
}
