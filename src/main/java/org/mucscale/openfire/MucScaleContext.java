package org.mucscale.openfire;

import org.mucscale.engine.config.Settings;
import org.mucscale.engine.metrics.MucScaleMetrics;
import org.mucscale.engine.runtime.MucScaleEngine;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

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
    private final Supplier<MucScaleMetrics> metrics;
    private final BooleanSupplier probe;
    private final Supplier<MucScaleEngine> engine;

    private MucScaleContext(MucScaleProperties properties, Supplier<MucScaleMetrics> metrics, BooleanSupplier probe,
                            Supplier<MucScaleEngine> engine) {
        this.properties = properties;
        this.metrics = metrics;
        this.probe = probe;
        this.engine = engine;
    }

    /** Publishes the running plugin's parts to the servlets; the handle withdraws them. */
    static AutoCloseable install(MucScaleProperties properties, Supplier<MucScaleMetrics> metrics, BooleanSupplier probe,
                                 Supplier<MucScaleEngine> engine) {
        MucScaleContext context = new MucScaleContext(properties, metrics, probe, engine);
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

    /** The validated settings in force. */
    public Settings settings() {
        return properties.current();
    }

    /** The engine's metrics, or null when the engine is not running. */
    public MucScaleMetrics metrics() {
        return metrics.get();
    }

    /** The running engine (the review queue's admin page). */
    public MucScaleEngine engine() {
        return engine.get();
    }

    /** Sends one probe message now; false when the probe is off (mucscale.metrics.probe-enabled). */
    public boolean probeNow() {
        return probe.getAsBoolean();
    }
}
