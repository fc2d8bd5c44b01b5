package org.mucscale.engine.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An immutable, validated set of values for a catalog of {@link Setting}s. Built once (from Openfire properties or
 * the standalone config file), handed to the engine, and replaced as a whole when a dynamic setting changes, so a
 * reader never sees a half-applied change.
 */
public final class Settings {

    private final Map<String, Setting<?>> catalog;
    private final Map<Setting<?>, Object> values;

    private Settings(Map<String, Setting<?>> catalog, Map<Setting<?>, Object> values) {
        this.catalog = catalog;
        this.values = values;
    }

    /** Every setting at its default. Keys must be unique. */
    public static Settings defaults(Collection<Setting<?>> settings) {
        Map<String, Setting<?>> catalog = new LinkedHashMap<>();
        Map<Setting<?>, Object> values = new LinkedHashMap<>();
        for (Setting<?> s : settings) {
            if (catalog.put(s.key(), s) != null) {
                throw new IllegalArgumentException("setting declared twice: " + s.key());
            }
            values.put(s, s.defaultValue());
        }
        return new Settings(Collections.unmodifiableMap(catalog), Collections.unmodifiableMap(values));
    }

    /**
     * Reads text values (keys not in the catalog are refused, so a typo is not silently ignored); missing keys keep
     * their defaults. All problems are reported together in one {@link InvalidSettingException}.
     */
    public static Settings fromText(Collection<Setting<?>> settings, Map<String, String> text) {
        Settings base = defaults(settings);
        Map<Setting<?>, Object> values = new LinkedHashMap<>(base.values);
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, String> e : text.entrySet()) {
            Setting<?> s = base.catalog.get(e.getKey());
            if (s == null) {
                if (e.getKey().startsWith("mucscale.")) {
                    problems.add(e.getKey() + " is not a known setting");
                }
                continue;
            }
            try {
                values.put(s, s.parse(e.getValue()));
            } catch (InvalidSettingException ex) {
                problems.addAll(ex.problems());
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidSettingException(problems);
        }
        return new Settings(base.catalog, Collections.unmodifiableMap(values));
    }

    @SuppressWarnings("unchecked")
    public <T> T get(Setting<T> setting) {
        Object v = values.get(setting);
        if (v == null) {
            throw new IllegalArgumentException(setting.key() + " is not in this catalog");
        }
        return (T) v;
    }

    /** A copy with one value changed; the value is validated first. */
    public <T> Settings with(Setting<T> setting, T value) {
        if (!values.containsKey(setting)) {
            throw new IllegalArgumentException(setting.key() + " is not in this catalog");
        }
        setting.validate(value);
        Map<Setting<?>, Object> copy = new LinkedHashMap<>(values);
        copy.put(setting, value);
        return new Settings(catalog, Collections.unmodifiableMap(copy));
    }

    /** A copy with one value changed from text. */
    public Settings withText(String key, String text) {
        Setting<?> s = catalog.get(key);
        if (s == null) {
            throw new InvalidSettingException(key + " is not a known setting");
        }
        return withParsed(s, text);
    }

    private <T> Settings withParsed(Setting<T> s, String text) {
        return with(s, s.parse(text));
    }

    /** The catalog, in declaration order. */
    public Collection<Setting<?>> settings() {
        return catalog.values();
    }

    public Setting<?> setting(String key) {
        return catalog.get(key);
    }

    /** Every key with its value as {@link Setting#display} shows it (secrets hidden). */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Settings{");
        values.forEach((k, v) -> sb.append(k.key()).append('=').append(displayed(k, v)).append(", "));
        return sb.append('}').toString();
    }

    @SuppressWarnings("unchecked")
    private static <T> String displayed(Setting<T> setting, Object value) {
        return setting.display((T) value);
    }
}
