package org.mucscale.engine.runtime.admin;

import java.util.List;

import org.mucscale.engine.config.Setting;
import org.mucscale.engine.metrics.AddressList;

/** Settings of the room-administration HTTP API ({@code /plugins/mucscale/v1/}), all applied at once. */
public final class AdminApiSettings {
    private AdminApiSettings() {
    }

    public static final Setting<Boolean> API_ENABLED = Setting.ofBoolean("mucscale.admin.api-enabled", false, true,
            "Serves the room administration HTTP API at /plugins/mucscale/v1/ (off: every call is refused with 403).");

    public static final Setting<String> API_SECRET = Setting.ofSecret("mucscale.admin.api-secret", true,
            "Shared secret a caller sends as 'Authorization: <secret>' (or as a Bearer token); empty: inside Openfire"
                    + " only admin credentials are accepted, standalone nobody is.", AdminApiSettings::checkSecret);

    public static final Setting<String> API_ALLOWED_ADDRESSES = Setting.ofString(
            "mucscale.admin.api-allowed-addresses", "", true,
            "Comma-separated client IP addresses allowed to call the room administration API; empty allows any"
                    + " address that authenticates.", AdminApiSettings::checkAddressList);

    public static final Setting<Integer> API_MAX_BODY_BYTES = Setting.ofInt("mucscale.admin.api-max-body-bytes",
            1_048_576, 1024, 67_108_864, true,
            "Largest request body the room administration API reads; a larger one is refused with 413.");

    public static final Setting<Integer> API_REQUESTS_PER_SECOND = Setting.ofInt(
            "mucscale.admin.api-requests-per-second", 100, 0, 100_000, true,
            "Requests one client address may make per second (bursts of twice that); beyond it the API answers 429"
                    + " with Retry-After. Counted before authentication, so guessing the secret is slow too. 0: no"
                    + " limit.");

    public static final List<Setting<?>> ALL = List.of(API_ENABLED, API_SECRET, API_ALLOWED_ADDRESSES,
            API_MAX_BODY_BYTES, API_REQUESTS_PER_SECOND);

    private static String checkSecret(String value) {
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
}
