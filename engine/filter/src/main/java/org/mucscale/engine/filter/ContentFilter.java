package org.mucscale.engine.filter;

import java.io.IOException;
import java.lang.ref.WeakReference;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The content filter that the MUC engine and the Openfire interceptor call: {@link #inspect} per group message.
 *
 * <p><b>Concurrency.</b> Everything a message needs (compiled lists, resolved room policies, settings) is one
 * immutable {@code FilterSnapshot} behind one volatile field. Message threads only read it. Changes (settings, room rules,
 * list reloads) are queued to a single compile thread, {@code mucscale-filter-compiler}, which persists room rules,
 * compiles a complete new snapshot and then publishes it with one volatile write: a message sees the old lists or the
 * new ones, never a mix. The compile queue is bounded ({@value #COMPILE_QUEUE}); when full, the change is refused
 * with a {@link RejectedExecutionException} in the returned future (overflow policy: REJECT_WITH_ERROR), never
 * dropped silently. Per-thread scan scratch lives in a ThreadLocal, so a clean message allocates nothing. The
 * snapshot itself, how it is compiled and how a room finds its policy in it, is {@link FilterSnapshot}.
 */
public final class ContentFilter implements AutoCloseable {

    static final int COMPILE_QUEUE = 16;
    static final int FIELD_BODY = 0;
    static final int FIELD_SUBJECT = 1;
    /** Or-ed into the field of a match found by a room's own terms (its entry ids index that room's automaton). */
    static final int FIELD_ROOM = 2;
    /** The list name of matches of a room's own terms (one name for all rooms: metrics labels stay bounded). */
    public static final String ROOM_TERMS = "room-terms";
    /** The list name of a refusal for unbalanced bidi controls ({@link FilterSettings#REFUSE_UNBALANCED_BIDI}). */
    public static final String BIDI_LIST = "bidi";
    /** The entry name of that refusal. */
    public static final String UNBALANCED_BIDI = "unbalanced bidi controls";

    /*
     * Weakly held: inside Openfire, messages are scanned on Openfire's long-lived connection threads, and a
     * ThreadLocal value of a plugin class would pin the plugin's class loader after every reload (seen in a heap dump
     * of a real Openfire 5.1.1). A WeakReference is a JDK type; a collected ScanState is simply made again.
     */
    private static final ThreadLocal<WeakReference<ScanState>> SCRATCH = new ThreadLocal<>();

    private final PolicyStore store;
    private final FilterListener listener;
    private final ThreadPoolExecutor compiler;
    private volatile FilterSnapshot snapshot;

    private ContentFilter(PolicyStore store, FilterListener listener, FilterSnapshot first) {
        this.store = store;
        this.listener = listener;
        this.snapshot = first;
        this.compiler = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(COMPILE_QUEUE),
                r -> {
                    Thread t = new Thread(r, "mucscale-filter-compiler");
                    t.setDaemon(true);
                    return t;
                }, new ThreadPoolExecutor.AbortPolicy());
    }

    /**
     * Compiles the lists (on the calling thread: start-up, not the message path) and starts the filter. Room rules
     * come from {@code config.policyFile()} when set, else they are kept in memory.
     */
    public static ContentFilter start(FilterConfig config, FilterListener listener) {
        return start(config, config.policyFile() != null ? new FilePolicyStore(config.policyFile()) : PolicyStore.inMemory(),
                listener);
    }

    /** As {@link #start(FilterConfig, FilterListener)} with the host's own policy store. */
    public static ContentFilter start(FilterConfig config, PolicyStore store, FilterListener listener) {
        List<RoomRule> rules;
        try {
            rules = store.load();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot load filter room policies: " + e.getMessage(), e);
        }
        FilterSnapshot first = FilterSnapshot.compile(config, rules);
        ContentFilter filter = new ContentFilter(store, listener == null ? FilterListener.NONE : listener, first);
        filter.listener.onCompiled(first.report);
        return filter;
    }

    private static ScanState scratch() {
        WeakReference<ScanState> ref = SCRATCH.get();
        ScanState st = ref == null ? null : ref.get();
        if (st == null) {
            st = new ScanState();
            SCRATCH.set(new WeakReference<>(st));
        }
        return st;
    }

    /**
     * Checks one group message. Scans the body and the subject (either may be null); returns
     * {@link FilterVerdict#CLEAN} (no allocation) when nothing applicable matched, else a verdict with the room's
     * action, masked texts, the matches and the sender's error text.
     *
     * @param roomJid bare room address, e.g. "lobby@conference.example.org" (lower case avoids a glob lookup)
     */
    public FilterVerdict inspect(String roomJid, CharSequence body, CharSequence subject) {
        FilterSnapshot snap = snapshot;
        if (!snap.config.enabled()) {
            return FilterVerdict.CLEAN;
        }
        boolean timed = listener.timed();
        long t0 = timed ? System.nanoTime() : 0L;
        ScanState st = scratch();
        st.prepare(snap.lists);
        if (body != null && body.length() > 0) {
            scan(snap, snap.lists, body, FIELD_BODY, st);
        }
        if (subject != null && subject.length() > 0) {
            scan(snap, snap.lists, subject, FIELD_SUBJECT, st);
        }
        // Room terms cost nothing until some rule has terms; then a room finds its terms with one map lookup (plus the
        // glob loop only when a glob rule has terms), and only a room that has terms scans its small automaton.
        if (snap.hasRoomTerms) {
            CompiledLists terms = snap.termsOf(roomJid);
            if (terms != null) {
                st.fit(terms);
                if (body != null && body.length() > 0) {
                    scan(snap, terms, body, FIELD_BODY | FIELD_ROOM, st);
                }
                if (subject != null && subject.length() > 0) {
                    scan(snap, terms, subject, FIELD_SUBJECT | FIELD_ROOM, st);
                }
            }
        }
        FilterVerdict verdict = st.matchCount == 0 && !st.unbalancedBody && !st.unbalancedSubject ? FilterVerdict.CLEAN
                : decide(snap, snap.resolve(roomJid), roomJid, body, subject, st);
        if (timed) {
            listener.onScan(System.nanoTime() - t0);
        }
        return verdict;
    }

    /** Scans a text as sent and, when it holds bidi controls or turned letters, also as shown ({@link SecondReading}). */
    private static void scan(FilterSnapshot snap, CompiledLists lists, CharSequence text, int field, ScanState st) {
        int flags = Scanner.scan(lists, text, field, st);
        if (flags != 0) {
            SecondReading.scan(lists, text, field, flags,
                    (field & FIELD_ROOM) == 0 && snap.config.refuseUnbalancedBidi(), st);
        }
    }

    private FilterVerdict decide(FilterSnapshot snap, ResolvedPolicy policy, String roomJid, CharSequence body,
                                 CharSequence subject, ScanState st) {
        if (!policy.enabled) {
            return FilterVerdict.CLEAN;
        }
        if (st.unbalancedBody || st.unbalancedSubject) {
            listener.onAction(roomJid, BIDI_LIST, Action.REJECT);
            return SecondReading.unbalancedVerdict(st, body, subject);
        }
        List<FilterMatch> matches = new ArrayList<>();
        for (int m = 0; m < st.matchCount; m++) {
            int e = st.matchEntry[m];
            boolean roomTerm = (st.matchField[m] & FIELD_ROOM) != 0;
            CompiledLists lists = roomTerm ? policy.terms : snap.lists;
            // A room's own terms were chosen for that room: its language and severity thresholds do not thin them.
            if (!roomTerm && ((policy.languageMask & (1L << lists.entryLanguage[e])) == 0
                    || lists.entrySeverity[e].compareTo(policy.minSeverity) < 0 || st.beatenByAllow(m))) {
                continue;
            }
            boolean inSubject = (st.matchField[m] & FIELD_SUBJECT) != 0;
            MatchMode mode = lists.entryMode[e];
            CharSequence text = inSubject ? subject : body;
            int start = mode.needsStartBoundary() ? st.matchStart[m] : Masking.wordStart(text, st.matchStart[m]);
            int end = Masking.marksEnd(text,
                    mode.needsEndBoundary() ? st.matchEnd[m] : Masking.wordEnd(text, st.matchEnd[m]));
            matches.add(new FilterMatch(lists.entryText[e], lists.entrySource[e], lists.entrySeverity[e],
                    lists.languages.get(lists.entryLanguage[e]), mode, inSubject, start, end));
        }
        if (matches.isEmpty()) {
            return FilterVerdict.CLEAN;
        }
        matches.sort(Comparator.comparing(FilterMatch::inSubject).thenComparingInt(FilterMatch::start)
                .thenComparingInt(FilterMatch::end).thenComparing(FilterMatch::severity, Comparator.reverseOrder()));
        // Several entries can cover the same span ("shit*" and "*shit" on "shit"): report the span once, worst first.
        for (int k = matches.size() - 1; k > 0; k--) {
            FilterMatch a = matches.get(k - 1);
            FilterMatch b = matches.get(k);
            if (a.inSubject() == b.inSubject() && a.start() == b.start() && a.end() == b.end()
                    && a.entry().equals(b.entry())) {
                matches.remove(k);
            }
        }
        Set<String> listsHit = new LinkedHashSet<>();
        for (FilterMatch m : matches) {
            listsHit.add(m.list());
        }
        for (String list : listsHit) {
            listener.onAction(roomJid, list, policy.action);
        }
        String maskedBody = null;
        String maskedSubject = null;
        if (policy.action == Action.MASK) {
            maskedBody = Masking.mask(body, matches, false, snap.config.maskChar());
            maskedSubject = Masking.mask(subject, matches, true, snap.config.maskChar());
        }
        return new FilterVerdict(policy.action, maskedBody, maskedSubject, List.copyOf(matches),
                policy.action == Action.REJECT ? policy.rejectMessage : null);
    }

    /** The settings in force. */
    public FilterConfig config() {
        return snapshot.config;
    }

    /** The room rules in force, in priority order. */
    public List<RoomRule> roomRules() {
        return snapshot.rules;
    }

    /** What the last compile did (refused entries, warnings, time). */
    public CompileReport report() {
        return snapshot.report;
    }

    /** The compiled lists in force. */
    public CompiledLists lists() {
        return snapshot.lists;
    }

    /** Applies new settings: recompiles lists (off the message path) and swaps atomically. */
    public CompletableFuture<CompileReport> reconfigure(FilterConfig config) {
        return submit(() -> publish(FilterSnapshot.compile(config, snapshot.rules)));
    }

    /** Re-reads list files and recompiles. */
    public CompletableFuture<CompileReport> reload() {
        return submit(() -> publish(FilterSnapshot.compile(snapshot.config, snapshot.rules)));
    }

    /** Replaces all room rules: persisted first, then swapped in. */
    public CompletableFuture<CompileReport> setRoomRules(List<RoomRule> rules) {
        List<RoomRule> copy = List.copyOf(rules);
        return submit(() -> {
            save(copy);
            return publish(snapshot.withRules(copy));
        });
    }

    /** Adds a rule, or replaces the one with the same pattern (keeping its place). */
    public CompletableFuture<CompileReport> putRoomRule(RoomRule rule) {
        return submit(() -> {
            List<RoomRule> rules = new ArrayList<>(snapshot.rules);
            boolean replaced = false;
            for (int i = 0; i < rules.size(); i++) {
                if (rules.get(i).pattern().equals(rule.pattern())) {
                    rules.set(i, rule);
                    replaced = true;
                }
            }
            if (!replaced) {
                rules.add(rule);
            }
            save(rules);
            return publish(snapshot.withRules(List.copyOf(rules)));
        });
    }

    /** Removes the rule with this pattern, if any. */
    public CompletableFuture<CompileReport> removeRoomRule(String pattern) {
        return submit(() -> {
            List<RoomRule> rules = new ArrayList<>(snapshot.rules);
            String p = pattern.strip().toLowerCase(java.util.Locale.ROOT);
            rules.removeIf(r -> r.pattern().equals(p));
            save(rules);
            return publish(snapshot.withRules(List.copyOf(rules)));
        });
    }

    /**
     * Adds a term to one room's own list (the admin page's "retract and add term"): it applies in that room on top of
     * the global lists, from the next message. The room's exact rule gets the term; a room that has none gets one,
     * copying the settings and terms of the glob rule that governed it so far (an exact rule wins over globs). The
     * term is checked as a list entry ("cheater", "noob*"); a bad one fails the future with an
     * {@link IllegalArgumentException} naming the reason, and nothing changes. Persisted, then swapped in. The
     * future's report is the room list's compile (its warnings say, for example, that a term matching a common word
     * is kept whole-word).
     */
    public CompletableFuture<CompileReport> addRoomTerm(String roomJid, String term) {
        return addRoomTerms(roomJid, java.util.Collections.singletonList(term));
    }

    /** As {@link #addRoomTerm}, several terms in one change: all are added, or (one is bad) none. */
    public CompletableFuture<CompileReport> addRoomTerms(String roomJid, List<String> terms) {
        if (terms == null || terms.isEmpty()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("a room term must not be empty"));
        }
        if (roomJid == null || roomJid.isBlank() || roomJid.indexOf('*') >= 0 || roomJid.indexOf('?') >= 0) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "a room address is required (no wildcards), was '" + roomJid + "'"));
        }
        List<String> checked = new ArrayList<>();
        try {
            for (String term : terms) {
                checked.add(RoomRule.checkTerm(term));
            }
            RoomRule.action(roomJid, null); // the address's own check
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        String room = roomJid.strip().toLowerCase(java.util.Locale.ROOT);
        return submit(() -> {
            FilterSnapshot snap = snapshot;
            CompileReport alone = FilterSnapshot.compileTerms(checked, room, snap.config).report();
            if (!alone.refused().isEmpty()) {
                throw new IllegalArgumentException("room term refused: " + String.join("; ", alone.refused()));
            }
            List<RoomRule> rules = new ArrayList<>(snap.rules);
            int at = -1;
            for (int i = 0; i < rules.size(); i++) {
                if (rules.get(i).pattern().equals(room)) {
                    at = i;
                    break;
                }
            }
            RoomRule updated;
            if (at >= 0) {
                updated = rules.get(at).withTerms(checked);
                rules.set(at, updated);
            } else {
                RoomRule governing = null;
                for (RoomRule r : snap.globs) {
                    if (r.matches(room)) {
                        governing = r;
                        break;
                    }
                }
                updated = governing == null
                        ? new RoomRule(room, true, null, Set.of(), null, null, checked)
                        : new RoomRule(room, governing.enabled(), governing.action(), governing.languages(),
                        governing.minSeverity(), governing.rejectMessage(), governing.terms()).withTerms(checked);
                rules.add(updated);
            }
            save(rules);
            FilterSnapshot next = snap.withRules(List.copyOf(rules));
            publish(next);
            return next.resolve(room).terms.report();
        });
    }

    private void save(List<RoomRule> rules) {
        try {
            store.save(rules);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot save filter room policies: " + e.getMessage(), e);
        }
    }

    private CompileReport publish(FilterSnapshot next) {
        snapshot = next;
        listener.onCompiled(next.report);
        return next.report;
    }

    private CompletableFuture<CompileReport> submit(Supplier<CompileReport> task) {
        try {
            return CompletableFuture.supplyAsync(task, compiler);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new RejectedExecutionException(
                    "filter compile queue is full (" + COMPILE_QUEUE + " changes pending); try again", e));
        }
    }

    @Override
    public void close() {
        compiler.shutdown();
        try {
            if (!compiler.awaitTermination(10, TimeUnit.SECONDS)) {
                compiler.shutdownNow();
            }
        } catch (InterruptedException e) {
            compiler.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
