package org.mucscale.openfire;

import java.io.File;
import java.util.List;
import org.jivesoftware.openfire.container.Plugin;
import org.jivesoftware.openfire.container.PluginManager;
import org.mucscale.engine.config.Setting;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Openfire entry point. {@link #initializePlugin} wires the capabilities, pushing every registration with
 * Openfire onto a {@link Registrations} stack; {@link #destroyPlugin} releases them in reverse order, each in its own
 * try, so a reload or removal leaves no thread, listener, interceptor, component, servlet state or property
 * definition of ours behind. If initialization fails halfway, what was registered so far is released before the
 * exception reaches Openfire (which would otherwise retry on top of our leftovers).
 *
 * <p>Concurrency: Openfire calls initialize and destroy on its plugin-monitor thread, one at a time.
 */
public final class MucScalePlugin implements Plugin {

    private static final Logger LOG = LoggerFactory.getLogger(MucScalePlugin.class);

    private final Registrations registrations = new Registrations(
            (what, e) -> LOG.error("MUC Scale could not release {}", what, e));
    private volatile MucScaleProperties properties;

    @Override
    public void initializePlugin(PluginManager manager, File pluginDirectory) {
        long startNs = System.nanoTime();
        try {
            List<Setting<?>> catalog = SettingsCatalog.all();
            properties = registrations.push("system properties", MucScaleProperties.register(catalog));
            registrations.onClose("plugin context", MucScaleContext.install(properties));
        } catch (RuntimeException | Error e) {
            LOG.error("MUC Scale failed to start; releasing what was registered", e);
            registrations.closeAll();
            properties = null;
            throw e;
        }
        LOG.info("MUC Scale started in {} ms with {} settings", (System.nanoTime() - startNs) / 1_000_000,
                properties.propertyCount());
    }

    @Override
    public void destroyPlugin() {
        List<String> failed = registrations.closeAll();
        properties = null;
        if (failed.isEmpty()) {
            LOG.info("MUC Scale stopped");
        } else {
            LOG.error("MUC Scale stopped, but could not release: {}", failed);
        }
    }

    /** The settings in force, or null while the plugin is not initialized. */
    MucScaleProperties properties() {
        return properties;
    }
}
