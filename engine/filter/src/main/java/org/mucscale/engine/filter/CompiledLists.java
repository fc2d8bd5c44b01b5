package org.mucscale.engine.filter;

import java.util.List;

/**
 * Word lists compiled into one Aho-Corasick automaton over folded symbols. Immutable: built by {@link ListCompiler}
 * off the message path and then read by any number of scanning threads without synchronisation (all fields final,
 * published through a volatile reference in {@link ContentFilter}).
 *
 * <p>Transitions: states are numbered breadth-first, so the shallow states where clean text spends its time come
 * first; they and the most frequent symbols index a full DFA table (at most 32 MB). Deeper states and rarer symbols
 * follow goto edges and failure links.
 */
public final class CompiledLists {

    // Entries, indexed by entry id.
    final String[] entryText;
    final String[] entryFolded;
    final MatchMode[] entryMode;
    final boolean[] entryAllow;
    final Severity[] entrySeverity;
    final int[] entryLanguage;
    final int[] entrySymbols;
    /**
     * Fewest chars a match of the entry must span in the text, for entries with a letter written three or more times
     * ("xxx"): the scanner reads any run as one or two copies, so such an entry is compiled with two and needs a span
     * as long as it was written ("xx" is not "xxx"). 0 for other entries.
     */
    final int[] entryMinChars;
    final String[] entrySource;
    final List<String> languages;

    // Automaton.
    final char[] symbolId;
    /**
     * Per BMP char: 1 + symbol id for plain letters (no leet, no flags) whose symbol has a dense column, else 0: one
     * lookup on the fast path.
     */
    final char[] fastSymbol;
    final int denseWidth;
    /** log2 of denseWidth (a power of two). */
    final int denseShift;
    /** States are numbered breadth-first; those below this have a full row in {@code dense}. */
    final int denseStates;
    /**
     * Full DFA rows of the shallow states. A value with {@link #FLAGGED} set (negative) names a target that has
     * outputs or no dense row of its own, so the scanner's letter loop needs one load and one sign test per char.
     */
    final int[] dense;
    final Transitions sparse;
    final int[] fail;
    final int[] outStart;
    final int[] outLength;
    final int[] outEntries;
    final int stateCount;
    final int ringMask;

    final CompileReport report;

    CompiledLists(String[] entryText, String[] entryFolded, MatchMode[] entryMode, boolean[] entryAllow,
                  Severity[] entrySeverity, int[] entryLanguage, int[] entrySymbols, int[] entryMinChars, String[] entrySource,
                  List<String> languages, char[] symbolId, int denseWidth, int denseStates, int[] dense, Transitions sparse, int[] fail,
                  int[] outStart, int[] outLength, int[] outEntries, int stateCount, int ringMask,
                  CompileReport report) {
        this.entryText = entryText;
        this.entryFolded = entryFolded;
        this.entryMode = entryMode;
        this.entryAllow = entryAllow;
        this.entrySeverity = entrySeverity;
        this.entryLanguage = entryLanguage;
        this.entrySymbols = entrySymbols;
        this.entryMinChars = entryMinChars;
        this.entrySource = entrySource;
        this.languages = languages;
        this.symbolId = symbolId;
        this.fastSymbol = new char[65536];
        for (int c = 0; c < 65536; c++) {
            int v = Folding.bmp((char) c);
            if (Folding.cls(v) == Folding.CLS_LETTER && (v & (Folding.FLAG_ALT | Folding.CONDITIONAL_FLAGS | Folding.FLAG_LOOKALIKE
                    | Folding.FLAG_TURNED)) == 0) {
                int id = symbolId[v & 0xFFFF];
                fastSymbol[c] = id < denseWidth ? (char) (id + 1) : 0;
            }
        }
        this.denseWidth = denseWidth;
        this.denseShift = Integer.numberOfTrailingZeros(denseWidth);
        if (Integer.bitCount(denseWidth) != 1) {
            throw new IllegalArgumentException("dense width must be a power of two, was " + denseWidth);
        }
        this.denseStates = denseStates;
        this.dense = dense;
        this.sparse = sparse;
        this.fail = fail;
        this.outStart = outStart;
        this.outLength = outLength;
        this.outEntries = outEntries;
        this.stateCount = stateCount;
        this.ringMask = ringMask;
        this.report = report;
    }

    /** Marks a dense-table target that has outputs or lies beyond the dense rows. */
    static final int FLAGGED = Integer.MIN_VALUE;

    /** The next state. */
    int next(int state, int symbol) {
        int w = denseWidth;
        if (symbol < w && state < denseStates) {
            return dense[(state << denseShift) + symbol] & ~FLAGGED;
        }
        return nextSparse(state, symbol);
    }

    /** Deep states (rare in clean text) and rare symbols: goto edges, then failure links. */
    private int nextSparse(int state, int symbol) {
        int w = denseWidth;
        int s = state;
        while (true) {
            int t = sparse.get(s, symbol);
            if (t >= 0) {
                return t;
            }
            if (s == 0) {
                return 0;
            }
            s = fail[s];
            if (symbol < w && s < denseStates) {
                return dense[(s << denseShift) + symbol] & ~FLAGGED;
            }
        }
    }

    /** Entries kept (block and allow). */
    public int entryCount() {
        return entryText.length;
    }

    /** Automaton states, for diagnostics. */
    public int stateCount() {
        return stateCount;
    }

    /** Languages of the compiled entries, in index order ("*" for allow-list entries). */
    public List<String> languages() {
        return languages;
    }

    /** Warnings and refused entries. */
    public CompileReport report() {
        return report;
    }

    int languageIndex(String language) {
        return languages.indexOf(language);
    }
}
