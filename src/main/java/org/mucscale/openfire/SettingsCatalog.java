package org.mucscale.openfire;

import java.util.List;
import org.mucscale.engine.config.Setting;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.runtime.MucScaleSettings;

/**
 * The full list of settings the plugin exposes as Openfire system properties: the engine's catalog
 * ({@link MucScaleSettings#catalog()}) plus the adapter's own {@link OpenfireSettings}. Keys are unique: a key declared
 * twice is refused here, before any property is registered.
 */
public final class SettingsCatalog {
    private SettingsCatalog() {
    }

    /**
     * Key prefixes of settings that only the standalone runner uses: inside Openfire the room log uses Openfire's own
     * connection pool and the dashboard is served by the admin console, so these stay at their defaults and are not
     * shown as Openfire system properties (an admin could otherwise set a JDBC password that nothing reads).
     */
    static final List<String> STANDALONE_ONLY_PREFIXES = List.of(
            "mucscale.store.jdbc-", "mucscale.store.pool-size", "mucscale.metrics.http-", "mucscale.standalone.");

    /** True when {@code setting} means something inside Openfire (and so becomes a system property). */
    public static boolean appliesToOpenfire(Setting<?> setting) {
        for (String prefix : STANDALONE_ONLY_PREFIXES) {
            if (setting.key().startsWith(prefix)) {
                return false;
            }
        }
        return true;
    }

    /** The settings shown as Openfire system properties: {@link #all()} without the standalone-only ones. */
    public static List<Setting<?>> openfireProperties() {
        return all().stream().filter(SettingsCatalog::appliesToOpenfire).toList();
    }

    /** Engine catalog + adapter settings, in declaration order, keys unique. */
    public static List<Setting<?>> all() {
        List<Setting<?>> all = MucScaleSettings.catalogWith(OpenfireSettings.ALL);
        Settings.defaults(all); // refuses a key declared twice
        return all;
    }
}
