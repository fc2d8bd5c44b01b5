package org.mucscale.engine.filter;

/**
 * Runs compiled lists over one text field, recording matches (with positions in the original text) into a
 * {@link ScanState}. Stateless; allocation-free.
 *
 * <p>The text is read as a stream of folded symbols ({@link Folding}). Word boundaries: whitespace is a hard
 * separator (emitted as one space symbol so that entries of several words match); punctuation and symbols are
 * skipped but mark a soft boundary ("s.h.i.t", "bull.shit"); whitespace between two single-letter tokens is
 * skipped too ("f u c k"), each joined letter counting as a word start. An entry that needs a boundary at an end is
 * checked once the next symbol (or the end of the text) shows whether one is there. A match must contain at least
 * one real letter, so tokens of digits ("80085") never match.
 */
final class Scanner {

    private Scanner() {
    }

    /**
     * Scans one text; returns its {@link Folding#SECOND_READING_FLAGS} (bidi controls, turned letters seen), which
     * only chars off the fast path can carry.
     */
    static int scan(CompiledLists lists, CharSequence text, int field, ScanState st) {
        st.resetPaths();
        // Fast path: while there is one reading of the text, its state lives in these locals instead of the
        // ScanState arrays (which the JIT must re-read after every store). Anything unusual (a second reading, a
        // stretched run, an entry ending here, an expansion) spills them back and takes the general path.
        final char[] symbolId = lists.symbolId;
        final int[] dense = lists.dense;
        final int[] outLength = lists.outLength;
        final int width = lists.denseWidth;
        final int shift = lists.denseShift;
        final int denseStates = lists.denseStates;
        final int mask = st.ringMask;
        boolean fast = true;
        int s0 = 0;
        // s0 has a dense row and no outputs: the letter loop and the space path may step on without checks.
        boolean plain0 = denseStates > 0 && outLength[0] == 0;
        int prev0 = 0;
        int count0 = 0;
        int lastSym0 = -1;
        int run0 = 0;
        int lastEnd0 = 0;
        int[] ring0 = st.ring[0];

        boolean boundary = true;
        int tokenSymbols = 0;
        int n = text.length();
        int i = 0;
        final char[] fastSymbol = lists.fastSymbol;
        final int spaceId = symbolId[Folding.SPACE_SYMBOL];
        final boolean spaceInLoop = spaceId < width;
        // Up to here the current word is known to hold no Latin letter: its lookalike letters read as themselves.
        int nonLatinUntil = 0;
        while (i < n) {
            char c = text.charAt(i);
            int f = fastSymbol[c];
            if (f > 1 && fast && (plain0 || (!boundary && s0 < denseStates))) {
                // The letter loop: a run of plain letters (in some entry, with a dense column) from a dense state
                // with one reading. Per char: one class lookup, one transition load and its sign test (a flagged
                // target has outputs or no dense row), a ring store. Stretched runs leave to the general path. A
                // single ASCII space between a word of several letters and the next plain letter is stepped over
                // here too (as the space path below does), so ordinary sentences stay in this loop.
                int id = f - 1;
                int first = i;
                int tokBase = tokenSymbols;
                int wordFirst = i;
                int info = boundary ? 3 : 1;
                int s = s0;
                int prev = prev0;
                int last = boundary ? -1 : lastSym0; // no run across a boundary
                int run = run0;
                int count = count0;
                boolean stretched = false;
                boolean flagged = false;
                while (true) {
                    if (id == last) {
                        if (run >= 2) {
                            stretched = true; // a third copy: the general path forks the one-copy reading
                            break;
                        }
                        run = 2;
                        ring0[count & mask] = ring0[(count - 1) & mask]; // both copies share start and boundary
                    } else {
                        last = id;
                        run = 1;
                        ring0[count & mask] = (i << 2) | info;
                    }
                    int next = dense[(s << shift) + id];
                    prev = s;
                    count++;
                    i++;
                    if (next < 0) {
                        s = next & ~CompiledLists.FLAGGED;
                        flagged = true;
                        break;
                    }
                    s = next;
                    if (i >= n) {
                        break;
                    }
                    c = text.charAt(i);
                    f = fastSymbol[c];
                    if (f <= 1) {
                        if (c != ' ' || !spaceInLoop || tokBase + (i - wordFirst) < 2 || i + 1 >= n) {
                            break;
                        }
                        char nc = text.charAt(i + 1);
                        int nf = fastSymbol[nc];
                        int raw = dense[(s << shift) + spaceId];
                        if (nf <= 1 || raw < 0) {
                            break; // the outer loop takes it from here
                        }
                        ring0[count & mask] = (i << 2) | 2;
                        prev = s;
                        s = raw;
                        count++;
                        i++;
                        tokBase = 0;
                        wordFirst = i;
                        c = nc;
                        f = nf;
                        last = -1; // the next letter follows a boundary: no run
                        info = 3;
                    } else {
                        info = 1;
                    }
                    id = f - 1;
                }
                s0 = s;
                prev0 = prev;
                lastSym0 = last;
                run0 = run;
                count0 = count;
                tokenSymbols = tokBase + (i - wordFirst);
                if (i > first) {
                    boundary = false;
                    lastEnd0 = i;
                    plain0 = !flagged;
                }
                if (flagged && outLength[s0] != 0) {
                    spill(st, s0, prev0, count0, lastSym0, run0, lastEnd0);
                    outputs(lists, st, 0, s0, false, field);
                }
                if (!stretched) {
                    continue;
                }
            }
            if (c == ' ' && fast && plain0 && tokenSymbols > 1 && i + 1 < n && fastSymbol[text.charAt(i + 1)] != 0) {
                // One ASCII space between a word of several letters and a plain letter: the whitespace run is this
                // char alone and no single-letter joining applies, so emit the space symbol directly.
                int raw = spaceId < width ? dense[(s0 << shift) + spaceId] : lists.next(s0, spaceId) | CompiledLists.FLAGGED;
                int next = raw & ~CompiledLists.FLAGGED;
                plain0 = raw >= 0;
                lastSym0 = spaceId == 0 ? -1 : spaceId;
                run0 = 1;
                prev0 = s0;
                s0 = next;
                ring0[count0 & mask] = (i << 2) | 2;
                count0++;
                lastEnd0 = ++i;
                boundary = true;
                tokenSymbols = 0;
                if (!plain0 && outLength[next] != 0) {
                    spill(st, s0, prev0, count0, lastSym0, run0, lastEnd0);
                    outputs(lists, st, 0, next, false, field);
                }
                continue;
            }
            if (f != 0 && fast) {
                // The common case: a plain letter, one reading, no entry ending, no stretched run.
                int id = f - 1;
                boolean sameRun = id != 0 && id == lastSym0 && !boundary;
                if (!(boundary && outLength[s0] != 0) && !(sameRun && run0 >= 2)) {
                    if (sameRun) {
                        run0++;
                    } else {
                        lastSym0 = id == 0 ? -1 : id;
                        run0 = 1;
                    }
                    int next = id < width && s0 < denseStates ? dense[(s0 << shift) + id] & ~CompiledLists.FLAGGED : lists.next(s0, id);
                    prev0 = s0;
                    s0 = next;
                    plain0 = s0 < denseStates && outLength[s0] == 0;
                    ring0[count0 & mask] = run0 == 2 ? ring0[(count0 - 1) & mask] : (i << 2) | (boundary ? 3 : 1);
                    count0++;
                    lastEnd0 = ++i;
                    boundary = false;
                    tokenSymbols++;
                    if (outLength[next] != 0) {
                        spill(st, s0, prev0, count0, lastSym0, run0, lastEnd0);
                        outputs(lists, st, 0, next, false, field);
                    }
                    continue;
                }
            }
            int v = Folding.bmp(c);
            if ((v & Folding.SECOND_READING_FLAGS) != 0) {
                st.readingFlags |= v & Folding.SECOND_READING_FLAGS; // a field, not a local: no register for it
            }
            int cls = (v >>> Folding.CLASS_SHIFT) & Folding.CLASS_MASK;
            int charEnd = i + 1;
            if (cls == Folding.CLS_HIGH_SURROGATE) {
                if (charEnd < n && Character.isLowSurrogate(text.charAt(charEnd))) {
                    v = Folding.supplementary(Character.toCodePoint(c, text.charAt(charEnd)));
                    cls = Folding.cls(v);
                    charEnd++;
                } else {
                    cls = Folding.CLS_PUNCT; // lone surrogate: a boundary, never part of a word
                }
            } else if (cls == Folding.CLS_LOW_SURROGATE) {
                cls = Folding.CLS_PUNCT;
            } else if (cls == Folding.CLS_LEET && (v & Folding.CONDITIONAL_FLAGS) != 0) {
                if (!Folding.leetInContext(text, i, v)) {
                    cls = Folding.CLS_PUNCT;
                }
            }
            char sym;
            boolean real;
            int symEnd = charEnd;
            boolean symBoundary = boundary;
            switch (cls) {
                case Folding.CLS_LETTER, Folding.CLS_LEET -> {
                    sym = (char) (v & 0xFFFF);
                    real = cls == Folding.CLS_LETTER;
                    boundary = false;
                    tokenSymbols++;
                    if ((v & Folding.FLAG_LOOKALIKE) != 0 && i >= nonLatinUntil
                            && (nonLatinUntil = Folding.nonLatinWordEnd(text, i, charEnd)) < 0) {
                        // "τits": a Greek tau among Latin letters reads as t, and as itself ("cукa" is still "сука").
                        if (fast) {
                            spill(st, s0, prev0, count0, lastSym0, run0, lastEnd0);
                            fast = false;
                        }
                        feed(lists, st, Folding.lookalike(sym), sym, true, i, charEnd, symBoundary, field);
                        i = charEnd;
                        continue;
                    }
                    if ((v & Folding.FLAG_ALT) != 0) {
                        if (fast) {
                            spill(st, s0, prev0, count0, lastSym0, run0, lastEnd0);
                            fast = false;
                        }
                        feed(lists, st, sym, Folding.alternative(c), real, i, charEnd, symBoundary, field);
                        i = charEnd;
                        continue;
                    }
                }
                case Folding.CLS_PUNCT -> {
                    boundary = true;
                    i = charEnd;
                    continue;
                }
                case Folding.CLS_SPACE -> {
                    int j = charEnd;
                    while (j < n) {
                        int cj = Folding.cls(Folding.bmp(text.charAt(j)));
                        if (cj != Folding.CLS_SPACE && cj != Folding.CLS_IGNORE) {
                            break;
                        }
                        j++;
                    }
                    boolean emit = false;
                    int skippedFrom = charEnd;
                    if (tokenSymbols == 1 && j < n && !singleLetterToken(text, j)) {
                        int k = afterSeparatorToken(text, j); // "s * h * i * t", "f - u - c - k"
                        if (k > j && k < n && singleLetterToken(text, k)) {
                            j = k;
                        }
                    }
                    if (tokenSymbols == 1 && j < n && singleLetterToken(text, j)) {
                        boundary = true; // "f u c k": the space is skipped, each letter may start a word
                    } else if (tokenSymbols > 0) {
                        emit = true;
                        boundary = true;
                    }
                    for (int x = skippedFrom; x < j; x++) {
                        // a control in the run still asks for a second reading
                        st.readingFlags |= Folding.bmp(text.charAt(x)) & Folding.SECOND_READING_FLAGS;
                    }
                    tokenSymbols = 0;
                    i = j;
                    if (!emit) {
                        continue;
                    }
                    sym = Folding.SPACE_SYMBOL;
                    real = false;
                    symEnd = j;
                    symBoundary = true;
                }
                case Folding.CLS_EXPAND -> {
                    if (fast) {
                        spill(st, s0, prev0, count0, lastSym0, run0, lastEnd0);
                        fast = false;
                    }
                    String e = Folding.expansion(v & 0xFFFF);
                    for (int k = 0; k < e.length(); k++) {
                        feed(lists, st, e.charAt(k), (char) 0, true, i, charEnd, k == 0 && boundary, field);
                    }
                    boundary = false;
                    tokenSymbols++;
                    i = charEnd;
                    continue;
                }
                default -> {
                    i = charEnd; // ignorable: zero-width, format, combining marks
                    continue;
                }
            }
            int start = i;
            if (cls == Folding.CLS_SPACE) {
                start = i - 1; // i already moved past the whitespace run; any index inside it will do
            }
            int info = (start << 2) | (symBoundary ? 2 : 0) | (real ? 1 : 0);
            if (!fast && st.pathCount == 1) {
                s0 = st.state[0];
                plain0 = s0 < denseStates && outLength[s0] == 0;
                prev0 = st.prevState[0];
                count0 = st.count[0];
                lastSym0 = st.lastSymbol[0];
                run0 = st.run[0];
                lastEnd0 = st.lastEnd[0];
                ring0 = st.ring[0];
                fast = true;
            }
            int id = symbolId[sym];
            boolean sameRun = id != 0 && id == lastSym0 && !symBoundary;
            if (fast && !(symBoundary && outLength[s0] != 0) && !(sameRun && run0 >= 2)) {
                if (sameRun) {
                    run0++;
                } else {
                    lastSym0 = id == 0 ? -1 : id;
                    run0 = 1;
                }
                int next = id < width && s0 < denseStates ? dense[(s0 << shift) + id] & ~CompiledLists.FLAGGED : lists.next(s0, id);
                prev0 = s0;
                s0 = next;
                plain0 = s0 < denseStates && outLength[s0] == 0;
                ring0[count0 & mask] = run0 == 2 ? ring0[(count0 - 1) & mask] : info;
                count0++;
                lastEnd0 = symEnd;
                if (outLength[next] != 0) {
                    spill(st, s0, prev0, count0, lastSym0, run0, lastEnd0);
                    outputs(lists, st, 0, next, false, field);
                }
            } else {
                if (fast) {
                    spill(st, s0, prev0, count0, lastSym0, run0, lastEnd0);
                    fast = false;
                }
                feed(lists, st, sym, (char) 0, real, start, symEnd, symBoundary, field);
            }
            if (cls != Folding.CLS_SPACE) {
                i = charEnd;
            }
        }
        if (fast) {
            spill(st, s0, prev0, count0, lastSym0, run0, lastEnd0);
        }
        for (int p = 0; p < st.pathCount; p++) {
            checkEnd(lists, st, p, field);
        }
        return st.readingFlags;
    }

    private static void spill(ScanState st, int s0, int prev0, int count0, int lastSym0, int run0, int lastEnd0) {
        st.state[0] = s0;
        st.prevState[0] = prev0;
        st.count[0] = count0;
        st.lastSymbol[0] = lastSym0;
        st.run[0] = run0;
        st.lastEnd[0] = lastEnd0;
    }

    /**
     * Where the next token starts when the token at j is made only of punctuation and symbols (a separator written
     * between spaced letters: "s * h * i * t"), or j when it is not such a token.
     */
    private static int afterSeparatorToken(CharSequence text, int j) {
        int n = text.length();
        int k = j;
        while (k < n) {
            int v = Folding.bmp(text.charAt(k));
            int cls = Folding.cls(v);
            if (cls != Folding.CLS_PUNCT && !Folding.conditionalLeet(v)) {
                break;
            }
            k++;
        }
        if (k == j || k >= n || Folding.cls(Folding.bmp(text.charAt(k))) != Folding.CLS_SPACE) {
            return j;
        }
        while (k < n) {
            int cls = Folding.cls(Folding.bmp(text.charAt(k)));
            if (cls != Folding.CLS_SPACE && cls != Folding.CLS_IGNORE) {
                break;
            }
            k++;
        }
        return k;
    }

    /** True when the token starting at j has exactly one letter-like char. */
    private static boolean singleLetterToken(CharSequence text, int j) {
        int letters = 0;
        int n = text.length();
        for (int k = j; k < n; k++) {
            int v = Folding.bmp(text.charAt(k));
            int cls = Folding.cls(v);
            if (cls == Folding.CLS_SPACE) {
                break;
            }
            if (cls == Folding.CLS_LETTER || cls == Folding.CLS_EXPAND || cls == Folding.CLS_HIGH_SURROGATE
                    || (cls == Folding.CLS_LEET && (v & Folding.CONDITIONAL_FLAGS) == 0)) {
                if (++letters > 1) {
                    return false;
                }
                if (cls == Folding.CLS_HIGH_SURROGATE) {
                    k++;
                }
            }
        }
        return letters == 1;
    }

    private static void feed(CompiledLists lists, ScanState st, char sym, char alt, boolean real, int start, int end,
                             boolean boundaryBefore, int field) {
        int info = (start << 2) | (boundaryBefore ? 2 : 0) | (real ? 1 : 0);
        int paths = st.pathCount;
        if (alt == Folding.SKIP) {
            for (int p = 0; p < paths; p++) {
                st.fork(p); // the reading in which this char is a separator: nothing consumed
            }
        } else if (alt != 0) {
            int altId = lists.symbolId[alt];
            for (int p = 0; p < paths; p++) {
                int q = st.fork(p);
                if (q >= 0) {
                    feedPath(lists, st, q, alt, altId, info, end, boundaryBefore, field);
                }
            }
        }
        int id = lists.symbolId[sym];
        for (int p = 0; p < paths; p++) {
            feedPath(lists, st, p, sym, id, info, end, boundaryBefore, field);
        }
        if (st.pathCount > 1) {
            st.mergePaths();
        }
    }

    private static void feedPath(CompiledLists lists, ScanState st, int p, char sym, int id, int info, int end,
                                 boolean boundaryBefore, int field) {
        if (boundaryBefore) {
            checkEnd(lists, st, p, field);
        }
        if (id != 0 && id == st.lastSymbol[p] && !boundaryBefore) {
            int r = ++st.run[p];
            if (r >= 3) {
                st.lastEnd[p] = end;
                if (r == 3) {
                    // A stretched run: this path is the two-copy reading; fork the one-copy reading.
                    int q = st.fork(p);
                    if (q >= 0) {
                        st.state[q] = st.prevState[p];
                        st.count[q]--;
                    }
                }
                return;
            }
        } else {
            st.lastSymbol[p] = id == 0 ? -1 : id; // symbols in no entry never form a run worth forking for
            st.run[p] = 1;
        }
        int s = lists.next(st.state[p], id);
        st.prevState[p] = st.state[p];
        st.state[p] = s;
        // The second copy of a letter shares the first one's start and boundary, so a match may start at either.
        st.ring[p][st.count[p] & st.ringMask] = st.run[p] == 2 ? st.ring[p][(st.count[p] - 1) & st.ringMask] : info;
        st.count[p]++;
        st.lastEnd[p] = end;
        if (lists.outLength[s] != 0) {
            outputs(lists, st, p, s, false, field);
        }
    }

    private static void checkEnd(CompiledLists lists, ScanState st, int p, int field) {
        int s = st.state[p];
        if (lists.outLength[s] != 0) {
            outputs(lists, st, p, s, true, field);
        }
    }

    /** Reports entries ending in state s: those needing an end boundary when atEnd, the others when not. */
    private static void outputs(CompiledLists lists, ScanState st, int p, int s, boolean atEnd, int field) {
        int from = lists.outStart[s];
        int to = from + lists.outLength[s];
        int[] ring = st.ring[p];
        int mask = st.ringMask;
        int count = st.count[p];
        for (int k = from; k < to; k++) {
            int e = lists.outEntries[k];
            MatchMode mode = lists.entryMode[e];
            if (mode.needsEndBoundary() != atEnd) {
                continue;
            }
            int len = lists.entrySymbols[e];
            if (len > count) {
                continue;
            }
            int startInfo = ring[(count - len) & mask];
            if (mode.needsStartBoundary() && (startInfo & 2) == 0) {
                continue;
            }
            if (st.lastEnd[p] - (startInfo >>> 2) < lists.entryMinChars[e]) {
                continue; // "xx" is not the entry "xxx" (compiled as two copies)
            }
            boolean real = false;
            for (int j = 1; j <= len; j++) {
                if ((ring[(count - j) & mask] & 1) != 0) {
                    real = true;
                    break;
                }
            }
            if (real) {
                st.record(lists, e, startInfo >>> 2, st.lastEnd[p], field);
            }
        }
    }
}
