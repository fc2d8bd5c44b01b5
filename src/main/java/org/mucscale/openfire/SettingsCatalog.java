package org.mucscale.openfire;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mucscale.engine.config.Setting;
import org.mucscale.engine.config.Settings;

/**
 * The full list of settings the plugin exposes as Openfire system properties: the engine's catalog plus the
 * adapter's own {@link OpenfireSettings}.
 *
 * <p>The engine's catalog is {@code org.mucscale.engine.runtime.MucScaleSettings.catalog()}. It is looked up by name
 * so the adapter keeps compiling and loading while the engine modules evolve; when it is absent, every capability's
 * {@code <Capability>Settings.ALL} list that exists on the class path is used instead. Keys are unique: a key declared
 * twice is refused here, before any property is registered.
 */
public final class SettingsCatalog {
    private SettingsCatalog() {
    }

    static final String RUNTIME_CATALOG = "org.mucscale.engine.runtime.MucScaleSettings";

    /** Capability settings classes used when the runtime catalog is not there (order = README order). */
    static final List<String> CAPABILITY_LISTS = List.of(
            "org.mucscale.engine.muc.MucSettings",
            "org.mucscale.engine.filter.FilterSettings",
            "org.mucscale.engine.store.StoreSettings",
            "org.mucscale.engine.metrics.MetricsSettings",
            "org.mucscale.engine.cluster.ClusterSettings",
            "org.mucscale.engine.runtime.RuntimeSettings");

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
        return all(SettingsCatalog.class.getClassLoader());
    }

    static List<Setting<?>> all(ClassLoader loader) {
        Map<String, Setting<?>> byKey = new LinkedHashMap<>();
        List<Setting<?>> engine = fromRuntime(loader);
        if (engine == null) {
            engine = new ArrayList<>();
            for (String name : CAPABILITY_LISTS) {
                engine.addAll(fromAllField(loader, name));
            }
        }
        for (Setting<?> s : engine) {
            add(byKey, s);
        }
        for (Setting<?> s : OpenfireSettings.ALL) {
            if (byKey.get(s.key()) != s) {
                add(byKey, s);
            }
        }
        return List.copyOf(byKey.values());
    }

    private static void add(Map<String, Setting<?>> byKey, Setting<?> s) {
        Setting<?> before = byKey.putIfAbsent(s.key(), s);
        if (before != null && before != s) {
            throw new IllegalStateException("setting declared twice: " + s.key());
        }
    }

    private static List<Setting<?>> fromRuntime(ClassLoader loader) {
        Class<?> c = load(loader, RUNTIME_CATALOG);
        if (c == null) {
            return null;
        }
        try {
            Method m = c.getMethod("catalog");
            return settingsOf(m.invoke(null), RUNTIME_CATALOG + ".catalog()");
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(RUNTIME_CATALOG + ".catalog() could not be read", e);
        }
    }

    private static List<Setting<?>> fromAllField(ClassLoader loader, String className) {
        Class<?> c = load(loader, className);
        if (c == null) {
            return List.of();
        }
        try {
            Field f = c.getField("ALL");
            if (!Modifier.isStatic(f.getModifiers())) {
                throw new IllegalStateException(className + ".ALL is not static");
            }
            return settingsOf(f.get(null), className + ".ALL");
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(className + ".ALL could not be read", e);
        }
    }

    private static List<Setting<?>> settingsOf(Object value, String source) {
        Collection<?> items;
        if (value instanceof Settings s) {
            items = s.settings();
        } else if (value instanceof Collection<?> c) {
            items = c;
        } else {
            throw new IllegalStateException(source + " is neither a collection of Setting nor a Settings");
        }
        List<Setting<?>> out = new ArrayList<>(items.size());
        for (Object o : items) {
            if (!(o instanceof Setting<?> s)) {
                throw new IllegalStateException(source + " contains a " + (o == null ? "null" : o.getClass().getName()));
            }
            out.add(s);
        }
        return out;
    }

    private static Class<?> load(ClassLoader loader, String name) {
        try {
            return Class.forName(name, true, loader);
        } catch (ClassNotFoundException e) {
            return null;
        }
    }
}
