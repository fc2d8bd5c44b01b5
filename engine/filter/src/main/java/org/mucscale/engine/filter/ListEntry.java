package org.mucscale.engine.filter;

import java.util.Objects;

/**
 * One word-list entry as written by an operator or shipped in the default lists.
 *
 * @param text     the entry as written (literal text, never a regex; punctuation in it is ignored when matching)
 * @param severity how bad it is
 * @param language ISO 639-1 code of the list's language ("en"), lower case
 * @param mode     where it may match
 * @param allow    true for allow-list entries, which beat matches they contain ("assassin" beats "ass*")
 * @param force    keep the entry even if it matches a common word of a compiled language
 * @param source   where it came from, for warnings and metrics ("builtin:en", a file path, "cli")
 * @param line     line number in the source, 0 when not from a file
 */
public record ListEntry(String text, Severity severity, String language, MatchMode mode, boolean allow, boolean force,
                        String source, int line) {

    public ListEntry {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(language, "language");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(source, "source");
    }

    /** A blocking entry, for code and tests. */
    public static ListEntry block(String text, Severity severity, String language, MatchMode mode) {
        return new ListEntry(text, severity, language, mode, false, false, "api", 0);
    }

    /** An allow-list entry, for code and tests. */
    public static ListEntry allow(String text, MatchMode mode) {
        return new ListEntry(text, Severity.LOW, "*", mode, true, false, "api", 0);
    }

    /** The entry as written in a list file: "fuck*", "*fucker", "ass". */
    public String display() {
        return switch (mode) {
            case WHOLE_WORD -> text;
            case PREFIX -> text + "*";
            case SUFFIX -> "*" + text;
            case SUBSTRING -> "*" + text + "*";
        };
    }

    /** "source:line" or just the source, for messages. */
    public String where() {
        return line > 0 ? source + ":" + line : source;
    }
}
