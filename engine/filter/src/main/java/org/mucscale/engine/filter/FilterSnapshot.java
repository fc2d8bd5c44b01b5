package org.mucscale.engine.filter;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything the content filter's message path reads: the settings, the compiled global lists, the room rules
 * resolved into policies (exact addresses in a map, globs in order, then the default) and each rule's own terms
 * compiled into a small automaton. Replaced as a whole, never changed: a message sees one snapshot.
 *
 * <p>Threads: immutable; compiled by {@link ContentFilter}'s compile thread (the first by the starting thread) and
 * published through its volatile field; message threads read it.
 */
final class FilterSnapshot {
    final FilterConfig config;
    final CompiledLists lists;
    final List<RoomRule> rules;
    final ResolvedPolicy defaults;
    final Map<String, ResolvedPolicy> exact;
    final RoomRule[] globs;
    final ResolvedPolicy[] globResolved;
    /**
     * Per glob, the literal text after its last '*' (empty when none or when it holds a '?'): a room that does not
     * end so is rejected with one region compare instead of the backtracking match (messages of rooms without
     * an exact rule pass the globs whenever some glob rule has terms).
     */
    final String[] globSuffix;
    /** True when some rule has terms: only then does a message resolve its room's policy before deciding. */
    final boolean hasRoomTerms;
    /** True when some glob rule has terms: only then must a room without an exact rule try the globs. */
    final boolean globHasTerms;
    /** Compiled room terms by term list, reused by the next snapshot with the same settings. */
    final Map<List<String>, CompiledLists> termLists;
    /** The lists' report plus what the room terms' compiles refused or warned about, each naming its rule. */
    final CompileReport report;
    /** Per operator list file, how it was read ({@link WordLists.OperatorList#describe()}). */
    final List<String> listDescriptions;

    private FilterSnapshot(FilterConfig config, CompiledLists lists, List<RoomRule> rules,
                     Map<List<String>, CompiledLists> previousTermLists, List<String> listDescriptions) {
        this.config = config;
        this.listDescriptions = List.copyOf(listDescriptions);
        this.lists = lists;
        this.rules = List.copyOf(rules);
        this.defaults = resolve(config.defaultRule(), null, lists, null);
        Map<String, ResolvedPolicy> exactMap = new HashMap<>();
        List<RoomRule> globList = new ArrayList<>();
        List<ResolvedPolicy> globRes = new ArrayList<>();
        Map<List<String>, CompiledLists> compiledTerms = new HashMap<>();
        for (RoomRule r : this.rules) {
            CompiledLists terms = null;
            if (!r.terms().isEmpty()) {
                terms = compiledTerms.computeIfAbsent(r.terms(), t -> {
                    CompiledLists before = previousTermLists.get(t);
                    return before != null ? before : compileTerms(t, r.pattern(), config);
                });
            }
            ResolvedPolicy res = resolve(r, defaults, lists, terms);
            if (r.isGlob()) {
                globList.add(r);
                globRes.add(res);
            } else {
                exactMap.putIfAbsent(r.pattern(), res);
            }
        }
        this.exact = Map.copyOf(exactMap);
        this.globs = globList.toArray(new RoomRule[0]);
        this.globResolved = globRes.toArray(new ResolvedPolicy[0]);
        this.globSuffix = new String[globs.length];
        for (int i = 0; i < globs.length; i++) {
            String p = globs[i].pattern();
            String tail = p.substring(p.lastIndexOf('*') + 1);
            globSuffix[i] = tail.indexOf('?') >= 0 ? "" : tail;
        }
        this.termLists = Map.copyOf(compiledTerms);
        CompileReport base = lists.report();
        List<String> refused = new ArrayList<>(base.refused());
        List<String> warnings = new ArrayList<>(base.warnings());
        int in = base.entriesIn();
        int kept = base.entriesKept();
        for (RoomRule r : this.rules) {
            CompiledLists t = compiledTerms.get(r.terms());
            if (t != null) {
                CompileReport tr = t.report();
                in += tr.entriesIn();
                kept += tr.entriesKept();
                tr.refused().forEach(x -> refused.add("room " + r.pattern() + ": " + x));
                tr.warnings().forEach(x -> warnings.add("room " + r.pattern() + ": " + x));
            }
        }
        this.report = new CompileReport(in, kept, refused, warnings, base.compileNs(), this.listDescriptions);
        this.hasRoomTerms = !compiledTerms.isEmpty();
        boolean globTerms = false;
        for (ResolvedPolicy g : globResolved) {
            globTerms |= g.terms != null;
        }
        this.globHasTerms = globTerms;
    }

    static FilterSnapshot compile(FilterConfig config, List<RoomRule> rules) {
        List<ListEntry> entries = new ArrayList<>();
        if (config.builtinLists()) {
            for (String language : config.languages()) {
                if (WordLists.BUILTIN_LANGUAGES.contains(language)) {
                    entries.addAll(WordLists.builtin(language));
                }
            }
            for (RoomRule r : rules) {
                for (String language : r.languages()) {
                    if (!config.languages().contains(language) && WordLists.BUILTIN_LANGUAGES.contains(language)) {
                        entries.addAll(WordLists.builtin(language));
                    }
                }
            }
            entries.addAll(WordLists.builtinAllow());
        }
        List<String> descriptions = new ArrayList<>();
        for (var path : config.extraLists()) {
            WordLists.OperatorList list = WordLists.readList(path, "*", false);
            entries.addAll(list.entries());
            descriptions.add(list.describe());
        }
        for (var path : config.extraAllowLists()) {
            WordLists.OperatorList list = WordLists.readList(path, "*", true);
            entries.addAll(list.entries());
            descriptions.add("allow-list " + list.describe());
        }
        entries.addAll(config.extraEntries());
        // Operator lists are of language "*": the configured languages' common words guard them too.
        return new FilterSnapshot(config, ListCompiler.compile(entries, config.guardCommonWords(), config.languages()),
                rules, Map.of(), descriptions);
    }

    FilterSnapshot withRules(List<RoomRule> newRules) {
        return new FilterSnapshot(config, lists, newRules, termLists, listDescriptions);
    }

    /** A rule's own terms as one small automaton: list entries of language "*", guarded like the global lists. */
    static CompiledLists compileTerms(List<String> terms, String pattern, FilterConfig config) {
        List<ListEntry> entries = new ArrayList<>(terms.size());
        for (String t : terms) {
            try {
                for (ListEntry e : WordLists.parse(new java.io.StringReader(t), "room " + pattern, "*", false)) {
                    entries.add(new ListEntry(e.text(), Severity.HIGH, "*", e.mode(), false, false, ContentFilter.ROOM_TERMS, 0));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e); // a StringReader does not throw
            }
        }
        return ListCompiler.compile(entries, config.guardCommonWords(), config.languages());
    }

    /** Exact address first (no allocation for lower-case addresses), then globs in order, then the default. */
    ResolvedPolicy resolve(String roomJid) {
        if (roomJid == null) {
            return defaults;
        }
        ResolvedPolicy r = exact.get(roomJid);
        if (r != null) {
            return r;
        }
        if (!exact.isEmpty() && hasUpperCase(roomJid)) {
            r = exact.get(roomJid.toLowerCase(java.util.Locale.ROOT));
            if (r != null) {
                return r;
            }
        }
        for (int i = 0; i < globs.length; i++) {
            String tail = globSuffix[i];
            if (roomJid.regionMatches(true, roomJid.length() - tail.length(), tail, 0, tail.length())
                    && globs[i].matches(roomJid)) {
                return globResolved[i];
            }
        }
        return defaults;
    }

    /** The room's own terms when its policy has some and is enabled, else null; as {@link #resolve}, cheaper. */
    CompiledLists termsOf(String roomJid) {
        ResolvedPolicy r;
        if (globHasTerms) {
            r = resolve(roomJid);
        } else {
            r = roomJid == null ? null : exact.get(roomJid);
            if (r == null && hasUpperCase(roomJid)) {
                r = exact.get(roomJid.toLowerCase(java.util.Locale.ROOT));
            }
        }
        return r != null && r.enabled ? r.terms : null;
    }

    private static boolean hasUpperCase(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (Character.isUpperCase(s.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    private static ResolvedPolicy resolve(RoomRule rule, ResolvedPolicy base, CompiledLists lists, CompiledLists terms) {
        Set<String> languages = rule.languages();
        long mask;
        if (languages.isEmpty() && base != null) {
            mask = base.languageMask;
        } else {
            mask = 0L;
            for (int i = 0; i < lists.languages.size(); i++) {
                String l = lists.languages.get(i);
                if (l.equals("*") || languages.contains("*") || languages.contains(l)) {
                    mask |= 1L << i;
                }
            }
        }
        return new ResolvedPolicy(rule.enabled(),
                rule.action() != null ? rule.action() : base.action,
                mask,
                rule.minSeverity() != null ? rule.minSeverity() : base.minSeverity,
                rule.rejectMessage() != null ? rule.rejectMessage() : base.rejectMessage,
                terms);
    }
}
