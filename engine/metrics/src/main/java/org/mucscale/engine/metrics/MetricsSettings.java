package org.mucscale.engine.metrics;

import org.mucscale.engine.config.Setting;

import java.time.Duration;
import java.util.List;

/** Every tunable of the metrics capability; read into a {@link MetricsConfig} with {@link MetricsConfig#from}. */
public final class MetricsSettings {

    private MetricsSettings() {
    }

    public static final Setting<Boolean> PROMETHEUS_ENABLED = Setting.ofBoolean("mucscale.metrics.prometheus-enabled",
            false, true, "Serves the Prometheus text endpoint (admins only unless a token or address list opens it).");

    public static final Setting<String> PROMETHEUS_TOKEN = Setting.ofSecret("mucscale.metrics.prometheus-token",
            true, "When set, a scrape carrying 'Authorization: Bearer <token>' is allowed without an admin login.",
            MetricsSettings::checkToken);

    public static final Setting<String> PROMETHEUS_ALLOWED_ADDRESSES = Setting.ofString(
            "mucscale.metrics.prometheus-allowed-addresses", "", true,
            "Comma-separated IP addresses allowed to scrape without an admin login or token; empty allows none.",
            MetricsSettings::checkAddressList);

    public static final Setting<Boolean> JMX_ENABLED = Setting.ofBoolean("mucscale.metrics.jmx-enabled", true, false,
            "Publishes all metrics as MBeans in the JMX domain org.mucscale.");

    public static final Setting<Boolean> HTTP_ENABLED = Setting.ofBoolean("mucscale.metrics.http-enabled", true, false,
            "Standalone mode only: serves the dashboard, its JSON and the Prometheus endpoint over HTTP.");

    public static final Setting<String> HTTP_BIND_ADDRESS = Setting.ofString("mucscale.metrics.http-bind-address",
            "127.0.0.1", false, "Standalone mode only: the address the metrics HTTP server listens on.",
            MetricsSettings::checkAddress);

    public static final Setting<Integer> HTTP_PORT = Setting.ofInt("mucscale.metrics.http-port", 9779, 0, 65535, false,
            "Standalone mode only: the port of the metrics HTTP server (0 picks a free one).");

    public static final Setting<String> HTTP_ALLOWED_ADDRESSES = Setting.ofString(
            "mucscale.metrics.http-allowed-addresses", "127.0.0.1,::1", true,
            "Standalone mode only: comma-separated client IP addresses allowed to open the dashboard and its data.",
            MetricsSettings::checkAddressList);

    public static final Setting<String> HTTP_TOKEN = Setting.ofSecret("mucscale.metrics.http-token", true,
            "Standalone mode only: when set, every request must also carry it as a Bearer token or Basic password.",
            MetricsSettings::checkToken);

    public static final Setting<Boolean> PROBE_ENABLED = Setting.ofBoolean("mucscale.metrics.probe-enabled", true,
            false, "Sends stamped messages through the real delivery path and measures send-to-receive latency.");

    public static final Setting<Duration> PROBE_INTERVAL = Setting.ofDuration("mucscale.metrics.probe-interval",
            Duration.ofSeconds(5), Duration.ofMillis(100), Duration.ofMinutes(10), false,
            "How often the end-to-end probe sends a stamped message into each probe room.");

    public static final Setting<String> PROBE_ROOMS = Setting.ofString("mucscale.metrics.probe-rooms", "", false,
            "Comma-separated rooms the probe also sends into, besides its own probe room.",
            MetricsSettings::checkRoomList);

    public static final Setting<Duration> SAMPLE_INTERVAL = Setting.ofDuration("mucscale.metrics.sample-interval",
            Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofSeconds(60), false,
            "How often the dashboard's one-hour time series takes a sample.");

    public static final Setting<Duration> WINDOW = Setting.ofDuration("mucscale.metrics.window",
            Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofMinutes(15), false,
            "Time window of the percentiles exported to JMX and Prometheus.");

    public static final Setting<Integer> TOP_ROOMS = Setting.ofInt("mucscale.metrics.top-rooms", 10, 1, 100, false,
            "How many rooms the dashboard lists by traffic (four times as many are tracked).");

    public static final List<Setting<?>> ALL = List.of(PROMETHEUS_ENABLED, PROMETHEUS_TOKEN,
            PROMETHEUS_ALLOWED_ADDRESSES, JMX_ENABLED, HTTP_ENABLED, HTTP_BIND_ADDRESS, HTTP_PORT,
            HTTP_ALLOWED_ADDRESSES, HTTP_TOKEN, PROBE_ENABLED, PROBE_INTERVAL, PROBE_ROOMS, SAMPLE_INTERVAL, WINDOW,
            TOP_ROOMS);

    private static String checkToken(String value) {
        String rule = "empty or 16 to 256 visible ASCII characters";
        if (value == null) {
            return rule;
        }
        if (value.isEmpty()) {
            return null;
        }
        if (value.length() < 16 || value.length() > 256) {
            return rule;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c <= ' ' || c > '~') {
                return rule;
            }
        }
        return null;
    }

    private static String checkAddress(String value) {
        String rule = "an IPv4 or IPv6 address literal";
        if (value == null || !AddressList.isIpLiteral(value.trim())) {
            return rule;
        }
        return null;
    }

    private static String checkAddressList(String value) {
        String rule = "a comma-separated list of IPv4 or IPv6 address literals";
        if (value == null) {
            return rule;
        }
        try {
            AddressList.parse(value);
            return null;
        } catch (IllegalArgumentException e) {
            return rule;
        }
    }

    private static String checkRoomList(String value) {
        String rule = "a comma-separated list of room addresses without spaces";
        if (value == null) {
            return rule;
        }
        if (value.isBlank()) {
            return null;
        }
        for (String room : AddressList.splitComma(value)) {
            if (room.isEmpty() || room.indexOf(' ') >= 0 || room.length() > 1023) {
                return rule;
            }
        }
        return null;
    }
}
