package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.mucscale.engine.config.Setting;
import org.mucscale.engine.config.Settings;
import org.junit.jupiter.api.Test;

class SettingsStateTest {

    static final Setting<Integer> BATCH = Setting.ofInt("mucscale.test.batch-size", 100, 1, 1000, true,
            "Rows per batch.");
    static final Setting<Duration> INTERVAL = Setting.ofDuration("mucscale.test.flush-interval",
            Duration.ofMillis(500), Duration.ofMillis(10), Duration.ofSeconds(60), true, "Flush interval.");
    static final Setting<Integer> THREADS = Setting.ofInt("mucscale.test.threads", 4, 1, 64, false,
            "Worker threads.");
    static final List<Setting<?>> CATALOG = List.of(BATCH, INTERVAL, THREADS);

    final Map<String, String> stored = new HashMap<>();
    final List<String> subscriberFailures = new ArrayList<>();

    SettingsState load() {
        return SettingsState.load(CATALOG, stored::get, (key, e) -> subscriberFailures.add(key));
    }

    @Test
    void load_withStoredValues_usesThem() {
        stored.put(BATCH.key(), "250");
        stored.put(INTERVAL.key(), "2000");

        Settings s = load().current();

        assertThat(s.get(BATCH)).isEqualTo(250);
        assertThat(s.get(INTERVAL)).isEqualTo(Duration.ofSeconds(2));
        assertThat(s.get(THREADS)).isEqualTo(4);
    }

    @Test
    void load_withInvalidStoredValue_usesDefaultAndNamesKeyValueAndRange() {
        stored.put(BATCH.key(), "0");

        SettingsState state = load();

        assertThat(state.current().get(BATCH)).isEqualTo(100);
        assertThat(state.loadProblems()).singleElement().asString()
                .contains("mucscale.test.batch-size", "between 1 and 1000", "was 0", "default 100");
    }

    @Test
    void apply_validDynamicValue_swapsSnapshotAndTellsSubscribers() throws Exception {
        SettingsState state = load();
        List<Settings> seen = new ArrayList<>();
        AutoCloseable subscription = state.subscribe(seen::add);

        SettingsState.Change change = state.apply(BATCH.key(), "300");

        assertThat(change.outcome()).isEqualTo(SettingsState.Outcome.APPLIED);
        assertThat(state.current().get(BATCH)).isEqualTo(300);
        assertThat(seen).singleElement().satisfies(s -> assertThat(s.get(BATCH)).isEqualTo(300));

        subscription.close();
        state.apply(BATCH.key(), "301");
        assertThat(seen).hasSize(1);
        assertThat(state.subscriberCount()).isZero();
    }

    @Test
    void apply_outOfRangeValue_isRefusedPreviousValueStaysAndRestoreTextIsThePreviousText() {
        stored.put(BATCH.key(), "250");
        SettingsState state = load();
        List<Settings> seen = new ArrayList<>();
        state.subscribe(seen::add);

        SettingsState.Change change = state.apply(BATCH.key(), "5000");

        assertThat(change.outcome()).isEqualTo(SettingsState.Outcome.REFUSED);
        assertThat(change.message()).contains("mucscale.test.batch-size", "5000", "between 1 and 1000", "keeping 250");
        assertThat(change.restoreText()).isEqualTo("250");
        assertThat(state.current().get(BATCH)).isEqualTo(250);
        assertThat(seen).isEmpty();
    }

    @Test
    void apply_unparsableValueForUnsetKey_isRefusedAndRestoreMeansDelete() {
        SettingsState state = load();

        SettingsState.Change change = state.apply(INTERVAL.key(), "soon");

        assertThat(change.outcome()).isEqualTo(SettingsState.Outcome.REFUSED);
        assertThat(change.message()).contains("mucscale.test.flush-interval", "'soon'", "between 10 and 60000");
        assertThat(change.restoreText()).isNull();
        assertThat(state.current().get(INTERVAL)).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void apply_deletedProperty_returnsToDefault() {
        stored.put(BATCH.key(), "250");
        SettingsState state = load();

        SettingsState.Change change = state.apply(BATCH.key(), null);

        assertThat(change.outcome()).isEqualTo(SettingsState.Outcome.APPLIED);
        assertThat(state.current().get(BATCH)).isEqualTo(100);
    }

    @Test
    void secret_refusedAndAppliedChanges_andLoadProblems_neverShowTheValue() {
        Setting<String> token = Setting.ofSecret("mucscale.test.token", true, "Token.",
                v -> v == null || !(v.isEmpty() || v.length() >= 16) ? "empty or at least 16 characters" : null);
        Map<String, String> texts = new java.util.HashMap<>(Map.of("mucscale.test.token", "stored-typo"));
        SettingsState state = SettingsState.load(List.of(token), texts::get, (key, e) -> { });
        assertThat(state.loadProblems()).singleElement().asString().doesNotContain("stored-typo")
                .contains("mucscale.test.token");
        SettingsState.Change applied = state.apply("mucscale.test.token", "a-good-long-secret-token");
        assertThat(applied.outcome()).isEqualTo(SettingsState.Outcome.APPLIED);
        assertThat(applied.message()).doesNotContain("a-good-long-secret-token").contains("(hidden)");
        SettingsState.Change refused = state.apply("mucscale.test.token", "typo-token");
        assertThat(refused.outcome()).isEqualTo(SettingsState.Outcome.REFUSED);
        assertThat(refused.message()).doesNotContain("typo-token").doesNotContain("a-good-long-secret-token");
        assertThat(refused.restoreText()).isEqualTo("a-good-long-secret-token"); // put back, never logged
        assertThat(state.current().get(token)).isEqualTo("a-good-long-secret-token");
    }

    @Test
    void apply_nonDynamicSetting_isRememberedButNotApplied() {
        SettingsState state = load();
        List<Settings> seen = new ArrayList<>();
        state.subscribe(seen::add);

        SettingsState.Change change = state.apply(THREADS.key(), "8");

        assertThat(change.outcome()).isEqualTo(SettingsState.Outcome.NEEDS_RELOAD);
        assertThat(change.message()).contains("mucscale.test.threads", "reloaded", "still using 4");
        assertThat(state.current().get(THREADS)).isEqualTo(4);
        assertThat(seen).isEmpty();
    }

    @Test
    void apply_sameValue_isUnchanged() {
        SettingsState state = load();

        assertThat(state.apply(BATCH.key(), "100").outcome()).isEqualTo(SettingsState.Outcome.UNCHANGED);
    }

    @Test
    void apply_unknownKey_isReportedAsUnknown() {
        assertThat(load().apply("mucscale.test.nope", "1").outcome()).isEqualTo(SettingsState.Outcome.UNKNOWN_KEY);
    }

    @Test
    void apply_whenASubscriberThrows_othersStillHearAndFailureIsReported() {
        SettingsState state = load();
        List<Settings> seen = new ArrayList<>();
        state.subscribe(s -> {
            throw new IllegalStateException("broken subscriber");
        });
        state.subscribe(seen::add);

        state.apply(BATCH.key(), "7");

        assertThat(seen).hasSize(1);
        assertThat(subscriberFailures).containsExactly(BATCH.key());
    }
}
