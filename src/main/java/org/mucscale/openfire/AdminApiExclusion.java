package org.mucscale.openfire;

import org.jivesoftware.admin.AuthCheckFilter;
import org.jivesoftware.util.JiveGlobals;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.runtime.admin.AdminApiSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes {@code /plugins/mucscale/v1/*} out of Openfire's admin-console login while the plugin runs, as Openfire's
 * REST API plugin does for its path: the room-administration API checks its callers itself ({@link AdminApiFilter}),
 * and while it is off it answers 403 saying so instead of a redirect to the login page.
 *
 * <p>Openfire honours an exclude ending in {@code *} only when {@code adminConsole.access.allow-wildcards-in-excludes}
 * is true (default false; the REST API plugin asks its users to set it too). Without it every API call is redirected
 * to the login page, so {@link #apply} says so in the log, once each time the API is enabled while it is false.
 *
 * <p>Concurrency: {@link #apply} runs on the property-event thread (and once on the plugin-monitor thread at start),
 * {@link #close} on the plugin-monitor thread; both are synchronized (configuration path only).
 */
final class AdminApiExclusion implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AdminApiExclusion.class);

    /** AuthCheckFilter matches excludes against the request path without its leading "/plugins/". */
    static final String PATH = "mucscale/v1/*";
    static final String WILDCARDS_PROPERTY = "adminConsole.access.allow-wildcards-in-excludes";

    private boolean excluded;
    private boolean warned;

    synchronized void apply(Settings s) {
        if (!excluded) {
            AuthCheckFilter.addExclude(PATH);
            excluded = true;
        }
        boolean enabled = s.get(AdminApiSettings.API_ENABLED);
        boolean wildcards = Boolean.parseBoolean(JiveGlobals.getProperty(WILDCARDS_PROPERTY, "false"));
        if (enabled && !wildcards && !warned) {
            LOG.warn("MUC Scale room administration API is enabled, but Openfire's {} is false: Openfire will send"
                    + " every call to /plugins/mucscale/v1/ to its login page. Set {}=true to serve the API"
                    + " (the REST API plugin needs the same).", WILDCARDS_PROPERTY, WILDCARDS_PROPERTY);
            warned = true;
        } else if (!enabled || wildcards) {
            warned = false;
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
