package org.mucscale.openfire;

import org.jivesoftware.admin.AuthCheckFilter;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.metrics.MetricsSettings;

/**
 * Keeps {@code /plugins/mucscale/metrics} inside or outside Openfire's admin login: outside only while the Prometheus
 * endpoint is enabled and a token or an address list is configured (the servlet then checks them itself). Closing
 * puts the path back behind the login.
 *
 * <p>Concurrency: {@link #apply} runs on the property-event thread, {@link #close} on the plugin-monitor thread;
 * both are synchronized (configuration path only).
 */
final class PrometheusExclusion implements AutoCloseable {

    /** AuthCheckFilter matches excludes against the request path without its leading "/plugins/". */
    static final String PATH = "mucscale/metrics";

    private boolean excluded;

    synchronized void apply(Settings s) {
        boolean open = s.get(MetricsSettings.PROMETHEUS_ENABLED)
                && (!s.get(MetricsSettings.PROMETHEUS_TOKEN).isEmpty()
                || !s.get(MetricsSettings.PROMETHEUS_ALLOWED_ADDRESSES).isBlank());
        if (open && !excluded) {
            AuthCheckFilter.addExclude(PATH);
            excluded = true;
        } else if (!open && excluded) {
            AuthCheckFilter.removeExclude(PATH);
            excluded = false;
        }
    }

    @Override
    public synchronized void close() {
        if (excluded) {
            AuthCheckFilter.removeExclude(PATH);
            excluded = false;
        }
    }
}
