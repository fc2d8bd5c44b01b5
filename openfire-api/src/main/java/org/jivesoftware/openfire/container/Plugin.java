package org.jivesoftware.openfire.container;

import java.io.File;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.container.Plugin}. */
public interface Plugin {
    void initializePlugin(PluginManager manager, File pluginDirectory);

    void destroyPlugin();
}
