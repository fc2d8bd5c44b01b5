package org.mucscale.engine.filter;

import java.util.List;

/** Builds a masked copy of a text from match positions, in one pass. */
final class Masking {

    private Masking() {
    }

    /**
     * The text with every char inside a match of this field replaced by {@code maskChar} (whitespace kept, a
     * surrogate pair masked as one char); null when no match is in this field.
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
            if (!covered(matches, subject, i) || Character.isWhitespace(c)) {
                sb.append(c);
            } else if (!(Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(text.charAt(i - 1))
                    && covered(matches, subject, i - 1))) {
                sb.append(maskChar);
            }
        }
        return sb.toString();
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
