package org.mucscale.engine.filter;

/**
 * The text as a client shows it, when that differs from the order the chars were sent in: under bidi overrides
 * (U+202D/U+202E, closed by U+202C, by the U+2069 closing an enclosing isolate, or by the end of the paragraph) and
 * for upside-down Latin ("ʞɔnɟ", written backwards with turned letters). The scanner only notes that a text holds
 * such chars ({@link Folding#FLAG_BIDI}, {@link Folding#FLAG_TURNED}); then this builds the rendered reading and
 * the filter scans it too, mapping matches back to the original chars. Rare texts only: it may allocate.
 *
 * <p>Bidi: explicit levels as in UAX #9 (embeddings, overrides, isolates; strong letters raise the level as in its
 * rule I1/I2, everything else takes its embedding's level), then rule L2 (reverse every run at or above each odd
 * level, highest first). Digits and neutrals are simplified; what matters is the order of letters.
 *
 * <p>Upside-down: every word holding a turned letter (a {@link #TRIGGERS} char) is reversed and each char turned
 * back (ɐ → a, n → u, p → d...). Words without one are left alone, so "pun" never reads as "und".
 */
final class SecondReading {

    /** Chars that only an upside-down writer uses in a Latin word: their presence turns the word's reading. */
    static final String TRIGGERS = "ɐɔƆǝƎɟℲⅎƃ⅁ɥᴉɾʞꓘɯɹᴚʇ⊥ʌʍʎ⅄∀∩ꓭᗡԀ˥";
    /** Each char of a turned word, read the right way up (pairs: turned, upright). Others stay as they are. */
    private static final String TURNED_PAIRS = "ɐaɔcƆcǝeƎeɟfℲfⅎfƃg⅁gɥhᴉiıiɾjʞkꓘkןl˥lɯmɹrᴚrʇt⊥tʌvΛvʍwʎy⅄y∀a∩uꓭbᗡdԀp"
            + "nuunpddpqbbqNUUNPDDPQBBQ";
    private static final char[] UPRIGHT = new char[65536];

    static {
        for (int i = 0; i < TURNED_PAIRS.length(); i += 2) {
            UPRIGHT[TURNED_PAIRS.charAt(i)] = TURNED_PAIRS.charAt(i + 1);
        }
    }

    static final char LRE = '\u202A';
    static final char RLE = '\u202B';
    static final char PDF = '\u202C';
    static final char LRO = '\u202D';
    static final char RLO = '\u202E';
    static final char LRI = '\u2066';
    static final char RLI = '\u2067';
    static final char FSI = '\u2068';
    static final char PDI = '\u2069';
    /** UAX #9's max_depth. */
    private static final int MAX_DEPTH = 125;

    private SecondReading() {
    }

    static final String UNBALANCED_BIDI_ERROR = "Your message was not sent because it opens right-to-left or "
            + "left-to-right controls (U+202A-U+202E, U+2066-U+2068) that it does not close.";

    /**
     * After {@link Scanner#scan} returned {@code flags} for {@code text}: notes unbalanced bidi controls (when
     * {@code checkBalance}), then scans the rendered reading and adds its matches in {@code text}'s coordinates.
     */
    static void scan(CompiledLists lists, CharSequence text, int field, int flags, boolean checkBalance,
                     ScanState st) {
        if ((flags & Folding.FLAG_BIDI) != 0 && checkBalance && unbalanced(text)) {
            if ((field & ContentFilter.FIELD_SUBJECT) != 0) {
                st.unbalancedSubject = true;
            } else {
                st.unbalancedBody = true;
            }
        }
        if (st.readingIndex.length < text.length()) {
            st.readingIndex = new int[Math.max(text.length(), 2 * st.readingIndex.length)];
        }
        build(text, flags, st.reading, st.readingIndex);
        int firstMatch = st.matchCount;
        int firstAllow = st.allowCount;
        st.readingFirstMatch = firstMatch;
        st.readingFirstAllow = firstAllow;
        String reading = st.reading.toString();
        Scanner.scan(lists, reading, field, st);
        // A prefix, suffix or substring match covers its whole word as shown ("xalbroz" reversed is "zorblax"): widen
        // it in the reading, where the word's letters are contiguous, before mapping it back.
        for (int m = firstMatch; m < st.matchCount; m++) {
            MatchMode mode = lists.entryMode[st.matchEntry[m]];
            if (!mode.needsStartBoundary()) {
                st.matchStart[m] = Masking.wordStart(reading, st.matchStart[m]);
            }
            if (!mode.needsEndBoundary()) {
                st.matchEnd[m] = Masking.wordEnd(reading, st.matchEnd[m]);
            }
        }
        st.mapReadingMatches(firstMatch, firstAllow);
        st.readingFirstMatch = 0;
        st.readingFirstAllow = 0;
    }

    /**
     * The verdict for a text with unbalanced controls: refused whatever the room's action, since masking cannot
     * close them and they would reorder whatever the client shows after this text.
     */
    static FilterVerdict unbalancedVerdict(ScanState st, CharSequence body, CharSequence subject) {
        boolean inSubject = !st.unbalancedBody;
        CharSequence text = inSubject ? subject : body;
        return new FilterVerdict(Action.REJECT, null, null, java.util.List.of(new FilterMatch(
                ContentFilter.UNBALANCED_BIDI, ContentFilter.BIDI_LIST, Severity.HIGH, "*", MatchMode.SUBSTRING,
                inSubject, 0, text.length())), UNBALANCED_BIDI_ERROR);
    }

    static boolean isBidiControl(char c) {
        return (c >= LRE && c <= RLO) || (c >= LRI && c <= PDI);
    }

    /**
     * True when some override, embedding or isolate is not closed within its paragraph, or a PDF/PDI closes nothing:
     * the rest of what the client shows (the next line, the sender's nickname in some clients) would be reordered.
     */
    static boolean unbalanced(CharSequence text) {
        int open = 0;
        int isolates = 0;
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            if (c == LRE || c == RLE || c == LRO || c == RLO) {
                open++;
            } else if (c == LRI || c == RLI || c == FSI) {
                open++;
                isolates++;
            } else if (c == PDF) {
                if (open == isolates) {
                    return true; // nothing to close (or only an isolate, which a PDF must not close)
                }
                open--;
            } else if (c == PDI) {
                if (isolates == 0) {
                    return true;
                }
                isolates--;
                open = isolates; // a PDI also closes the embeddings opened inside its isolate
            } else if (c == '\n' || c == '\r' || c == '\u2029' || c == '\u001C' || c == '\u001D' || c == '\u001E'
                    || c == '\u0085') {
                if (open > 0) {
                    return true;
                }
            }
        }
        return open > 0;
    }

    /**
     * Writes the rendered reading of {@code text} into {@code out} (cleared first) and, per char written, its index
     * in {@code text} into {@code index} (at least {@code text.length()} long). Bidi controls are left out.
     *
     * @param flags the scanner's {@link Folding#FLAG_BIDI} / {@link Folding#FLAG_TURNED} bits for this text
     */
    static void build(CharSequence text, int flags, StringBuilder out, int[] index) {
        out.setLength(0);
        int n = text.length();
        if ((flags & Folding.FLAG_BIDI) != 0) {
            byte[] level = new byte[n];
            int kept = levels(text, level);
            // Keep the non-control chars with their levels, then reverse runs (rule L2).
            char[] chars = new char[kept];
            byte[] lv = new byte[kept];
            int k = 0;
            int maxLevel = 0;
            int minOdd = Integer.MAX_VALUE;
            for (int i = 0; i < n; i++) {
                char c = text.charAt(i);
                if (isBidiControl(c)) {
                    continue;
                }
                chars[k] = c;
                lv[k] = level[i];
                index[k] = i;
                maxLevel = Math.max(maxLevel, level[i]);
                if ((level[i] & 1) != 0) {
                    minOdd = Math.min(minOdd, level[i]);
                }
                k++;
            }
            for (int l = maxLevel; l >= minOdd && l > 0; l--) {
                int i = 0;
                while (i < kept) {
                    if (lv[i] < l) {
                        i++;
                        continue;
                    }
                    int j = i;
                    while (j < kept && lv[j] >= l) {
                        j++;
                    }
                    reverse(chars, lv, index, i, j - 1);
                    i = j;
                }
            }
            // A surrogate pair reversed reads low-high: put each pair back in order.
            for (int i = 0; i + 1 < kept; i++) {
                if (Character.isLowSurrogate(chars[i]) && Character.isHighSurrogate(chars[i + 1])) {
                    reverse(chars, lv, index, i, i + 1);
                    i++;
                }
            }
            out.append(chars, 0, kept);
        } else {
            out.append(text);
            for (int i = 0; i < n; i++) {
                index[i] = i;
            }
        }
        if ((flags & Folding.FLAG_TURNED) != 0) {
            turnWords(out, index);
        }
    }

    /** Explicit and resolved levels per char (UAX #9 X1-X8, I1-I2, simplified); returns how many are not controls. */
    private static int levels(CharSequence text, byte[] level) {
        byte[] stackLevel = new byte[MAX_DEPTH + 2];
        byte[] stackOverride = new byte[MAX_DEPTH + 2]; // 0 none, 1 left-to-right, 2 right-to-left
        boolean[] stackIsolate = new boolean[MAX_DEPTH + 2];
        int top = 0;
        int kept = 0;
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            byte current = stackLevel[top];
            switch (c) {
                case LRE, RLE, LRO, RLO, LRI, RLI, FSI -> {
                    level[i] = current;
                    boolean rtl = c == RLE || c == RLO || c == RLI;
                    int next = rtl ? (current + 1) | 1 : (current + 2) & ~1;
                    if (next <= MAX_DEPTH && top + 1 < stackLevel.length) {
                        top++;
                        stackLevel[top] = (byte) next;
                        stackOverride[top] = (byte) (c == LRO ? 1 : c == RLO ? 2 : 0);
                        stackIsolate[top] = c == LRI || c == RLI || c == FSI;
                    }
                    continue;
                }
                case PDF -> {
                    if (top > 0 && !stackIsolate[top]) {
                        top--;
                    }
                    level[i] = stackLevel[top];
                    continue;
                }
                case PDI -> {
                    int t = top;
                    while (t > 0 && !stackIsolate[t]) {
                        t--;
                    }
                    if (t > 0) {
                        top = t - 1;
                    }
                    level[i] = stackLevel[top];
                    continue;
                }
                case '\n', '\r', '\u2029', '\u0085' -> {
                    top = 0; // a paragraph ends every embedding
                    level[i] = 0;
                    kept++;
                    continue;
                }
                default -> {
                }
            }
            kept++;
            byte override = stackOverride[top];
            int l = current;
            if (override == 2) {
                l = (current & 1) != 0 ? current : current + 1;
            } else if (override == 1) {
                l = (current & 1) != 0 ? current + 1 : current;
            } else {
                byte dir = Character.getDirectionality(c);
                if (dir == Character.DIRECTIONALITY_LEFT_TO_RIGHT) {
                    l = (current & 1) != 0 ? current + 1 : current;
                } else if (dir == Character.DIRECTIONALITY_RIGHT_TO_LEFT
                        || dir == Character.DIRECTIONALITY_RIGHT_TO_LEFT_ARABIC) {
                    l = (current & 1) != 0 ? current : current + 1;
                }
            }
            level[i] = (byte) l;
        }
        return kept;
    }

    private static void reverse(char[] chars, byte[] lv, int[] index, int from, int to) {
        while (from < to) {
            char c = chars[from];
            chars[from] = chars[to];
            chars[to] = c;
            byte b = lv[from];
            lv[from] = lv[to];
            lv[to] = b;
            int x = index[from];
            index[from] = index[to];
            index[to] = x;
            from++;
            to--;
        }
    }

    /** Reverses and turns upright every word of {@code text} holding a {@link #TRIGGERS} char. */
    private static void turnWords(StringBuilder text, int[] index) {
        int n = text.length();
        int i = 0;
        while (i < n) {
            if (!inTurnedWord(text.charAt(i))) {
                i++;
                continue;
            }
            int j = i;
            boolean turned = false;
            while (j < n && inTurnedWord(text.charAt(j))) {
                turned |= TRIGGERS.indexOf(text.charAt(j)) >= 0;
                j++;
            }
            if (turned) {
                for (int a = i, b = j - 1; a < b; a++, b--) {
                    char c = text.charAt(a);
                    text.setCharAt(a, text.charAt(b));
                    text.setCharAt(b, c);
                    int x = index[a];
                    index[a] = index[b];
                    index[b] = x;
                }
                for (int k = i; k < j; k++) {
                    char up = UPRIGHT[text.charAt(k)];
                    if (up != 0) {
                        text.setCharAt(k, up);
                    }
                }
            }
            i = j;
        }
    }

    /** Letters, leet, ignorable chars and the turned symbols (∀, ⊥, ∩...) make up a turned word. */
    private static boolean inTurnedWord(char c) {
        int v = Folding.bmp(c);
        int cls = Folding.cls(v);
        return (v & Folding.FLAG_TURNED) != 0 || cls == Folding.CLS_LETTER || cls == Folding.CLS_LEET
                || cls == Folding.CLS_EXPAND || cls == Folding.CLS_IGNORE;
    }
}
