package org.mucscale.engine.filter;

import java.util.List;

/** Builds a masked copy of a text from match positions, in one pass. */
final class Masking {

    private Masking() {
    }

    /**
     * The text with every char inside a match of this field replaced by {@code maskChar} (whitespace and bidi
     * controls kept, a surrogate pair masked as one char, so code point offsets such as XEP-0461's stay valid); null
     * when no match is in this field.
     */
    static String mask(CharSequence text, List<FilterMatch> matches, boolean subject, char maskChar) {
        if (text == null) {
            return null;
        }
        boolean any = false;
        for (FilterMatch m : matches) {
            if (m.inSubject() == subject) {
                any = true;
                break;
            }
        }
        if (!any) {
            return null;
        }
        StringBuilder sb = new StringBuilder(text.length());
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            // Bidi controls are kept: masking one would leave its partner unbalanced.
            if (!covered(matches, subject, i) || Character.isWhitespace(c) || SecondReading.isBidiControl(c)) {
                sb.append(c);
            } else if (!(Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(text.charAt(i - 1))
                    && covered(matches, subject, i - 1))) {
                sb.append(maskChar);
            }
        }
        return sb.toString();
    }

    /**
     * Past the ignorable chars (combining marks, zero-width) right after index i: they belong to the last letter of a
     * match, and left outside it they would sit on the mask ("****\u0301").
     */
    static int marksEnd(CharSequence text, int i) {
        int e = i;
        while (e < text.length() && Folding.cls(Folding.bmp(text.charAt(e))) == Folding.CLS_IGNORE
                && !SecondReading.isBidiControl(text.charAt(e))) {
            e++;
        }
        return e;
    }

    /** Start of the word containing index i: back over letters, digits and ignorable characters. */
    static int wordStart(CharSequence text, int i) {
        int s = i;
        while (s > 0 && inWord(text.charAt(s - 1))) {
            s--;
        }
        return s;
    }

    /** End of the word containing the char before index i. */
    static int wordEnd(CharSequence text, int i) {
        int e = i;
        while (e < text.length() && inWord(text.charAt(e))) {
            e++;
        }
        return e;
    }

    private static boolean inWord(char c) {
        int cls = Folding.cls(Folding.bmp(c));
        return cls == Folding.CLS_LETTER || cls == Folding.CLS_LEET || cls == Folding.CLS_EXPAND
                || cls == Folding.CLS_IGNORE || Character.isSurrogate(c);
    }

    private static boolean covered(List<FilterMatch> matches, boolean subject, int i) {
        for (FilterMatch m : matches) {
            if (m.inSubject() == subject && m.start() <= i && i < m.end()) {
                return true;
            }
        }
        return false;
    }
}
