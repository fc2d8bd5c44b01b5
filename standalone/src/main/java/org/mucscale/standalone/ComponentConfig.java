package org.mucscale.standalone;

import java.time.Duration;
import org.mucscale.engine.config.InvalidSettingException;
import org.mucscale.engine.config.Settings;
import org.mucscale.standalone.StandaloneSettings.WriteQueueOverflow;

/** The XEP-0114 connection's typed, validated configuration, read once from a {@link Settings} snapshot. */
public record ComponentConfig(String serverHost, int serverPort, String domain, String secret,
                              Duration connectTimeout, Duration handshakeTimeout, Duration keepaliveInterval,
                              Duration reconnectInitialDelay, Duration reconnectMaxDelay, int maxStanzaBytes,
                              long writeQueueMaxBytes, WriteQueueOverflow writeQueueOverflow,
                              long writeQueueHighWaterBytes, Duration writeQueueMaxWait) {

    public static ComponentConfig from(Settings s) {
        String secret = s.get(StandaloneSettings.COMPONENT_SECRET);
        if (secret.isEmpty()) {
            throw new InvalidSettingException(StandaloneSettings.COMPONENT_SECRET.key()
                    + " must be set to the secret the XMPP server has for the component, was ''");
        }
        Duration initial = s.get(StandaloneSettings.RECONNECT_INITIAL_DELAY);
        Duration max = s.get(StandaloneSettings.RECONNECT_MAX_DELAY);
        if (max.compareTo(initial) < 0) {
            throw new InvalidSettingException(StandaloneSettings.RECONNECT_MAX_DELAY.key() + " must be at least "
                    + StandaloneSettings.RECONNECT_INITIAL_DELAY.key() + " (" + initial.toMillis() + "), was "
                    + max.toMillis());
        }
        long maxBytes = s.get(StandaloneSettings.WRITE_QUEUE_MAX_BYTES);
        long highWater = s.get(StandaloneSettings.WRITE_QUEUE_HIGH_WATER_BYTES);
        if (highWater == 0) {
            highWater = maxBytes / 4;
        } else if (highWater >= maxBytes) {
            throw new InvalidSettingException(StandaloneSettings.WRITE_QUEUE_HIGH_WATER_BYTES.key() + " must be below "
                    + StandaloneSettings.WRITE_QUEUE_MAX_BYTES.key() + " (" + maxBytes + "), was " + highWater);
        }
        return new ComponentConfig(s.get(StandaloneSettings.SERVER_HOST).trim(), s.get(StandaloneSettings.SERVER_PORT),
                s.get(StandaloneSettings.COMPONENT_DOMAIN).toLowerCase(java.util.Locale.ROOT), secret,
                s.get(StandaloneSettings.CONNECT_TIMEOUT), s.get(StandaloneSettings.HANDSHAKE_TIMEOUT),
                s.get(StandaloneSettings.KEEPALIVE_INTERVAL), initial, max, s.get(StandaloneSettings.MAX_STANZA_BYTES),
                maxBytes, s.get(StandaloneSettings.WRITE_QUEUE_OVERFLOW), highWater,
                s.get(StandaloneSettings.WRITE_QUEUE_MAX_WAIT));
    }

    @Override
    public String toString() {
        // never the secret
        return "ComponentConfig{" + domain + " -> " + serverHost + ":" + serverPort + "}";
    }
}
