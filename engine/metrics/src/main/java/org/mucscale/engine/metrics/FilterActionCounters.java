package org.mucscale.engine.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The filter's action counters, {@code mucscale.filter.actions.<list>.<action>}: one per word list and action, made on
 * first use, at most {@value #MAX_FILTER_ACTION_PAIRS} pairs (more count as list "other", so a stream of list names
 * cannot grow the registry without bound); and the rule that turns a name into a metric name part.
 *
 * <p>Threads: any thread counts; a known pair is found without a lock (concurrent maps), a new one is made under this
 * object's monitor. The dashboard's sampler reads {@link #byKey}.
 */
final class FilterActionCounters {
    /** Distinct filter list/action pairs kept as their own counters; more pairs count as list "other". */
    static final int MAX_FILTER_ACTION_PAIRS = 64;

    private final MetricRegistry registry;
    private final ConcurrentHashMap<String, ConcurrentHashMap<String, Counter>> byList = new ConcurrentHashMap<>();
    /** The counters by metric name part ({@code list.action}), for the dashboard's series. */
    final ConcurrentHashMap<String, Counter> byKey = new ConcurrentHashMap<>();

    FilterActionCounters(MetricRegistry registry) {
        this.registry = registry;
    }

    /** The counter of this list/action pair: made on first use; beyond the bound, the pair counts as list "other". */
    Counter counter(String list, String action) {
        ConcurrentHashMap<String, Counter> byAction = byList.get(list);
        if (byAction != null) {
            Counter c = byAction.get(action);
            if (c != null) {
                return c;
            }
        }
        return newCounter(list, action);
    }

    private synchronized Counter newCounter(String list, String action) {
        ConcurrentHashMap<String, Counter> byAction = byList.computeIfAbsent(list, k -> new ConcurrentHashMap<>());
        Counter existing = byAction.get(action);
        if (existing != null) {
            return existing;
        }
        String key = sanitizeNamePart(list) + "." + sanitizeNamePart(action);
        if (byKey.size() >= MAX_FILTER_ACTION_PAIRS && !byKey.containsKey(key)) {
            key = "other." + sanitizeNamePart(action);
        }
        Counter counter = byKey.computeIfAbsent(key, k -> registry.counter("mucscale.filter.actions." + k));
        byAction.put(action, counter);
        return counter;
    }

    /** Letters, digits, '-' and '_' kept; anything else becomes '_'; empty becomes "none"; at most 64 chars. */
    static String sanitizeNamePart(String s) {
        if (s == null || s.isEmpty()) {
            return "none";
        }
        int n = Math.min(64, s.length());
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
            sb.append(ok ? c : '_');
        }
        // A Prometheus label value may hold anything, but a glob part must start with a letter, digit or '_'.
        if (sb.charAt(0) == '-') {
            sb.setCharAt(0, '_');
        }
        return sb.toString();
    }
}
