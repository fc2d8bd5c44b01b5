package org.mucscale.engine.metrics;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.InvalidSettingException;
import org.mucscale.engine.config.Settings;

import java.net.InetAddress;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MetricsSettingsTest {

    @Test
    void defaults_areSafe() {
        MetricsConfig c = MetricsConfig.defaults();
        assertThat(c.prometheusEnabled()).isFalse();
        assertThat(c.prometheusToken()).isEmpty();
        assertThat(c.prometheusAllowedAddresses().isEmpty()).isTrue();
        assertThat(c.httpBindAddress()).isEqualTo("127.0.0.1");
        assertThat(c.httpAllowedAddresses().contains(InetAddress.getLoopbackAddress())).isTrue();
    }

    @Test
    void from_withHostNameInAddressList_isRefusedNamingKey() {
        assertThatThrownBy(() -> Settings.fromText(MetricsSettings.ALL,
                Map.of("mucscale.metrics.prometheus-allowed-addresses", "10.0.0.1, example.org")))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageContaining("mucscale.metrics.prometheus-allowed-addresses must be a comma-separated list");
    }

    @Test
    void from_withShortToken_isRefused() {
        assertThatThrownBy(() -> Settings.fromText(MetricsSettings.ALL,
                Map.of("mucscale.metrics.prometheus-token", "short")))
                .hasMessageContaining("mucscale.metrics.prometheus-token must be empty or 16 to 256 visible ASCII");
    }

    @Test
    void from_withValidValues_parsesThem() {
        MetricsConfig c = MetricsConfig.from(Settings.fromText(MetricsSettings.ALL, Map.of(
                "mucscale.metrics.prometheus-allowed-addresses", "10.0.0.1, ::1",
                "mucscale.metrics.probe-rooms", "a@conference.example, b@conference.example",
                "mucscale.metrics.sample-interval", "2s")));
        assertThat(c.probeRooms()).containsExactly("a@conference.example", "b@conference.example");
        assertThat(c.sampleInterval().toMillis()).isEqualTo(2000);
        assertThat(c.prometheusAllowedAddresses().toString()).contains("10.0.0.1");
    }

    @Test
    void keys_followTheNamingRule() {
        for (var s : MetricsSettings.ALL) {
            assertThat(s.key()).startsWith("mucscale.metrics.").doesNotContain("_");
            assertThat(s.description()).endsWith(".");
        }
    }
}
