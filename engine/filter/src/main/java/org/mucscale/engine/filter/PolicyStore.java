package org.mucscale.engine.filter;

import java.io.IOException;
import java.util.List;

/**
 * Where per-room policies live. The default policy is not stored here: it is the {@link FilterSettings}, which each
 * host persists its own way. Called only from the filter's compile thread, never on the message path.
 */
public interface PolicyStore {

    /** The stored room rules, in priority order (first match wins); empty when nothing is stored yet. */
    List<RoomRule> load() throws IOException;

    /** Replaces the stored rules; must be atomic (a crash leaves the old or the new rules, never a mix). */
    void save(List<RoomRule> rules) throws IOException;

    /** Keeps rules in memory only (tests, or hosts that persist elsewhere). */
    static PolicyStore inMemory() {
        return new PolicyStore() {
            private volatile List<RoomRule> rules = List.of();

            @Override
            public List<RoomRule> load() {
                return rules;
            }

            @Override
            public void save(List<RoomRule> newRules) {
                rules = List.copyOf(newRules);
            }
        };
    }
}
