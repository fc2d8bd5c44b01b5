package org.mucscale.engine.filter;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads word-list files (UTF-8, one entry per line) and the lists shipped in this jar.
 *
 * <pre>
 * # comment
 * &#64;language en          applies to the lines below (default: the caller's language)
 * &#64;severity MEDIUM      applies to the lines below (default: MEDIUM)
 * &#64;match word          how plain entries below match: word (whole word) or prefix (word start)
 * ass                  plain: whole word (or word start under &#64;match prefix)
 * fuck*                prefix: fuck, fucking, fucker
 * *fucker              suffix: motherfucker
 * *cunt*               substring: anywhere, even inside words
 * shit;severity=HIGH;force     per-entry options: severity=, language=, force (keep even if a common word)
 * </pre>
 *
 * Entries are literal text, never regular expressions. Errors name the source and line.
 *
 * <p><b>The content-filter plugin's comma format.</b> A line holding commas ({@code fuck,shit,ass}, as Openfire's
 * stock content-filter plugin keeps its patterns) is split into one entry per item. A list whose first entry line is
 * such a line is taken as imported from that plugin: its plain entries match as word prefixes unless an
 * {@code @match} line above says otherwise, since that plugin matched anywhere and an operator pasting its list
 * expects "fuckface" and "shitheads" caught. The common-word guard ({@code mucscale.filter.guard-common-words}) still
 * keeps an entry whole-word where a prefix would hit common words (the Scunthorpe problem: "ass" and "assume").
 */
public final class WordLists {

    /** Languages with shipped default lists. */
    public static final List<String> BUILTIN_LANGUAGES = List.of("en", "es", "fr", "de", "it", "pt", "nl", "sv", "ru");

    private WordLists() {
    }

    /**
     * One parsed list file and how its plain entries match, for reports (the admin page, the CLI).
     *
     * @param commaFormat true when read as the content-filter plugin's comma format
     * @param plainMode   how entries written without '*' match: {@link MatchMode#WHOLE_WORD} or {@link MatchMode#PREFIX}
     * @param explicit    true when an {@code @match} line chose it, false when it is the format's default
     */
    public record OperatorList(String source, boolean commaFormat, MatchMode plainMode, boolean explicit,
                               List<ListEntry> entries) {

        public OperatorList {
            entries = List.copyOf(entries);
        }

        /** One line: "rules.txt: 12 entries, comma format, plain entries match as word prefixes (format default)". */
        public String describe() {
            return source + ": " + entries.size() + (entries.size() == 1 ? " entry, " : " entries, ")
                    + (commaFormat ? "content-filter comma format" : "one entry per line") + ", plain entries match "
                    + (plainMode == MatchMode.PREFIX ? "as word prefixes (common words kept whole-word)" : "whole words")
                    + (explicit ? " (@match " + (plainMode == MatchMode.PREFIX ? "prefix" : "word") + ")"
                    : " (the format's default; an @match line changes it)");
        }
    }

    /** Parses a list file. */
    public static List<ListEntry> read(Path file, String defaultLanguage, boolean allow) {
        return readList(file, defaultLanguage, allow).entries();
    }

    /** Parses a list file, with how its plain entries match. */
    public static OperatorList readList(Path file, String defaultLanguage, boolean allow) {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return parseList(r, file.toString(), defaultLanguage, allow);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read word list " + file + ": " + e.getMessage(), e);
        }
    }

    /** The shipped block list of a language ({@link #BUILTIN_LANGUAGES}). */
    public static List<ListEntry> builtin(String language) {
        if (!BUILTIN_LANGUAGES.contains(language)) {
            throw new IllegalArgumentException("no built-in word list for language '" + language + "'; built-in: "
                    + BUILTIN_LANGUAGES);
        }
        return resource("lists/" + language + ".txt", "builtin:" + language, language, false);
    }

    /** The shipped allow-list (all languages). */
    public static List<ListEntry> builtinAllow() {
        return resource("lists/allow.txt", "builtin:allow", "*", true);
    }

    private static List<ListEntry> resource(String name, String source, String language, boolean allow) {
        try (InputStream in = WordLists.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return parse(new InputStreamReader(in, StandardCharsets.UTF_8), source, language, allow);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses list text from a reader. */
    public static List<ListEntry> parse(Reader reader, String source, String defaultLanguage, boolean allow)
            throws IOException {
        return parseList(reader, source, defaultLanguage, allow).entries();
    }

    /** Parses list text from a reader, with how its plain entries match. */
    public static OperatorList parseList(Reader reader, String source, String defaultLanguage, boolean allow)
            throws IOException {
        BufferedReader r = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
        List<ListEntry> out = new ArrayList<>();
        String language = checkLanguage(defaultLanguage, source, 0);
        Severity severity = Severity.MEDIUM;
        MatchMode plainMode = null; // decided by an @match line, else by the first entry line's format
        boolean explicit = false;
        boolean commaFormat = false;
        boolean sawEntryLine = false;
        String line;
        int lineNo = 0;
        while ((line = r.readLine()) != null) {
            lineNo++;
            String s = line.strip();
            if (lineNo == 1 && !s.isEmpty() && s.charAt(0) == '\uFEFF') {
                s = s.substring(1).strip();
            }
            if (s.isEmpty() || s.startsWith("#")) {
                continue;
            }
            if (s.startsWith("@")) {
                String[] kv = s.substring(1).split("\\s+", 2);
                String value = kv.length > 1 ? kv[1].strip() : "";
                switch (kv[0].toLowerCase(Locale.ROOT)) {
                    case "language" -> language = checkLanguage(value, source, lineNo);
                    case "severity" -> severity = severity(value, source, lineNo);
                    case "match" -> {
                        plainMode = switch (value.toLowerCase(Locale.ROOT)) {
                            case "word" -> MatchMode.WHOLE_WORD;
                            case "prefix" -> MatchMode.PREFIX;
                            default -> throw new IllegalArgumentException(source + ":" + lineNo
                                    + ": @match must be 'word' or 'prefix', was '" + value + "'");
                        };
                        explicit = true;
                    }
                    default -> throw new IllegalArgumentException(source + ":" + lineNo + ": unknown directive '@" + kv[0]
                            + "' (known: @language, @severity, @match)");
                }
                continue;
            }
            boolean commaLine = s.indexOf(',') >= 0;
            if (!sawEntryLine) {
                commaFormat = commaLine; // the first entry line tells the format
            }
            sawEntryLine = true;
            if (plainMode == null) {
                plainMode = commaLine ? MatchMode.PREFIX : MatchMode.WHOLE_WORD;
            }
            if (commaLine) {
                for (String item : s.split(",")) {
                    String text = item.strip();
                    if (!text.isEmpty()) {
                        out.add(entry(text, text, severity, language, plainMode, allow, false, source, lineNo));
                    }
                }
                continue;
            }
            String[] parts = s.split(";");
            String text = parts[0].strip();
            Severity entrySeverity = severity;
            String entryLanguage = language;
            boolean force = false;
            for (int i = 1; i < parts.length; i++) {
                String opt = parts[i].strip();
                if (opt.isEmpty()) {
                    continue;
                }
                int eq = opt.indexOf('=');
                String key = (eq < 0 ? opt : opt.substring(0, eq)).strip().toLowerCase(Locale.ROOT);
                String value = eq < 0 ? "" : opt.substring(eq + 1).strip();
                switch (key) {
                    case "severity" -> entrySeverity = severity(value, source, lineNo);
                    case "language", "lang" -> entryLanguage = checkLanguage(value, source, lineNo);
                    case "force" -> force = true;
                    default -> throw new IllegalArgumentException(source + ":" + lineNo + ": unknown option '" + opt
                            + "' (known: severity=, language=, force)");
                }
            }
            out.add(entry(text, s, entrySeverity, entryLanguage, plainMode, allow, force, source, lineNo));
        }
        return new OperatorList(source, commaFormat, plainMode == null ? MatchMode.WHOLE_WORD : plainMode, explicit, out);
    }

    /** One entry from its text as written ("fuck*", "*fucker", "ass"); {@code plainMode} applies when it has no '*'. */
    private static ListEntry entry(String text, String line, Severity entrySeverity, String entryLanguage,
                                   MatchMode plainMode, boolean allow, boolean force, String source, int lineNo) {
        MatchMode mode = plainMode;
        boolean star0 = text.startsWith("*");
        boolean star1 = text.length() > 1 && text.endsWith("*");
        if (star0 && star1) {
            mode = MatchMode.SUBSTRING;
        } else if (star0) {
            mode = MatchMode.SUFFIX;
        } else if (star1) {
            mode = MatchMode.PREFIX;
        }
        String bare = text.substring(star0 ? 1 : 0, Math.max(star0 ? 1 : 0, text.length() - (star1 ? 1 : 0)));
        if (bare.isBlank()) {
            throw new IllegalArgumentException(source + ":" + lineNo + ": empty entry '" + line + "'");
        }
        return new ListEntry(bare, entrySeverity, entryLanguage, mode, allow, force, source, lineNo);
    }

    private static Severity severity(String value, String source, int line) {
        for (Severity s : Severity.values()) {
            if (s.name().equalsIgnoreCase(value)) {
                return s;
            }
        }
        throw new IllegalArgumentException(source + ":" + line + ": severity must be LOW, MEDIUM or HIGH, was '" + value + "'");
    }

    static String checkLanguage(String value, String source, int line) {
        String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
        if (v.equals("*") || v.matches("[a-z]{2,3}")) {
            return v;
        }
        throw new IllegalArgumentException(source + (line > 0 ? ":" + line : "")
                + ": language must be an ISO 639 code like 'en' (or '*'), was '" + value + "'");
    }
}
