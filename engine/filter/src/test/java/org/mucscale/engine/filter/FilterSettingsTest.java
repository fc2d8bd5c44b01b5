package org.mucscale.engine.filter;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.InvalidSettingException;
import org.mucscale.engine.config.Settings;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FilterSettingsTest {

    @Test
    void from_defaults_sane() {
        FilterConfig c = FilterConfig.from(Settings.defaults(FilterSettings.ALL));
        assertThat(c.enabled()).isTrue();
        assertThat(c.defaultAction()).isEqualTo(Action.MASK);
        assertThat(c.languages()).containsExactly("en");
        assertThat(c.policyFile()).isNull();
        assertThat(c.maskChar()).isEqualTo('*');
        assertThat(FilterSettings.ALL).allSatisfy(s -> assertThat(s.key()).startsWith("mucscale.filter."));
    }

    @Test
    void from_text_parsesEveryKey() {
        FilterConfig c = FilterConfig.from(Settings.fromText(FilterSettings.ALL, Map.of(
                "mucscale.filter.default-action", "reject", "mucscale.filter.languages", "en, de",
                "mucscale.filter.min-severity", "HIGH", "mucscale.filter.extra-lists", "/a.txt,/b.txt",
                "mucscale.filter.policy-file", "/var/p.properties", "mucscale.filter.mask-char", "#")));
        assertThat(c.defaultAction()).isEqualTo(Action.REJECT);
        assertThat(c.languages()).containsExactlyInAnyOrder("en", "de");
        assertThat(c.minSeverity()).isEqualTo(Severity.HIGH);
        assertThat(c.extraLists()).containsExactly(Path.of("/a.txt"), Path.of("/b.txt"));
        assertThat(c.policyFile()).isEqualTo(Path.of("/var/p.properties"));
        assertThat(c.maskChar()).isEqualTo('#');
    }

    @Test
    void from_text_badValues_clearErrors() {
        assertThatThrownBy(() -> Settings.fromText(FilterSettings.ALL, Map.of("mucscale.filter.languages", "english")))
                .isInstanceOf(InvalidSettingException.class).hasMessageContaining("mucscale.filter.languages must be");
        assertThatThrownBy(() -> Settings.fromText(FilterSettings.ALL, Map.of("mucscale.filter.mask-char", "**")))
                .hasMessageContaining("one character");
        assertThatThrownBy(() -> Settings.fromText(FilterSettings.ALL, Map.of("mucscale.filter.default-action", "nuke")))
                .hasMessageContaining("one of [MASK, REJECT, DROP, FLAG]");
    }
}
