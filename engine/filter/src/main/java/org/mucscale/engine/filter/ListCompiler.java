package org.mucscale.engine.filter;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Compiles word lists into {@link CompiledLists}. Runs off the message path (a compile thread, or start-up); 10,000
 * entries take well under a second.
 *
 * <p>False-positive guards applied here: entries without a real letter ("69", "$$") are refused, because tokens
 * made only of digits never match; entries with an emoji or other pictographic symbol are refused (the scanner reads
 * such symbols as separators, so only the entry's letters would be matched); entries longer than
 * {@value #MAX_ENTRY_SYMBOLS} symbols are refused; and, unless
 * the entry is marked {@code force}, an entry that would match a common word of any compiled language (the shipped
 * {@code common/<lang>.txt} lexicons), after allow-list entries had their say, is kept as a whole-word match with a
 * warning naming the word ("ass*" matched "assume": now "ass" alone; "sex" in an English list blocks "sex" but not
 * "Sussex"), and refused only when it is, even as a whole word, a common word of another compiled language ("fan"
 * in the Swedish list is the English "fan"; see {@link #guardCommonWords}).
 */
public final class ListCompiler {

    /** Longest entry, in folded symbols; the scanner's position ring is sized from it. */
    public static final int MAX_ENTRY_SYMBOLS = 64;
    /** Most ints spent on the dense transition table (32 MB). */
    static final int DENSE_BUDGET = 8 << 20;
    static final int MAX_DENSE_WIDTH = 128;
    /** Entries up to this many letters get self-censored variants ("f*ck"); longer ones are rarely masked so. */
    static final int MAX_MASKED_VARIANT_LENGTH = 14;
    /** Variants multiply the automaton about tenfold; beyond this many entries they would cost seconds and memory. */
    static final int MAX_ENTRIES_WITH_MASKED_VARIANTS = 20_000;

    private static final Map<String, List<String>> COMMON_WORDS = new ConcurrentHashMap<>();

    private ListCompiler() {
    }

    /** Compiles with the common-word guard on. */
    public static CompiledLists compile(List<ListEntry> entries) {
        return compile(entries, true);
    }

    /**
     * Compiles entries (block and allow together).
     *
     * @param guardCommonWords refuse non-forced entries that match common words of the compiled languages
     */
    public static CompiledLists compile(List<ListEntry> entries, boolean guardCommonWords) {
        return compile(entries, guardCommonWords, List.of());
    }

    /**
     * As {@link #compile(List, boolean)}, with the common words of {@code alsoGuard} guarded too: a room's own terms
     * are compiled alone (language "*"), yet must not block the common words of the languages the filter runs with.
     */
    static CompiledLists compile(List<ListEntry> entries, boolean guardCommonWords, java.util.Collection<String> alsoGuard) {
        long t0 = System.nanoTime();
        List<String> refused = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        List<Kept> kept = prepare(entries, refused, warnings);
        CompiledLists lists = build(kept, new CompileReport(entries.size(), kept.size(), refused, warnings, 0));
        if (guardCommonWords) {
            List<String> guarded = new ArrayList<>(lists.languages);
            for (String l : new java.util.TreeSet<>(alsoGuard)) {
                if (!guarded.contains(l)) {
                    guarded.add(l);
                }
            }
            kept = guardCommonWords(lists, kept, refused, warnings, guarded);
        }
        Set<ListEntry> distinct = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Kept k : kept) {
            distinct.add(k.entry());
        }
        CompileReport report = new CompileReport(entries.size(), distinct.size(), refused, warnings, System.nanoTime() - t0);
        return build(kept, report);
    }

    /**
     * An entry after folding and merging.
     *
     * @param minChars fewest chars a match must span (see {@link CompiledLists#entryMinChars}), 0 for most entries
     */
    private record Kept(ListEntry entry, String folded, Severity severity, int minChars) {

        Kept with(ListEntry e) {
            return new Kept(e, folded, severity, minChars);
        }
    }

    private static List<Kept> prepare(List<ListEntry> entries, List<String> refused, List<String> warnings) {
        Map<String, Kept> merged = new LinkedHashMap<>();
        boolean variants = entries.size() <= MAX_ENTRIES_WITH_MASKED_VARIANTS;
        if (!variants) {
            warnings.add(entries.size() + " entries: self-censored variants (\"f*ck\") are generated only for lists of up to "
                    + MAX_ENTRIES_WITH_MASKED_VARIANTS + " entries");
        }
        for (ListEntry e : entries) {
            int pictograph = pictograph(e.text());
            if (pictograph >= 0) {
                // Emoji and other pictographic symbols in messages are word separators to the scanner, so such an
                // entry could never match as written, and folding would silently keep only its letters (an aubergine
                // emoji + "head" would block every "head"): refuse it instead.
                refused.add("'" + e.display() + "' (" + e.where() + ") contains an emoji or pictographic symbol (U+"
                        + Integer.toHexString(pictograph).toUpperCase(Locale.ROOT)
                        + "), which the filter does not match: entries must be words; ignored");
                continue;
            }
            String folded = Folding.foldEntry(e.text());
            if (folded.isEmpty()) {
                refused.add("'" + e.display() + "' (" + e.where() + ") has no letters after folding; ignored");
                continue;
            }
            if (!hasRealLetter(e.text())) {
                refused.add("'" + e.display() + "' (" + e.where() + ") has no letters, only digits or symbols; such tokens never match");
                continue;
            }
            if (folded.length() > MAX_ENTRY_SYMBOLS) {
                refused.add("'" + abbreviate(e.text()) + "' (" + e.where() + ") is longer than " + MAX_ENTRY_SYMBOLS
                        + " letters; ignored");
                continue;
            }
            for (int i = 0; i < e.text().length(); i++) {
                if ("\\^.?()[]{}".indexOf(e.text().charAt(i)) >= 0) {
                    warnings.add("'" + e.text() + "' (" + e.where() + ") contains punctuation, which is ignored: entries are "
                            + "literal text, not patterns; matching '" + folded + "'");
                    break;
                }
            }
            int written = folded.length();
            folded = collapseRuns(folded);
            int min = folded.length() < written ? written : 0;
            merge(merged, e, folded, min);
            if (variants && !e.allow() && folded.length() >= 4 && folded.length() <= MAX_MASKED_VARIANT_LENGTH
                    && folded.indexOf(Folding.SPACE_SYMBOL) < 0) {
                // Self-censored spellings: one or two inner letters replaced by '*' ("f*ck", "f**k", "sh*t").
                char[] chars = folded.toCharArray();
                for (int i = 1; i < chars.length - 1; i++) {
                    char c0 = chars[i];
                    chars[i] = Folding.MASK_SYMBOL;
                    merge(merged, e, new String(chars), min);
                    if (i < chars.length - 2) {
                        char c1 = chars[i + 1];
                        chars[i + 1] = Folding.MASK_SYMBOL;
                        merge(merged, e, new String(chars), min);
                        chars[i + 1] = c1;
                    }
                    chars[i] = c0;
                }
            }
            if (variants && !e.allow() && folded.length() <= MAX_MASKED_VARIANT_LENGTH) {
                // Common respellings: v for u ("fvck", "cvnt"), ph for a leading f ("phuck").
                if (folded.indexOf('u') >= 0) {
                    merge(merged, e, folded.replace('u', 'v'), min);
                }
                if (folded.charAt(0) == 'f' && folded.length() >= 3) {
                    merge(merged, e, "ph" + folded.substring(1), min);
                }
            }
            if (folded.indexOf(Folding.SPACE_SYMBOL) >= 0) {
                // "blow job" also matches "blowjob", "blow-job", "blow_job".
                merge(merged, e, folded.replace(String.valueOf(Folding.SPACE_SYMBOL), ""));
            }
        }
        return new ArrayList<>(merged.values());
    }

    /**
     * The folded entry with every run of three or more copies of a symbol written as two: the scanner reads a run as
     * one or two copies, so "xxx" could never match as written (the entry keeps its written length as the span a
     * match needs, {@link CompiledLists#entryMinChars}).
     */
    static String collapseRuns(String folded) {
        StringBuilder sb = null;
        for (int i = 0; i < folded.length(); i++) {
            char c = folded.charAt(i);
            boolean third = i >= 2 && folded.charAt(i - 1) == c && folded.charAt(i - 2) == c;
            if (third && sb == null) {
                sb = new StringBuilder(folded.substring(0, i));
            } else if (!third && sb != null) {
                sb.append(c);
            }
        }
        return sb == null ? folded : sb.toString();
    }

    private static void merge(Map<String, Kept> merged, ListEntry e, String folded) {
        merge(merged, e, folded, 0);
    }

    private static void merge(Map<String, Kept> merged, ListEntry e, String folded, int minChars) {
        {
            String key = folded + '\u0000' + e.mode() + '\u0000' + e.allow() + '\u0000' + e.language() + '\u0000' + minChars;
            Kept previous = merged.get(key);
            if (previous == null) {
                merged.put(key, new Kept(e, folded, e.severity(), minChars));
            } else if (e.severity().compareTo(previous.severity()) > 0 || (e.force() && !previous.entry().force())) {
                Severity s = e.severity().compareTo(previous.severity()) > 0 ? e.severity() : previous.severity();
                ListEntry keep = e.force() || previous.entry().force()
                        ? new ListEntry(previous.entry().text(), s, e.language(), e.mode(), e.allow(), true,
                        previous.entry().source(), previous.entry().line())
                        : previous.entry();
                merged.put(key, new Kept(keep, folded, s, previous.minChars()));
            }
        }
    }

    /**
     * The first code point of the text that is an emoji or other pictographic symbol (Unicode category So) and that
     * folding does not read as a letter (circled and other letter-like symbols such as U+24B6 fold to letters and are
     * fine), or -1.
     */
    static int pictograph(String text) {
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            if (Character.getType(cp) != Character.OTHER_SYMBOL) {
                continue;
            }
            if (cp >= 0x1F1E6 && cp <= 0x1F1FF) {
                return cp; // regional indicators read as letters in messages, but in an entry they are a flag ("🇺🇸", not "us")
            }
            int v = cp <= 0xFFFF ? Folding.bmp((char) cp) : Folding.supplementary(cp);
            int cls = Folding.cls(v);
            if (cls != Folding.CLS_LETTER && cls != Folding.CLS_LEET && cls != Folding.CLS_EXPAND) {
                return cp;
            }
        }
        return -1;
    }

    private static boolean hasRealLetter(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            int v = Folding.bmp(c);
            int cls = Folding.cls(v);
            if (cls == Folding.CLS_HIGH_SURROGATE && i + 1 < text.length()) {
                cls = Folding.cls(Folding.supplementary(Character.toCodePoint(c, text.charAt(i + 1))));
                i++;
            }
            if (cls == Folding.CLS_LETTER || cls == Folding.CLS_EXPAND) {
                return true;
            }
        }
        return false;
    }

    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }

    /** The first common word an entry matched, and its language. */
    private record Hit(String word, String language) {
    }

    /**
     * Protects common words by match mode rather than by refusal. An entry (not marked force) that matches a common
     * word of a compiled language is kept as a whole-word match ("ass*" matched "assume": now "ass" alone), with the
     * evasion folding still applied inside the word. An entry that is itself a common word of its own language
     * ("sex", "butt", "anal", "xxx" in an English list) is kept whole-word too, because the operator asked for that
     * word. Refused, because no match mode makes it safe: an entry that is, even as a whole word, a common word of
     * another compiled language ("fan", a Swedish swear word, is the English "fan").
     */
    private static List<Kept> guardCommonWords(CompiledLists lists, List<Kept> kept, List<String> refused,
                                               List<String> warnings, List<String> languages) {
        Map<ListEntry, Hit> hits = commonWordHits(lists, kept, languages);
        if (hits.isEmpty()) {
            return kept;
        }
        Map<ListEntry, ListEntry> whole = new java.util.IdentityHashMap<>();
        List<Kept> recheck = new ArrayList<>();
        for (Kept k : kept) {
            ListEntry e = k.entry();
            if (k.entry().allow()) {
                recheck.add(k); // allow-list entries still beat what they contain
            } else if (hits.containsKey(e)) {
                ListEntry w = whole.computeIfAbsent(e, x -> x.mode() == MatchMode.WHOLE_WORD ? x
                        : new ListEntry(x.text(), x.severity(), x.language(), MatchMode.WHOLE_WORD, false, x.force(),
                        x.source(), x.line()));
                recheck.add(k.with(w));
            }
        }
        Map<ListEntry, Hit> wholeHits = commonWordHits(build(recheck, EMPTY_REPORT), recheck, languages);
        Set<ListEntry> dropped = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Map.Entry<ListEntry, ListEntry> m : whole.entrySet()) {
            ListEntry e = m.getKey();
            ListEntry w = m.getValue();
            Hit hit = hits.get(e);
            Hit wholeHit = wholeHits.get(w);
            String who = "'" + e.display() + "' (" + e.language() + ", " + e.where() + ")";
            if (wholeHit == null) {
                warnings.add(who + " matches the common " + hit.language() + " word '" + hit.word()
                        + "': kept as a whole-word match ('" + w.display() + "' alone, evasion folding still applies); "
                        + "mark it ';force' to keep its match mode");
            } else if (e.language().equals(wholeHit.language()) || e.language().equals("*")) {
                warnings.add(who + " is the common " + wholeHit.language() + " word '" + wholeHit.word()
                        + "': kept as a whole-word match, so it blocks that word (and its evasions) but no longer words"
                        + " that contain it" + (e.mode() == MatchMode.WHOLE_WORD ? "" : " (was " + e.mode() + ")"));
            } else {
                dropped.add(e);
                refused.add(who + " matches the common " + wholeHit.language() + " word '" + wholeHit.word()
                        + "' even as a whole word, so no match mode keeps it from blocking ordinary "
                        + wholeHit.language() + " chat; add it to an allow-list, or mark it ';force'");
            }
        }
        List<Kept> out = new ArrayList<>(kept.size());
        Set<String> seen = new java.util.HashSet<>();
        for (Kept k : kept) {
            if (dropped.contains(k.entry())) {
                continue;
            }
            Kept r = k.with(whole.getOrDefault(k.entry(), k.entry()));
            // A downgraded "sex*" may now equal a "sex" entry: keep one, the first (merge order).
            if (seen.add(r.folded() + '\u0000' + r.entry().mode() + '\u0000' + r.entry().allow() + '\u0000'
                    + r.entry().language() + '\u0000' + r.minChars())) {
                out.add(r);
            }
        }
        return out;
    }

    private static final CompileReport EMPTY_REPORT = new CompileReport(0, 0, List.of(), List.of(), 0);

    /** Scans every common word of the compiled languages; returns, per block entry hit, the first word it matched. */
    private static Map<ListEntry, Hit> commonWordHits(CompiledLists lists, List<Kept> kept, List<String> languages) {
        Map<ListEntry, Hit> hits = new java.util.IdentityHashMap<>();
        ScanState state = new ScanState();
        for (String language : languages) {
            if (language.equals("*")) {
                continue;
            }
            for (String word : commonWords(language)) {
                state.prepare(lists);
                Scanner.scan(lists, word, 0, state);
                for (int m = 0; m < state.matchCount; m++) {
                    Kept k = kept.get(state.matchEntry[m]);
                    if (hits.containsKey(k.entry()) || k.entry().force() || state.beatenByAllow(m)) {
                        continue;
                    }
                    hits.put(k.entry(), new Hit(word, language));
                }
            }
        }
        return hits;
    }

    /** The shipped common-word lexicon of a language (empty when none is shipped). */
    static List<String> commonWords(String language) {
        return COMMON_WORDS.computeIfAbsent(language, ListCompiler::loadCommonWords);
    }

    private static List<String> loadCommonWords(String language) {
        try (InputStream in = ListCompiler.class.getResourceAsStream("common/" + language + ".txt")) {
            if (in == null) {
                return List.of();
            }
            List<String> words = new ArrayList<>();
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = r.readLine()) != null) {
                String w = line.strip();
                if (!w.isEmpty() && w.charAt(0) != '#') {
                    words.add(w);
                }
            }
            return List.copyOf(words);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static CompiledLists build(List<Kept> kept, CompileReport report) {
        int n = kept.size();
        // Symbols numbered by frequency, so the most frequent ones fall in the dense table.
        int[] freq = new int[65536];
        int totalSymbols = 0;
        for (Kept k : kept) {
            for (int i = 0; i < k.folded().length(); i++) {
                freq[k.folded().charAt(i)]++;
            }
            totalSymbols += k.folded().length();
        }
        Integer[] chars = new Integer[65536];
        int alphabet = 0;
        for (int c = 0; c < 65536; c++) {
            if (freq[c] > 0) {
                chars[alphabet++] = c;
            }
        }
        Integer[] used = Arrays.copyOf(chars, alphabet);
        Arrays.sort(used, (a, b) -> freq[b] - freq[a]);
        char[] symbolId = new char[65536];
        for (int i = 0; i < alphabet; i++) {
            symbolId[used[i]] = (char) (i + 1);
        }

        // Trie.
        int cap = totalSymbols + 1;
        int[] childHead = new int[cap];
        int[] sibling = new int[cap];
        int[] edgeSymbol = new int[cap];
        int[] ownHead = new int[cap];
        int[] parent = new int[cap];
        Arrays.fill(childHead, -1);
        Arrays.fill(ownHead, -1);
        int[] entryNext = new int[n];
        Transitions sparse = new Transitions(Math.max(16, totalSymbols));
        int states = 1;
        for (int e = 0; e < n; e++) {
            String f = kept.get(e).folded();
            int s = 0;
            for (int i = 0; i < f.length(); i++) {
                int sym = symbolId[f.charAt(i)];
                int t = sparse.get(s, sym);
                if (t < 0) {
                    t = states++;
                    sparse.put(s, sym, t);
                    edgeSymbol[t] = sym;
                    parent[t] = s;
                    sibling[t] = childHead[s];
                    childHead[s] = t;
                }
                s = t;
            }
            entryNext[e] = ownHead[s];
            ownHead[s] = e;
        }

        // Renumber states breadth-first: shallow states get the small numbers and the dense rows.
        int[] order = new int[states];
        int[] rank = new int[states];
        {
            int h = 0;
            int tl = 0;
            order[tl++] = 0;
            while (h < tl) {
                int s = order[h++];
                for (int t = childHead[s]; t >= 0; t = sibling[t]) {
                    order[tl++] = t;
                }
            }
            for (int i = 0; i < states; i++) {
                rank[order[i]] = i;
            }
            Transitions renumbered = new Transitions(Math.max(16, states));
            int[] childHead2 = new int[states];
            int[] sibling2 = new int[states];
            int[] edgeSymbol2 = new int[states];
            int[] ownHead2 = new int[states];
            for (int i = 0; i < states; i++) {
                int old = order[i];
                childHead2[i] = childHead[old] < 0 ? -1 : rank[childHead[old]];
                sibling2[i] = sibling[old] < 0 ? -1 : rank[sibling[old]];
                edgeSymbol2[i] = edgeSymbol[old];
                ownHead2[i] = ownHead[old];
                if (i > 0) {
                    renumbered.put(rank[parent[old]], edgeSymbol[old], i);
                }
            }
            childHead = childHead2;
            sibling = sibling2;
            edgeSymbol = edgeSymbol2;
            ownHead = ownHead2;
            sparse = renumbered;
        }
        // A power of two, so a row starts at state << shift: a shift instead of a multiply on the scan's critical path.
        int width = Math.min(Integer.highestOneBit(Math.max(1, alphabet)) * 2, MAX_DENSE_WIDTH);
        int denseStates = (int) Math.min(states, Math.max(1L, DENSE_BUDGET / width));
        int[] dense = new int[denseStates * width];
        int[] fail = new int[states];
        int[] outStart = new int[states];
        int[] outLength = new int[states];
        IntList outs = new IntList(n * 2);
        CompiledLists partial = new CompiledLists(null, null, null, null, null, null, null, null, null, List.of(),
                symbolId, width, denseStates, dense, sparse, fail, null, null, null, states, 0, report);
        int[] queue = new int[states];
        int head = 0;
        int tail = 0;
        queue[tail++] = 0;
        while (head < tail) {
            int s = queue[head++];
            // Dense row: goto edge if any, else the failure state's row (already computed: it is shallower).
            if (s < denseStates) {
                int row = s * width;
                if (s != 0) {
                    System.arraycopy(dense, fail[s] * width, dense, row, width); // fail[s] is shallower: dense too
                }
                for (int t = childHead[s]; t >= 0; t = sibling[t]) {
                    if (edgeSymbol[t] < width) {
                        dense[row + edgeSymbol[t]] = t;
                    }
                }
            }
            // Outputs: own entries, then those of the failure state.
            outStart[s] = outs.size();
            for (int e = ownHead[s]; e >= 0; e = entryNext[e]) {
                outs.add(e);
            }
            if (s != 0) {
                int f = fail[s];
                for (int k = 0; k < outLength[f]; k++) {
                    outs.add(outs.get(outStart[f] + k));
                }
            }
            outLength[s] = outs.size() - outStart[s];
            for (int t = childHead[s]; t >= 0; t = sibling[t]) {
                fail[t] = s == 0 ? 0 : partial.next(fail[s], edgeSymbol[t]);
                queue[tail++] = t;
            }
        }

        // Flag dense targets the scanner's letter loop must not simply step on from (see CompiledLists.dense).
        for (int k = 0; k < dense.length; k++) {
            int t = dense[k];
            if (t >= denseStates || outLength[t] != 0) {
                dense[k] = t | CompiledLists.FLAGGED;
            }
        }

        List<String> languages = new ArrayList<>();
        Map<String, Integer> languageIndex = new HashMap<>();
        String[] text = new String[n];
        String[] folded = new String[n];
        MatchMode[] mode = new MatchMode[n];
        boolean[] allow = new boolean[n];
        Severity[] severity = new Severity[n];
        int[] language = new int[n];
        int[] symbols = new int[n];
        int[] minChars = new int[n];
        String[] source = new String[n];
        int maxSymbols = 1;
        for (int e = 0; e < n; e++) {
            Kept k = kept.get(e);
            text[e] = k.entry().text();
            folded[e] = k.folded();
            mode[e] = k.entry().mode();
            allow[e] = k.entry().allow();
            severity[e] = k.severity();
            language[e] = languageIndex.computeIfAbsent(k.entry().language(), l -> {
                languages.add(l);
                return languages.size() - 1;
            });
            symbols[e] = k.folded().length();
            minChars[e] = k.minChars();
            source[e] = k.entry().source();
            maxSymbols = Math.max(maxSymbols, symbols[e]);
        }
        if (languages.size() > 63) {
            throw new IllegalArgumentException("at most 63 languages can be compiled together, got " + languages);
        }
        int ringMask = Integer.highestOneBit(maxSymbols) * 2 - 1;
        return new CompiledLists(text, folded, mode, allow, severity, language, symbols, minChars, source, List.copyOf(languages),
                symbolId, width, denseStates, dense, sparse, fail, outStart, outLength, outs.toArray(), states, ringMask, report);
    }

    /** A growable int array, for compile time only. */
    private static final class IntList {
        private int[] a;
        private int size;

        IntList(int capacity) {
            a = new int[Math.max(16, capacity)];
        }

        void add(int v) {
            if (size == a.length) {
                a = Arrays.copyOf(a, size * 2);
            }
            a[size++] = v;
        }

        int get(int i) {
            return a[i];
        }

        int size() {
            return size;
        }

        int[] toArray() {
            return Arrays.copyOf(a, size);
        }
    }
}
