package org.mucscale.engine.filter;

/**
 * Where an entry may match relative to word boundaries. In list files: {@code word} is {@link #WHOLE_WORD},
 * {@code word*} {@link #PREFIX}, {@code *word} {@link #SUFFIX}, {@code *word*} {@link #SUBSTRING}.
 */
public enum MatchMode {
    /** The whole word and nothing else: "ass" matches "ass" but not "assassin" or "class". */
    WHOLE_WORD,
    /** The start of a word: "fuck*" matches "fucking". */
    PREFIX,
    /** The end of a word: "*fucker" matches "motherfucker". */
    SUFFIX,
    /** Anywhere, even inside words: use only for long, unambiguous entries. */
    SUBSTRING;

    boolean needsStartBoundary() {
        return this == WHOLE_WORD || this == PREFIX;
    }

    boolean needsEndBoundary() {
        return this == WHOLE_WORD || this == SUFFIX;
    }
}
