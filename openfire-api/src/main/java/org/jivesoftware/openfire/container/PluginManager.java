package org.jivesoftware.openfire.container;

import java.nio.file.Path;
import java.util.Optional;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.container.PluginManager} (members mucscale uses). */
public class PluginManager {

    public PluginManager(Path pluginDir) {
        throw new UnsupportedOperationException("compile-only declaration");
    }

    public synchronized boolean isLoaded(final String canonicalName) { return false; }

    public synchronized String getCanonicalName(Plugin plugin) { return null; }

    public synchronized Optional<Plugin> getPluginByCanonicalName(String canonicalName) { return Optional.empty(); }

    public synchronized Path getPluginPath(Plugin plugin) { return null; }
}
