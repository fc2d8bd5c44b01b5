package org.mucscale.engine.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingTest {
    enum Policy { SPILL_TO_DISK, REJECT_WITH_ERROR }

    static final Setting<Integer> BATCH = Setting.ofInt("mucscale.store.batch-size", 500, 1, 100_000, true, "Rows per batch.");
    static final Setting<Duration> AGE = Setting.ofDuration("mucscale.store.max-batch-age", Duration.ofSeconds(1),
            Duration.ofMillis(1), Duration.ofMinutes(10), true, "Oldest row age before a flush.");
    static final Setting<Boolean> ON = Setting.ofBoolean("mucscale.store.enabled", true, false, "Store room logs.");
    static final Setting<Policy> POLICY = Setting.ofEnum("mucscale.store.overflow-policy", Policy.class,
            Policy.SPILL_TO_DISK, true, "What to do when the queue is full.");
    static final List<Setting<?>> ALL = List.of(BATCH, AGE, ON, POLICY);

    @Test
    void parse_outOfRange_namesKeyValueAndRange() {
        assertThatThrownBy(() -> BATCH.parse("0"))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage("mucscale.store.batch-size must be a whole number between 1 and 100000, was 0");
    }

    @Test
    void parse_notANumber_namesKeyAndText() {
        assertThatThrownBy(() -> BATCH.parse("lots"))
                .hasMessage("mucscale.store.batch-size must be a whole number between 1 and 100000, was 'lots'");
    }

    static final Setting<String> TOKEN = Setting.ofSecret("mucscale.metrics.test-token", true, "A bearer token.",
            v -> v == null || !(v.isEmpty() || v.length() >= 16) ? "empty or at least 16 characters" : null);
    static final Setting<String> PASSWORD = Setting.ofSecret("mucscale.store.test-password", false, "Password.", null);

    @Test
    void secret_refusedValue_isNotEchoed_butKeyAndRuleAre() {
        assertThatThrownBy(() -> TOKEN.parse("hunter2-typo"))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage("mucscale.metrics.test-token must be empty or at least 16 characters, was (hidden)");
        assertThatThrownBy(() -> Settings.fromText(List.of(TOKEN), Map.of("mucscale.metrics.test-token", "short")))
                .hasMessageNotContaining("short").hasMessageContaining("mucscale.metrics.test-token");
        assertThatThrownBy(() -> Settings.defaults(List.of(TOKEN)).withText("mucscale.metrics.test-token", "short"))
                .hasMessageNotContaining("short");
    }

    @Test
    void secret_toStringAndDisplay_neverShowTheValue_onlyWhetherItIsSet() {
        Settings s = Settings.fromText(List.of(BATCH, TOKEN, PASSWORD),
                Map.of("mucscale.metrics.test-token", "0123456789abcdef-token", "mucscale.store.test-password", "pw!"));
        assertThat(s.get(TOKEN)).isEqualTo("0123456789abcdef-token");
        assertThat(s.toString()).doesNotContain("0123456789abcdef-token").doesNotContain("pw!")
                .contains("mucscale.metrics.test-token=(hidden)").contains("mucscale.store.test-password=(hidden)")
                .contains("mucscale.store.batch-size=500");
        assertThat(TOKEN.display("")).isEmpty();
        assertThat(TOKEN.secret()).isTrue();
        assertThat(BATCH.secret()).isFalse();
        assertThat(TOKEN.format("0123456789abcdef-token")).isEqualTo("0123456789abcdef-token"); // stored form
    }

    @Test
    void parse_durationForms_areMilliseconds() {
        assertThat(AGE.parse("250")).isEqualTo(Duration.ofMillis(250));
        assertThat(AGE.parse("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(AGE.parse("20s")).isEqualTo(Duration.ofSeconds(20));
        assertThat(AGE.format(Duration.ofSeconds(20))).isEqualTo("20000");
        assertThatThrownBy(() -> AGE.parse("0")).hasMessageContaining("between 1 and 600000, was 0");
    }

    @Test
    void parse_booleanAndEnum_areStrict() {
        assertThat(ON.parse("TRUE")).isTrue();
        assertThatThrownBy(() -> ON.parse("yes")).hasMessage("mucscale.store.enabled must be true or false, was 'yes'");
        assertThat(POLICY.parse("reject_with_error")).isEqualTo(Policy.REJECT_WITH_ERROR);
        assertThatThrownBy(() -> POLICY.parse("DROP")).hasMessageContaining("one of [SPILL_TO_DISK, REJECT_WITH_ERROR]");
    }

    @Test
    void declare_badKeyOrDefault_isRefused() {
        assertThatThrownBy(() -> Setting.ofInt("store.batch", 1, 1, 2, true, "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Setting.ofInt("mucscale.x", 5, 1, 2, true, "x")).hasMessageContaining("default of mucscale.x");
    }

    @Test
    void fromText_collectsEveryProblem_andRefusesUnknownKeys() {
        assertThatThrownBy(() -> Settings.fromText(ALL, Map.of(
                "mucscale.store.batch-size", "-1", "mucscale.store.enabled", "maybe", "mucscale.store.typo", "1")))
                .isInstanceOfSatisfying(InvalidSettingException.class,
                        e -> assertThat(e.problems()).hasSize(3).anyMatch(p -> p.contains("mucscale.store.typo is not a known setting")));
    }

    @Test
    void fromText_keepsDefaultsForMissingKeys_andIgnoresForeignKeys() {
        Settings s = Settings.fromText(ALL, Map.of("mucscale.store.batch-size", "1000", "xmpp.domain", "example.org"));
        assertThat(s.get(BATCH)).isEqualTo(1000);
        assertThat(s.get(AGE)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void with_isACopy_andValidates() {
        Settings s = Settings.defaults(ALL);
        Settings t = s.withText("mucscale.store.batch-size", "7");
        assertThat(s.get(BATCH)).isEqualTo(500);
        assertThat(t.get(BATCH)).isEqualTo(7);
        assertThatThrownBy(() -> s.with(BATCH, 0)).isInstanceOf(InvalidSettingException.class);
        assertThatThrownBy(() -> Settings.defaults(List.of(BATCH, BATCH))).hasMessageContaining("declared twice");
    }
}
