package org.mucscale.engine.filter;

import java.util.List;

/**
 * What compiling a set of lists did.
 *
 * @param entriesIn   entries given
 * @param entriesKept entries kept (duplicates after folding are merged, keeping the highest severity); the automaton
 *                    also holds generated variants ("f*ck", "blowjob" for "blow job")
 * @param refused     entries left out, each with the reason ("'fan' (builtin:sv:12) matches the common en word 'fan'")
 * @param warnings    other remarks, e.g. punctuation ignored in an entry
 * @param compileNs   wall time of the compile
 */
public record CompileReport(int entriesIn, int entriesKept, List<String> refused, List<String> warnings, long compileNs) {

    public CompileReport {
        refused = List.copyOf(refused);
        warnings = List.copyOf(warnings);
    }
}
