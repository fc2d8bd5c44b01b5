/**
 * Content filter for group messages: word lists compiled into one Aho-Corasick automaton over a folded character
 * stream, scanned without allocation for clean messages.
 *
 * <p>What other modules use:
 * <ul>
 *   <li>{@link org.mucscale.engine.filter.ContentFilter#start(FilterConfig, PolicyStore, FilterListener)} at start-up,
 *       {@link org.mucscale.engine.filter.ContentFilter#inspect(String, CharSequence, CharSequence)} once per group
 *       message (body and subject), {@link org.mucscale.engine.filter.ContentFilter#close()} at shutdown;</li>
 *   <li>{@link org.mucscale.engine.filter.FilterVerdict}: {@code CLEAN} (shared) or action, masked texts, matches,
 *       sender error text;</li>
 *   <li>{@link org.mucscale.engine.filter.FilterSettings} / {@link org.mucscale.engine.filter.FilterConfig#from} for
 *       the {@code mucscale.filter.*} keys; {@link org.mucscale.engine.filter.RoomRule} and the {@code putRoomRule},
 *       {@code removeRoomRule}, {@code setRoomRules}, {@code reconfigure} and {@code reload} methods to edit policies
 *       (compiled off the message path, swapped atomically);</li>
 *   <li>{@link org.mucscale.engine.filter.FilterListener} for metrics.</li>
 * </ul>
 * Word-list syntax: {@link org.mucscale.engine.filter.WordLists}. Data licences: {@code NOTICE.txt} in the resources.
 */
package org.mucscale.engine.filter;
