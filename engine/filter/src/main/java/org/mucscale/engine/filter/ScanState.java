package org.mucscale.engine.filter;

/**
 * Per-thread scratch of the scanner: the live readings ("paths") of the text and the matches found. Owned by one
 * thread at a time (a ThreadLocal in {@link ContentFilter}); preallocated, so scanning a clean message allocates
 * nothing. Grows only when a newly compiled list needs a longer position ring.
 *
 * <p>A path is one reading of the text so far: stretched letters ("fuuuuck") read as one and as two copies, and
 * ambiguous leet characters ('1' as i or l) fork paths. At most {@link #MAX_PATHS} are kept; paths that reach the
 * same automaton state merge.
 */
final class ScanState {

    static final int MAX_PATHS = 4;
    static final int MAX_MATCHES = 64;

    int pathCount;
    final int[] state = new int[MAX_PATHS];
    final int[] prevState = new int[MAX_PATHS];
    final int[] count = new int[MAX_PATHS];
    /** Symbol id of the last symbol (-1 for none or a symbol in no entry), for stretched-run detection. */
    final int[] lastSymbol = new int[MAX_PATHS];
    final int[] run = new int[MAX_PATHS];
    final int[] lastEnd = new int[MAX_PATHS];
    /** Per path, per symbol: (original start index << 2) | boundary-before << 1 | real-letter. */
    int[][] ring = new int[MAX_PATHS][0];
    int ringMask;

    int matchCount;
    final int[] matchEntry = new int[MAX_MATCHES];
    final int[] matchStart = new int[MAX_MATCHES];
    final int[] matchEnd = new int[MAX_MATCHES];
    final int[] matchField = new int[MAX_MATCHES];
    int allowCount;
    final int[] allowStart = new int[MAX_MATCHES];
    final int[] allowEnd = new int[MAX_MATCHES];
    final int[] allowField = new int[MAX_MATCHES];
    /** More matches than fit were found; the verdict still acts, on the ones kept. */
    boolean overflow;
    /**
     * Matches (and allow matches) below these indexes belong to an earlier reading of the text, whose positions are
     * in other coordinates: {@link #record} does not merge into them.
     */
    int readingFirstMatch;
    int readingFirstAllow;
    /** The rendered reading ({@link SecondReading}) and, per char of it, its index in the original text. */
    final StringBuilder reading = new StringBuilder(256);
    int[] readingIndex = new int[256];
    /** {@link Folding#SECOND_READING_FLAGS} seen in the text being scanned. */
    int readingFlags;
    /** A body (or subject) whose bidi controls are unbalanced was seen. */
    boolean unbalancedBody;
    boolean unbalancedSubject;

    /** Clears matches and sizes the rings for these lists. */
    void prepare(CompiledLists lists) {
        fit(lists);
        matchCount = 0;
        allowCount = 0;
        overflow = false;
        readingFirstMatch = 0;
        readingFirstAllow = 0;
        unbalancedBody = false;
        unbalancedSubject = false;
    }

    /** Sizes the rings for these lists too (a room's own terms), keeping the matches found so far. */
    void fit(CompiledLists lists) {
        if (ringMask < lists.ringMask) {
            for (int p = 0; p < MAX_PATHS; p++) {
                ring[p] = new int[lists.ringMask + 1];
            }
            ringMask = lists.ringMask;
        }
    }

    void resetPaths() {
        readingFlags = 0;
        pathCount = 1;
        state[0] = 0;
        prevState[0] = 0;
        count[0] = 0;
        lastSymbol[0] = -1;
        run[0] = 0;
        lastEnd[0] = 0;
    }

    /** Copies path p into a new slot; returns it, or -1 when all slots are taken. */
    int fork(int p) {
        if (pathCount == MAX_PATHS) {
            return -1;
        }
        int q = pathCount++;
        state[q] = state[p];
        prevState[q] = prevState[p];
        count[q] = count[p];
        lastSymbol[q] = lastSymbol[p];
        run[q] = run[p];
        lastEnd[q] = lastEnd[p];
        System.arraycopy(ring[p], 0, ring[q], 0, ring[p].length);
        return q;
    }

    /** Drops paths in the same automaton state as an earlier one (and no pending fork): their futures are identical. */
    void mergePaths() {
        for (int p = 0; p < pathCount; p++) {
            for (int q = pathCount - 1; q > p; q--) {
                // A path holding the second copy of a letter may still fork its one-copy reading from prevState.
                if (state[q] == state[p] && (prevState[q] == prevState[p] || (run[p] != 2 && run[q] != 2))) {
                    remove(q);
                }
            }
        }
    }

    private void remove(int q) {
        int last = --pathCount;
        if (q != last) {
            state[q] = state[last];
            prevState[q] = prevState[last];
            count[q] = count[last];
            lastSymbol[q] = lastSymbol[last];
            run[q] = run[last];
            lastEnd[q] = lastEnd[last];
            int[] tmp = ring[q];
            ring[q] = ring[last];
            ring[last] = tmp;
        }
    }

    void record(CompiledLists lists, int entry, int start, int end, int field) {
        if (lists.entryAllow[entry]) {
            for (int i = readingFirstAllow; i < allowCount; i++) {
                if (allowField[i] == field && allowStart[i] == start && allowEnd[i] >= end) {
                    return;
                }
            }
            if (allowCount == MAX_MATCHES) {
                return;
            }
            allowStart[allowCount] = start;
            allowEnd[allowCount] = end;
            allowField[allowCount++] = field;
            return;
        }
        for (int i = readingFirstMatch; i < matchCount; i++) {
            if (matchEntry[i] == entry && matchField[i] == field && matchStart[i] == start) {
                if (end > matchEnd[i]) {
                    matchEnd[i] = end;
                }
                return;
            }
        }
        if (matchCount == MAX_MATCHES) {
            overflow = true;
            return;
        }
        matchEntry[matchCount] = entry;
        matchStart[matchCount] = start;
        matchEnd[matchCount] = end;
        matchField[matchCount++] = field;
    }

    /**
     * Moves the matches found from {@code firstMatch} / {@code firstAllow} on, in the coordinates of {@link #reading},
     * to the original text's: each covers the smallest span holding all the original chars it read.
     */
    void mapReadingMatches(int firstMatch, int firstAllow) {
        for (int m = firstMatch; m < matchCount; m++) {
            long span = originalSpan(matchStart[m], matchEnd[m]);
            matchStart[m] = (int) (span >>> 32);
            matchEnd[m] = (int) span;
        }
        for (int a = firstAllow; a < allowCount; a++) {
            long span = originalSpan(allowStart[a], allowEnd[a]);
            allowStart[a] = (int) (span >>> 32);
            allowEnd[a] = (int) span;
        }
    }

    private long originalSpan(int start, int end) {
        int lo = Integer.MAX_VALUE;
        int hi = -1;
        for (int k = start; k < end; k++) {
            lo = Math.min(lo, readingIndex[k]);
            hi = Math.max(hi, readingIndex[k]);
        }
        return hi < 0 ? 0L : ((long) lo << 32) | (hi + 1);
    }

    /** True when an allow-list match covers match m. */
    boolean beatenByAllow(int m) {
        for (int i = 0; i < allowCount; i++) {
            if (allowField[i] == matchField[m] && allowStart[i] <= matchStart[m] && matchEnd[m] <= allowEnd[i]) {
                return true;
            }
        }
        return false;
    }
}
