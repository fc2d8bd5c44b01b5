package org.mucscale.engine.filter;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Unicode work of the filter, done once into lookup tables so that the scanner only indexes arrays.
 *
 * <p>Each BMP char maps to one int: the low 16 bits are the folded symbol, bits 16-19 its class, higher bits flags.
 * Folding, in order: zero-width, format and combining characters are ignored; whitespace is a hard separator;
 * UTS #39 confusables (a table generated from ICU4J, see {@code confusables-latin.txt}) map homoglyphs to Latin
 * letters; otherwise NFKD (compatibility and width folding), diacritics removed, full case folding; ASCII digits and a
 * few symbols are leetspeak for letters. Characters outside the BMP use a small sorted table.
 *
 * <p>Immutable after class initialisation; read by any thread.
 */
final class Folding {

    static final int CLS_IGNORE = 0;
    /** Whitespace: a hard word separator. */
    static final int CLS_SPACE = 1;
    /** Punctuation and symbols: skipped inside words, and a soft word boundary. */
    static final int CLS_PUNCT = 2;
    /** A real letter (any script), already folded. */
    static final int CLS_LETTER = 3;
    /** A digit or symbol read as a letter (leetspeak); does not count as a real letter. */
    static final int CLS_LEET = 4;
    /** One char that folds to several letters (ß → ss); low bits index {@link #expansion(int)}. */
    static final int CLS_EXPAND = 5;
    static final int CLS_HIGH_SURROGATE = 6;
    static final int CLS_LOW_SURROGATE = 7;

    static final int CLASS_SHIFT = 16;
    static final int CLASS_MASK = 0xF;
    /** The leet char has a second reading, {@link #alternative(char)} (1 → i or l). */
    static final int FLAG_ALT = 1 << 20;
    /** Leet only when the next char is letter-like ('!' ends sentences, "sh!t" is evasion). */
    static final int FLAG_LEET_IF_NEXT = 1 << 21;
    /** Leet only when a neighbouring char is letter-like ("@ss", but "@ home" and "$ 5" are punctuation). */
    static final int FLAG_LEET_IF_NEIGHBOUR = 1 << 22;

    /** Leet only between letter-like chars: the self-censoring '*' of "f*ck", "sh**t". */
    static final int FLAG_LEET_IF_INSIDE = 1 << 23;
    static final int CONDITIONAL_FLAGS = FLAG_LEET_IF_NEXT | FLAG_LEET_IF_NEIGHBOUR | FLAG_LEET_IF_INSIDE;
    /**
     * A letter of another script that looks enough like a Latin letter ({@code lookalikes.txt}, "mixed" rows): read
     * as itself, but as {@link #lookalike(char)} inside a word that also holds a Latin letter ("τits", "bіτch").
     */
    static final int FLAG_LOOKALIKE = 1 << 24;
    /** A Latin letter (or a compatibility form of one): in a word, it makes lookalike letters read as Latin. */
    static final int FLAG_LATIN = 1 << 25;
    /** A turned letter of upside-down writing ({@link SecondReading#TRIGGERS}): the text needs a second reading. */
    static final int FLAG_TURNED = 1 << 26;
    /** A bidi embedding, override or isolate control: the text needs a second reading, in the order shown. */
    static final int FLAG_BIDI = 1 << 27;
    /** The flags after which the filter also scans {@link SecondReading}. */
    static final int SECOND_READING_FLAGS = FLAG_TURNED | FLAG_BIDI;
    /** The symbol of a self-censoring '*'; list entries get variants with it ("f*ck", "f**k"). */
    static final char MASK_SYMBOL = '*';

    /** Alternative reading "no symbol at all": the char is a separator in that reading. */
    static final char SKIP = '\uFFFE';

    /** The symbol used for a run of whitespace, so entries of several words can match. */
    static final char SPACE_SYMBOL = ' ';

    private static final int[] BMP = new int[65536];
    private static final char[] ALT = new char[128];
    /** Folded symbol of a "mixed" lookalike row → the Latin letter it stands for in a Latin word. */
    private static final char[] LOOKALIKE = new char[65536];
    private static final List<String> EXPANSION_LIST = new ArrayList<>();
    private static final String[] EXPANSIONS;
    private static final int[] SUPP_KEYS;
    private static final int[] SUPP_VALUES;

    static final String CONFUSABLES_RESOURCE = "confusables-latin.txt";
    static final String LOOKALIKES_RESOURCE = "lookalikes.txt";

    /** One row of {@code lookalikes.txt}: the Latin letter, and whether only inside a word with Latin letters. */
    record Lookalike(char latin, boolean mixed) {
    }

    private static final Map<Integer, Lookalike> LOOKALIKES = loadLookalikes();

    static {
        Map<Integer, String> confusables = loadConfusables();
        Map<String, Integer> expansionIndex = new HashMap<>();
        for (int c = 0; c < 65536; c++) {
            BMP[c] = classify(c, confusables, expansionIndex);
        }
        leet('0', 'o', 0, 0);
        leet('1', 'i', 'l', 0);
        leet('2', 'z', 0, 0);
        leet('3', 'e', 0, 0);
        leet('4', 'a', 0, 0);
        leet('5', 's', 0, 0);
        leet('6', 'g', 0, 0);
        leet('7', 't', 0, 0);
        leet('8', 'b', 0, 0);
        leet('9', 'g', 0, 0);
        leet('@', 'a', 0, FLAG_LEET_IF_NEIGHBOUR);
        leet('$', 's', 0, FLAG_LEET_IF_NEIGHBOUR);
        leet('!', 'i', 'l', FLAG_LEET_IF_NEXT);
        leet('|', 'l', 'i', FLAG_LEET_IF_NEXT);
        leet('+', 't', 0, FLAG_LEET_IF_NEXT);
        leet('\u20AC', 'e', 0, FLAG_LEET_IF_NEIGHBOUR); // euro sign
        leet('*', MASK_SYMBOL, SKIP, FLAG_LEET_IF_INSIDE); // a masked letter, or a separator ("f*u*c*k")
        for (int k = 0; k < SecondReading.TRIGGERS.length(); k++) {
            BMP[SecondReading.TRIGGERS.charAt(k)] |= FLAG_TURNED;
        }
        for (int c = 0x202A; c <= 0x2069; c++) {
            if (SecondReading.isBidiControl((char) c)) {
                BMP[c] |= FLAG_BIDI;
            }
        }
        TreeMap<Integer, Integer> supp = new TreeMap<>();
        // Outside the BMP only a few blocks are used to disguise Latin letters: mathematical alphanumerics,
        // enclosed alphanumerics, and whatever the confusables table names. Other supplementary letters read as
        // an "unknown letter", other symbols as punctuation ({@link #supplementary}).
        for (int cp = 0x1D400; cp <= 0x1D7FF; cp++) {
            putSupplementary(supp, cp, confusables, expansionIndex);
        }
        for (int cp = 0x1F100; cp <= 0x1F1FF; cp++) {
            putSupplementary(supp, cp, confusables, expansionIndex);
        }
        for (Map.Entry<Integer, String> e : confusables.entrySet()) {
            if (e.getKey() > 0xFFFF) {
                putSupplementary(supp, e.getKey(), confusables, expansionIndex);
            }
        }
        SUPP_KEYS = new int[supp.size()];
        SUPP_VALUES = new int[supp.size()];
        int i = 0;
        for (Map.Entry<Integer, Integer> e : supp.entrySet()) {
            SUPP_KEYS[i] = e.getKey();
            SUPP_VALUES[i++] = e.getValue();
        }
        EXPANSIONS = EXPANSION_LIST.toArray(new String[0]);
    }

    private Folding() {
    }

    private static void putSupplementary(Map<Integer, Integer> supp, int cp, Map<Integer, String> confusables,
                                         Map<String, Integer> expansionIndex) {
        if (Character.isDefined(cp)) {
            int v = classify(cp, confusables, expansionIndex);
            if (cls(v) != CLS_PUNCT) {
                supp.put(cp, v);
            }
        }
    }

    private static void leet(char c, char primary, int alternative, int flags) {
        BMP[c] = (CLS_LEET << CLASS_SHIFT) | primary | flags | (alternative != 0 ? FLAG_ALT : 0);
        if (alternative != 0) {
            ALT[c] = (char) alternative;
        }
    }

    /** Table value of a BMP char. */
    static int bmp(char c) {
        return BMP[c];
    }

    /** Table value of a supplementary code point (punctuation when unknown). */
    static int supplementary(int cp) {
        int lo = 0;
        int hi = SUPP_KEYS.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int k = SUPP_KEYS[mid];
            if (k < cp) {
                lo = mid + 1;
            } else if (k > cp) {
                hi = mid - 1;
            } else {
                return SUPP_VALUES[mid];
            }
        }
        return Character.isLetter(cp) ? (CLS_LETTER << CLASS_SHIFT) | UNKNOWN_LETTER : CLS_PUNCT << CLASS_SHIFT;
    }

    /** Symbol of supplementary letters outside the table: a letter no entry contains (U+FFFF is a noncharacter). */
    static final char UNKNOWN_LETTER = '\uFFFF';

    static char alternative(char c) {
        return c < 128 ? ALT[c] : 0;
    }

    static String expansion(int index) {
        return EXPANSIONS[index];
    }

    static int cls(int value) {
        return (value >>> CLASS_SHIFT) & CLASS_MASK;
    }

    /** True for chars that take part in words (letters, digits, leet symbols), used for leet context checks. */
    static boolean letterLike(int value) {
        int cls = cls(value);
        return cls == CLS_LETTER || cls == CLS_EXPAND || cls == CLS_HIGH_SURROGATE
                || (cls == CLS_LEET && (value & CONDITIONAL_FLAGS) == 0);
    }

    /** True for the symbols that are leet only in context ('!', '|', '+', '@', '$', '€'). */
    static boolean conditionalLeet(int value) {
        return cls(value) == CLS_LEET && (value & CONDITIONAL_FLAGS) != 0;
    }

    /**
     * Whether a context-dependent leet char at index i reads as a letter: '!', '|' and '+' need a letter-like char
     * right after them; '@', '$' and '€' need one on either side, '*' on both sides, looking past a run of such
     * symbols ("a$$", "f**k").
     */
    static boolean leetInContext(CharSequence text, int i, int value) {
        int n = text.length();
        if ((value & FLAG_LEET_IF_NEXT) != 0) {
            return i + 1 < n && letterLike(BMP[text.charAt(i + 1)]);
        }
        int j = i + 1;
        while (j < n && conditionalLeet(BMP[text.charAt(j)])) {
            j++;
        }
        boolean after = j < n && letterLike(BMP[text.charAt(j)]);
        if (after && (value & FLAG_LEET_IF_NEIGHBOUR) != 0) {
            return true;
        }
        j = i - 1;
        while (j >= 0 && conditionalLeet(BMP[text.charAt(j)])) {
            j--;
        }
        boolean before = j >= 0 && letterLike(BMP[text.charAt(j)]);
        if ((value & FLAG_LEET_IF_INSIDE) == 0) {
            return before || after;
        }
        if (!before || !after) {
            return false;
        }
        // One '*' between two single letters ("s*h*i*t", "n*i*g*g*e*r", "s.h*i.t") separates them, it does not stand
        // for a letter: the reading as a masked letter would need its paths for every '*' and run out of them.
        int afterRun = i + 1;
        while (afterRun < n && conditionalLeet(BMP[text.charAt(afterRun)])) {
            afterRun++;
        }
        boolean oneStar = afterRun == i + 1 && j == i - 1;
        return !(oneStar && singleLetterAt(text, j) && singleLetterAt(text, afterRun));
    }

    /** True when the letter-like char at index k has no letter-like neighbour (a letter standing alone). */
    private static boolean singleLetterAt(CharSequence text, int k) {
        return (k == 0 || !letterLike(BMP[text.charAt(k - 1)]))
                && (k + 1 >= text.length() || !letterLike(BMP[text.charAt(k + 1)]));
    }

    /**
     * Folds list entry text exactly as the scanner folds message text (primary leet readings, punctuation and
     * ignorable characters dropped, whitespace runs as one {@link #SPACE_SYMBOL}), trimmed.
     */
    static String foldEntry(CharSequence text) {
        StringBuilder sb = new StringBuilder(text.length());
        boolean pendingSpace = false;
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            int v = BMP[c];
            int cls = cls(v);
            int start = i;
            if (cls == CLS_HIGH_SURROGATE && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                v = supplementary(Character.toCodePoint(c, text.charAt(i + 1)));
                cls = cls(v);
                i++;
            }
            switch (cls) {
                case CLS_SPACE -> pendingSpace = sb.length() > 0;
                case CLS_LETTER, CLS_LEET -> {
                    if (conditionalLeet(v) && !leetInContext(text, i, v)) {
                        continue;
                    }
                    if (pendingSpace) {
                        sb.append(SPACE_SYMBOL);
                        pendingSpace = false;
                    }
                    char sym = (char) (v & 0xFFFF);
                    if ((v & FLAG_LOOKALIKE) != 0 && inLatinWord(text, start, i + 1)) {
                        sym = LOOKALIKE[sym];
                    }
                    sb.append(sym);
                }
                case CLS_EXPAND -> {
                    if (pendingSpace) {
                        sb.append(SPACE_SYMBOL);
                        pendingSpace = false;
                    }
                    sb.append(EXPANSIONS[v & 0xFFFF]);
                }
                default -> {
                    // ignorable, punctuation, lone surrogates: not part of what is matched
                }
            }
        }
        return sb.toString();
    }

    private static int classify(int cp, Map<Integer, String> confusables, Map<String, Integer> expansionIndex) {
        if (cp < 128) {
            if (cp >= 'a' && cp <= 'z') {
                return (CLS_LETTER << CLASS_SHIFT) | FLAG_LATIN | cp;
            }
            if (cp >= 'A' && cp <= 'Z') {
                return (CLS_LETTER << CLASS_SHIFT) | FLAG_LATIN | (cp + 32);
            }
            if (cp >= '0' && cp <= '9') {
                return (CLS_LEET << CLASS_SHIFT) | cp;
            }
            if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == 0x0B || cp == 0x0C) {
                return (CLS_SPACE << CLASS_SHIFT) | SPACE_SYMBOL;
            }
            if (cp < 0x20 || cp == 0x7F) {
                return CLS_IGNORE << CLASS_SHIFT;
            }
            return CLS_PUNCT << CLASS_SHIFT;
        }
        if (cp >= Character.MIN_HIGH_SURROGATE && cp <= Character.MAX_HIGH_SURROGATE) {
            return CLS_HIGH_SURROGATE << CLASS_SHIFT;
        }
        if (cp >= Character.MIN_LOW_SURROGATE && cp <= Character.MAX_LOW_SURROGATE) {
            return CLS_LOW_SURROGATE << CLASS_SHIFT;
        }
        if ((cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7A3)) {
            // CJK ideographs and Hangul syllables: letters without case or compatibility forms; kept whole.
            return (CLS_LETTER << CLASS_SHIFT) | cp;
        }
        int type = Character.getType(cp);
        if (type == Character.FORMAT || type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK
                || type == Character.COMBINING_SPACING_MARK || type == Character.CONTROL
                || cp == 0x115F || cp == 0x1160 || cp == 0x3164 || cp == 0xFFA0 || cp == 0x2800) {
            // Format controls (zero-width, bidi), marks and Hangul/Braille blanks are invisible: ignored.
            return CLS_IGNORE << CLASS_SHIFT;
        }
        if (Character.isWhitespace(cp) || Character.isSpaceChar(cp)) {
            return (CLS_SPACE << CLASS_SHIFT) | SPACE_SYMBOL;
        }
        Lookalike row = LOOKALIKES.get(cp);
        if (row != null && !row.mixed()) {
            return (CLS_LETTER << CLASS_SHIFT) | FLAG_LATIN | row.latin();
        }
        String folded = confusables.get(cp);
        if (folded == null) {
            folded = foldCompat(new String(Character.toChars(cp)));
            int f = folded.codePointCount(0, folded.length()) == 1 ? folded.codePointAt(0) : cp;
            if (f != cp) {
                // A compatibility form of a confusable or lookalike letter: modifier ᶦ → ɪ → i, bold 𝛕 → τ, Τ → τ.
                Lookalike compatRow = LOOKALIKES.get(f);
                if (compatRow != null && !compatRow.mixed()) {
                    return (CLS_LETTER << CLASS_SHIFT) | FLAG_LATIN | compatRow.latin();
                }
                folded = confusables.getOrDefault(f, folded);
            }
        }
        int v = classifyFolded(folded, expansionIndex);
        if (cls(v) != CLS_LETTER) {
            return v;
        }
        char sym = (char) (v & 0xFFFF);
        Lookalike mixed = row != null ? row : LOOKALIKES.get((int) sym);
        if (mixed != null && mixed.mixed()) {
            LOOKALIKE[sym] = mixed.latin();
            return v | FLAG_LOOKALIKE;
        }
        Character.UnicodeScript script = Character.UnicodeScript.of(cp);
        if (sym >= 'a' && sym <= 'z' && (script == Character.UnicodeScript.LATIN
                || script == Character.UnicodeScript.COMMON || script == Character.UnicodeScript.INHERITED)) {
            return v | FLAG_LATIN; // not Cyrillic а or Greek ο, which fold to Latin but are another script's letters
        }
        return v;
    }

    /** The Latin reading of a lookalike symbol ({@link #FLAG_LOOKALIKE}). */
    static char lookalike(char sym) {
        return LOOKALIKE[sym];
    }

    /**
     * Whether the word around the char(s) [start, end) holds a Latin letter, looking back and forth over letters,
     * leet and ignorable chars (not across whitespace or punctuation).
     */
    static boolean inLatinWord(CharSequence text, int start, int end) {
        return nonLatinWordEnd(text, start, end) < 0;
    }

    /**
     * -1 when the word around the char(s) [start, end) holds a Latin letter, else where that word ends: the scanner
     * then knows the answer for the rest of the word without looking again.
     */
    static int nonLatinWordEnd(CharSequence text, int start, int end) {
        for (int k = start - 1; k >= 0; k--) {
            char c = text.charAt(k);
            int v = BMP[c];
            if (Character.isLowSurrogate(c) && k > 0 && Character.isHighSurrogate(text.charAt(k - 1))) {
                v = supplementary(Character.toCodePoint(text.charAt(k - 1), c));
                k--;
            }
            if ((v & FLAG_LATIN) != 0) {
                return -1;
            }
            if (!inWord(v)) {
                break;
            }
        }
        int n = text.length();
        int k = end;
        while (k < n) {
            char c = text.charAt(k);
            int v = BMP[c];
            int width = 1;
            if (Character.isHighSurrogate(c) && k + 1 < n && Character.isLowSurrogate(text.charAt(k + 1))) {
                v = supplementary(Character.toCodePoint(c, text.charAt(k + 1)));
                width = 2;
            }
            if ((v & FLAG_LATIN) != 0) {
                return -1;
            }
            if (!inWord(v)) {
                break;
            }
            k += width;
        }
        return k;
    }

    private static boolean inWord(int v) {
        int cls = cls(v);
        return cls == CLS_LETTER || cls == CLS_LEET || cls == CLS_EXPAND || cls == CLS_IGNORE;
    }

    /** Loads the reviewed lookalike table: code point → Latin letter and when it applies. */
    static Map<Integer, Lookalike> loadLookalikes() {
        Map<Integer, Lookalike> map = new HashMap<>();
        try (InputStream in = Folding.class.getResourceAsStream(LOOKALIKES_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + LOOKALIKES_RESOURCE);
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            int number = 0;
            while ((line = r.readLine()) != null) {
                number++;
                if (line.isEmpty() || line.charAt(0) == '#') {
                    continue;
                }
                String[] cols = line.split("\t");
                if (cols.length != 7 || cols[2].length() != 1 || !(cols[3].equals("always") || cols[3].equals("mixed"))) {
                    throw new IllegalStateException(LOOKALIKES_RESOURCE + ":" + number + ": expected 7 tab-separated "
                            + "columns (code point, char, one Latin letter, always|mixed, name, source, reason)");
                }
                map.put(Integer.parseInt(cols[0], 16), new Lookalike(cols[2].charAt(0), cols[3].equals("mixed")));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return map;
    }

    private static int classifyFolded(String folded, Map<String, Integer> expansionIndex) {
        StringBuilder kept = new StringBuilder(folded.length());
        for (int i = 0; i < folded.length(); ) {
            int c = folded.codePointAt(i);
            i += Character.charCount(c);
            if (Character.isLetterOrDigit(c) && c <= 0xFFFF) {
                kept.append((char) c);
            }
        }
        if (kept.length() == 0) {
            return folded.isEmpty() ? CLS_IGNORE << CLASS_SHIFT : CLS_PUNCT << CLASS_SHIFT;
        }
        if (kept.length() == 1) {
            char c = kept.charAt(0);
            if (Character.isDigit(c)) {
                int d = Character.digit(c, 10);
                if (d >= 0) {
                    return BMP_ASCII_DIGIT_PLACEHOLDER | d; // resolved to the ASCII digit's leet value below
                }
                return CLS_PUNCT << CLASS_SHIFT;
            }
            return (CLS_LETTER << CLASS_SHIFT) | c;
        }
        for (int i = 0; i < kept.length(); i++) {
            if (!Character.isLetter(kept.charAt(i))) {
                return CLS_PUNCT << CLASS_SHIFT;
            }
        }
        String s = kept.toString();
        Integer index = expansionIndex.get(s);
        if (index == null) {
            index = EXPANSION_LIST.size();
            EXPANSION_LIST.add(s);
            expansionIndex.put(s, index);
        }
        return (CLS_EXPAND << CLASS_SHIFT) | index;
    }

    /** Marker: a non-ASCII digit, whose value is resolved lazily to the ASCII digit's table value. */
    private static final int BMP_ASCII_DIGIT_PLACEHOLDER = 0xF << CLASS_SHIFT;

    static {
        // Non-ASCII digits (fullwidth, Arabic-Indic, circled...) read like the ASCII digit, leet included.
        for (int c = 128; c < 65536; c++) {
            if (cls(BMP[c]) == 0xF) {
                BMP[c] = BMP['0' + (BMP[c] & 0xFFFF)];
            }
        }
        for (int i = 0; i < SUPP_VALUES.length; i++) {
            if (cls(SUPP_VALUES[i]) == 0xF) {
                SUPP_VALUES[i] = BMP['0' + (SUPP_VALUES[i] & 0xFFFF)];
            }
        }
    }

    /** NFKD, marks removed, full case folding (ß → ss, ſ → s). */
    static String foldCompat(String s) {
        String d = Normalizer.normalize(s, Normalizer.Form.NFKD);
        StringBuilder sb = new StringBuilder(d.length());
        for (int i = 0; i < d.length(); ) {
            int c = d.codePointAt(i);
            i += Character.charCount(c);
            int type = Character.getType(c);
            if (type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK
                    || type == Character.COMBINING_SPACING_MARK || type == Character.FORMAT) {
                continue;
            }
            sb.appendCodePoint(c);
        }
        return sb.toString().toUpperCase(Locale.ROOT).toLowerCase(Locale.ROOT);
    }

    /** Loads the generated confusables table: code point → Latin letters. */
    static Map<Integer, String> loadConfusables() {
        Map<Integer, String> map = new HashMap<>();
        try (InputStream in = Folding.class.getResourceAsStream(CONFUSABLES_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + CONFUSABLES_RESOURCE);
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isEmpty() || line.charAt(0) == '#') {
                    continue;
                }
                int sp = line.indexOf(' ');
                map.put(Integer.parseInt(line.substring(0, sp), 16), line.substring(sp + 1).trim());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return map;
    }
}
