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

    static void scan(CompiledLists lists, CharSequence text, int field, ScanState st) {
        st.resetPaths();
        boolean boundary = true;
        int tokenSymbols = 0;
        int n = text.length();
        int i = 0;
        while (i < n) {
            char c = text.charAt(i);
            int v = Folding.bmp(c);
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
            } else if (cls == Folding.CLS_LEET && (v & (Folding.FLAG_LEET_IF_NEXT | Folding.FLAG_LEET_IF_NEIGHBOUR)) != 0) {
                if (!Folding.leetInContext(text, i, v)) {
                    cls = Folding.CLS_PUNCT;
                }
            }
            switch (cls) {
                case Folding.CLS_LETTER, Folding.CLS_LEET -> {
                    char sym = (char) (v & 0xFFFF);
                    char alt = (v & Folding.FLAG_ALT) != 0 ? Folding.alternative(c) : 0;
                    feed(lists, st, sym, alt, cls == Folding.CLS_LETTER, i, charEnd, boundary, field);
                    boundary = false;
                    tokenSymbols++;
                }
                case Folding.CLS_PUNCT -> boundary = true;
                case Folding.CLS_SPACE -> {
                    int j = charEnd;
                    while (j < n) {
                        int cj = Folding.cls(Folding.bmp(text.charAt(j)));
                        if (cj != Folding.CLS_SPACE && cj != Folding.CLS_IGNORE) {
                            break;
                        }
                        j++;
                    }
                    if (tokenSymbols == 1 && j < n && singleLetterToken(text, j)) {
                        boundary = true; // "f u c k": the space is skipped, each letter may start a word
                    } else if (tokenSymbols > 0) {
                        feed(lists, st, Folding.SPACE_SYMBOL, (char) 0, false, i, j, true, field);
                        boundary = true;
                    }
                    tokenSymbols = 0;
                    charEnd = j;
                }
                case Folding.CLS_EXPAND -> {
                    String e = Folding.expansion(v & 0xFFFF);
                    for (int k = 0; k < e.length(); k++) {
                        feed(lists, st, e.charAt(k), (char) 0, true, i, charEnd, k == 0 && boundary, field);
                    }
                    boundary = false;
                    tokenSymbols++;
                }
                default -> {
                    // ignorable: zero-width, format, combining marks
                }
            }
            i = charEnd;
        }
        for (int p = 0; p < st.pathCount; p++) {
            checkEnd(lists, st, p, field);
        }
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
                    || (cls == Folding.CLS_LEET && (v & (Folding.FLAG_LEET_IF_NEXT | Folding.FLAG_LEET_IF_NEIGHBOUR)) == 0)) {
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
        if (alt != 0) {
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
        if (sym == st.lastSymbol[p] && !boundaryBefore) {
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
            st.lastSymbol[p] = sym;
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
