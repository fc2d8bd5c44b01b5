package org.mucscale.engine.metrics;

import org.mucscale.engine.config.Settings;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The metrics capability's settings, typed and validated (see {@link MetricsSettings} for meaning and bounds). */
public record MetricsConfig(boolean prometheusEnabled, String prometheusToken, AddressList prometheusAllowedAddresses,
                            boolean jmxEnabled, boolean httpEnabled, String httpBindAddress, int httpPort,
                            AddressList httpAllowedAddresses, String httpToken, boolean probeEnabled,
                            Duration probeInterval, List<String> probeRooms, Duration sampleInterval, Duration window,
                            int topRooms) {

    public MetricsConfig {
        probeRooms = List.copyOf(probeRooms);
    }

    public static MetricsConfig from(Settings s) {
        List<String> rooms = new ArrayList<>();
        for (String room : AddressList.splitComma(s.get(MetricsSettings.PROBE_ROOMS))) {
            if (!room.isEmpty()) {
                rooms.add(room);
            }
        }
        return new MetricsConfig(
                s.get(MetricsSettings.PROMETHEUS_ENABLED),
                s.get(MetricsSettings.PROMETHEUS_TOKEN),
                AddressList.parse(s.get(MetricsSettings.PROMETHEUS_ALLOWED_ADDRESSES)),
                s.get(MetricsSettings.JMX_ENABLED),
                s.get(MetricsSettings.HTTP_ENABLED),
                s.get(MetricsSettings.HTTP_BIND_ADDRESS).trim(),
                s.get(MetricsSettings.HTTP_PORT),
                AddressList.parse(s.get(MetricsSettings.HTTP_ALLOWED_ADDRESSES)),
                s.get(MetricsSettings.HTTP_TOKEN),
                s.get(MetricsSettings.PROBE_ENABLED),
                s.get(MetricsSettings.PROBE_INTERVAL),
                rooms,
                s.get(MetricsSettings.SAMPLE_INTERVAL),
                s.get(MetricsSettings.WINDOW),
                s.get(MetricsSettings.TOP_ROOMS));
    }

    /** Tokens are secrets: never printed. */
    @Override
    public String toString() {
        return "MetricsConfig[prometheusEnabled=" + prometheusEnabled + ", prometheusToken=" + mask(prometheusToken)
                + ", prometheusAllowedAddresses=" + prometheusAllowedAddresses + ", jmxEnabled=" + jmxEnabled
                + ", httpEnabled=" + httpEnabled + ", http=" + httpBindAddress + ":" + httpPort
                + ", httpAllowedAddresses=" + httpAllowedAddresses + ", httpToken=" + mask(httpToken)
                + ", probeEnabled=" + probeEnabled + ", probeInterval=" + probeInterval + ", probeRooms=" + probeRooms
                + ", sampleInterval=" + sampleInterval + ", window=" + window + ", topRooms=" + topRooms + "]";
    }

    private static String mask(String token) {
        return token.isEmpty() ? "(none)" : "(set)";
    }

    /** All defaults. */
    public static MetricsConfig defaults() {
        return from(Settings.defaults(MetricsSettings.ALL));
    }
}
