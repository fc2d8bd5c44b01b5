package org.mucscale.engine.filter;

/**
 * One list entry found in a message.
 *
 * @param entry     the entry as written in its list
 * @param list      the list it came from ("builtin:en", a file path)
 * @param severity  its severity
 * @param language  its language
 * @param mode      its match mode
 * @param inSubject true when found in the subject, false in the body
 * @param start     first char of the match in the original text (for prefix, suffix and substring entries the
 *                  whole word around it is reported, so "fucking" is masked whole)
 * @param end       one past the last char of the match in the original text
 */
public record FilterMatch(String entry, String list, Severity severity, String language, MatchMode mode, boolean inSubject, int start,
                          int end) {
}
