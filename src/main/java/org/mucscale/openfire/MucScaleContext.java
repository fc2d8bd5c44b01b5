package org.mucscale.openfire;

/**
 * What the plugin's servlets (instantiated by Openfire from web/WEB-INF/web.xml, not by us) need from the running
 * plugin. Lives in the plugin's class loader, so it disappears with it; {@link #install} returns the handle that
 * clears it in destroyPlugin so a servlet request during unload sees "not running" instead of stale objects.
 *
 * <p>Concurrency: written by the plugin-monitor thread at start and stop, read by servlet threads (volatile).
 */
public final class MucScaleContext {

    private static volatile MucScaleContext current;

    private final MucScaleProperties properties;

    private MucScaleContext(MucScaleProperties properties) {
        this.properties = properties;
    }

    static AutoCloseable install(MucScaleProperties properties) {
        MucScaleContext context = new MucScaleContext(properties);
        current = context;
        return () -> {
            if (current == context) {
                current = null;
            }
        };
    }

    /** The running plugin's context, or null when the plugin is not running. */
    public static MucScaleContext current() {
        return current;
    }

    public MucScaleProperties properties() {
        return properties;
    }
}
