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
 * @param lists       one line per operator list file: its entries, format and how its plain entries match
 *                    ({@link WordLists.OperatorList#describe()}), for the admin page and the CLI
 */
public record CompileReport(int entriesIn, int entriesKept, List<String> refused, List<String> warnings, long compileNs,
                            List<String> lists) {

    public CompileReport {
        refused = List.copyOf(refused);
        warnings = List.copyOf(warnings);
        lists = List.copyOf(lists);
    }

    /** A report without operator list files (entries given in code, room terms). */
    public CompileReport(int entriesIn, int entriesKept, List<String> refused, List<String> warnings, long compileNs) {
        this(entriesIn, entriesKept, refused, warnings, compileNs, List.of());
    }
}
