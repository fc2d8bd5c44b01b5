package org.mucscale.engine.runtime;

import java.util.ArrayList;
import java.util.List;
import org.mucscale.engine.cluster.ClusterSettings;
import org.mucscale.engine.config.Setting;
import org.mucscale.engine.filter.FilterSettings;
import org.mucscale.engine.metrics.MetricsSettings;
import org.mucscale.engine.muc.MucSettings;
import org.mucscale.engine.runtime.admin.AdminApiSettings;
import org.mucscale.engine.store.StoreSettings;

/**
 * Every engine setting, in the order operators read them: MUC service, content filter, room log store, metrics.
 * Hosts add their own ({@code mucscale.standalone.*}, {@code mucscale.openfire.*}) to this catalog; the README's
 * property table and the plugin's i18n descriptions are checked against it by tests.
 */
public final class MucScaleSettings {
    private MucScaleSettings() {
    }

    public static List<Setting<?>> catalog() {
        List<Setting<?>> all = new ArrayList<>();
        all.addAll(MucSettings.ALL);
        all.addAll(FilterSettings.ALL);
        all.addAll(StoreSettings.ALL);
        all.addAll(MetricsSettings.ALL);
        all.addAll(ClusterSettings.ALL);
        all.addAll(AdminApiSettings.ALL);
        return List.copyOf(all);
    }

    /** The engine catalog plus a host's own settings. */
    public static List<Setting<?>> catalogWith(List<Setting<?>> hostSettings) {
        List<Setting<?>> all = new ArrayList<>(catalog());
        all.addAll(hostSettings);
        return List.copyOf(all);
    }
}
