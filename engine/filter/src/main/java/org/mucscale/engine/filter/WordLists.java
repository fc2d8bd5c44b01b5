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
 * ass                  whole word
 * fuck*                prefix: fuck, fucking, fucker
 * *fucker              suffix: motherfucker
 * *cunt*               substring: anywhere, even inside words
 * shit;severity=HIGH;force     per-entry options: severity=, language=, force (keep even if a common word)
 * </pre>
 *
 * Entries are literal text, never regular expressions. Errors name the source and line.
 */
public final class WordLists {

    /** Languages with shipped default lists. */
    public static final List<String> BUILTIN_LANGUAGES = List.of("en", "es", "fr", "de", "it", "pt", "nl", "sv", "ru");

    private WordLists() {
    }

    /** Parses a list file. */
    public static List<ListEntry> read(Path file, String defaultLanguage, boolean allow) {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return parse(r, file.toString(), defaultLanguage, allow);
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
        BufferedReader r = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
        List<ListEntry> out = new ArrayList<>();
        String language = checkLanguage(defaultLanguage, source, 0);
        Severity severity = Severity.MEDIUM;
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
                    default -> throw new IllegalArgumentException(source + ":" + lineNo + ": unknown directive '@" + kv[0]
                            + "' (known: @language, @severity)");
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
            MatchMode mode = MatchMode.WHOLE_WORD;
            boolean star0 = text.startsWith("*");
            boolean star1 = text.length() > 1 && text.endsWith("*");
            if (star0 && star1) {
                mode = MatchMode.SUBSTRING;
            } else if (star0) {
                mode = MatchMode.SUFFIX;
            } else if (star1) {
                mode = MatchMode.PREFIX;
            }
            text = text.substring(star0 ? 1 : 0, Math.max(star0 ? 1 : 0, text.length() - (star1 ? 1 : 0)));
            if (text.isBlank()) {
                throw new IllegalArgumentException(source + ":" + lineNo + ": empty entry '" + s + "'");
            }
            out.add(new ListEntry(text, entrySeverity, entryLanguage, mode, allow, force, source, lineNo));
        }
        return out;
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
