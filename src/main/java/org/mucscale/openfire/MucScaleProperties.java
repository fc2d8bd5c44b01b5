package org.mucscale.openfire;

import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.jivesoftware.util.JiveGlobals;
import org.jivesoftware.util.PropertyEventDispatcher;
import org.jivesoftware.util.PropertyEventListener;
import org.jivesoftware.util.SystemProperty;
import org.mucscale.engine.config.Setting;
import org.mucscale.engine.config.Settings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every engine {@link Setting} as an Openfire {@link SystemProperty} (typed, bounded, honest about being dynamic,
 * described from {@code system_property.<key>} in {@code i18n/mucscale_i18n.properties}), and the validated
 * {@link Settings} snapshot the engine runs with.
 *
 * <p>Openfire's own {@code SystemProperty} answers an out-of-range value with its default (and a WARN), which would
 * silently change a running engine. So changes are taken from the stored text instead, through one
 * {@link PropertyEventListener}: {@link SettingsState} validates them, an invalid value is refused with a log line
 * naming key, value and allowed range, and the stored text is put back to the previous valid one so the admin console
 * shows what is really in force.
 *
 * <p>Secrets ({@link Setting#secret()}, e.g. the Prometheus token) are registered as encrypted properties: Openfire
 * stores them encrypted in {@code ofProperty} (encrypting a value stored in clear before) and its System Properties
 * page hides them. A value saved in clear later (the page's "encrypt: no", {@code JiveGlobals.setProperty(k, v)}) is
 * encrypted again at once, and log lines show {@value Setting#HIDDEN} instead of the value.
 *
 * <p>Concurrency: property events arrive synchronously on whichever thread set the property; {@link SettingsState}
 * serializes them. Readers use {@link #current()}, a volatile immutable snapshot.
 */
public final class MucScaleProperties implements AutoCloseable {

    /** Exactly plugin.xml's {@code <name>}: Openfire removes properties of this plugin name on unload. */
    public static final String PLUGIN_NAME = "MUC Scale";

    private static final Logger LOG = LoggerFactory.getLogger(MucScaleProperties.class);
    private static final String PREFIX = "mucscale.";

    private final SettingsState state;
    private final List<SystemProperty<?>> properties = new ArrayList<>();
    private final Listener listener = new Listener();
    /** Set while we put a refused value back, so the echo event is not reported as a change. */
    private volatile String restoring;
    private boolean closed;

    private MucScaleProperties(SettingsState state) {
        this.state = state;
    }

    /**
     * Registers one system property per setting that applies inside Openfire and starts listening for changes. The
     * snapshot holds the whole catalog (standalone-only settings at their defaults), as the engine expects. On failure, whatever was
     * registered is removed again before the exception propagates.
     */
    public static MucScaleProperties register(Collection<Setting<?>> catalog) {
        SettingsState state = SettingsState.load(catalog, JiveGlobals::getProperty,
                (key, e) -> LOG.error("A MUC Scale component failed to apply the new value of {}", key, e));
        for (String problem : state.loadProblems()) {
            LOG.warn(problem);
        }
        MucScaleProperties p = new MucScaleProperties(state);
        try {
            for (Setting<?> s : catalog) {
                if (SettingsCatalog.appliesToOpenfire(s)) {
                    p.properties.add(build(s));
                }
            }
            PropertyEventDispatcher.addListener(p.listener);
        } catch (RuntimeException | Error e) {
            p.close();
            throw e;
        }
        return p;
    }

    /** The validated snapshot in force. */
    public Settings current() {
        return state.current();
    }

    /** Tells {@code subscriber} about every applied change of a dynamic setting until the handle is closed. */
    public AutoCloseable subscribe(Consumer<Settings> subscriber) {
        return state.subscribe(subscriber);
    }

    /** Number of system properties registered (one per setting that applies inside Openfire). */
    public int propertyCount() {
        return properties.size();
    }

    /** Stops listening and removes the property definitions (stored values stay). Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        PropertyEventDispatcher.removeListener(listener);
        // Openfire also does this after destroyPlugin; doing it here makes a failed initialize retryable.
        SystemProperty.removePropertiesForPlugin(PLUGIN_NAME);
        properties.clear();
    }

    /**
     * Enum settings are registered as text: Openfire's admin pages keep the property values they last rendered (Jasper
     * pools the JSTL forEach tag together with its items), and a value of one of our enum classes there would pin the
     * plugin's class loader after an unload (seen with a heap dump of a real Openfire 5.1.1). Every value, enum or not,
     * is validated by {@link Setting#parse} anyway.
     */
    private static SystemProperty<?> build(Setting<?> s) {
        if (s.kind() == Setting.Kind.ENUM) {
            return SystemProperty.Builder.ofType(String.class)
                    .setKey(s.key())
                    .setPlugin(PLUGIN_NAME)
                    .setDynamic(s.dynamic())
                    .setDefaultValue(((Enum<?>) s.defaultValue()).name())
                    .setEncrypted(s.secret())
                    .build();
        }
        return buildTyped(s);
    }

    private static <T> SystemProperty<T> buildTyped(Setting<T> s) {
        SystemProperty.Builder<T> b = SystemProperty.Builder.ofType(s.type())
                .setKey(s.key())
                .setPlugin(PLUGIN_NAME)
                .setDynamic(s.dynamic())
                .setDefaultValue(s.defaultValue())
                .setEncrypted(s.secret());
        if (s.min() != null) {
            b.setMinValue(s.min());
        }
        if (s.max() != null) {
            b.setMaxValue(s.max());
        }
        if (s.kind() == Setting.Kind.DURATION) {
            // Setting stores durations as milliseconds; the admin console shows them as "1 second" etc.
            b.setChronoUnit(ChronoUnit.MILLIS);
        }
        return b.build();
    }

    private void onStoredValue(String key, String text) {
        if (!key.startsWith(PREFIX) || !state.knows(key)) {
            return;
        }
        if (key.equals(restoring)) {
            return;
        }
        SettingsState.Change change = state.apply(key, text);
        switch (change.outcome()) {
            case APPLIED, NEEDS_RELOAD -> LOG.info(change.message());
            case REFUSED -> {
                LOG.warn(change.message());
                restore(key, change.restoreText());
                return;
            }
            default -> {
            }
        }
        if (text != null && isSecret(key) && !JiveGlobals.isPropertyEncrypted(key)) {
            restoring = key;
            try {
                JiveGlobals.setPropertyEncrypted(key, true);
            } finally {
                restoring = null;
            }
        }
    }

    private boolean isSecret(String key) {
        Setting<?> s = state.current().setting(key);
        return s != null && s.secret();
    }

    private void restore(String key, String previousText) {
        restoring = key;
        try {
            if (previousText == null) {
                JiveGlobals.deleteProperty(key);
            } else {
                JiveGlobals.setProperty(key, previousText, isSecret(key));
            }
        } finally {
            restoring = null;
        }
    }

    private final class Listener implements PropertyEventListener {
        @Override
        public void propertySet(String property, Map<String, Object> params) {
            if (property.startsWith(PREFIX)) {
                Object value = params == null ? null : params.get("value");
                onStoredValue(property, value instanceof String s ? s : JiveGlobals.getProperty(property));
            }
        }

        @Override
        public void propertyDeleted(String property, Map<String, Object> params) {
            if (property.startsWith(PREFIX)) {
                onStoredValue(property, null);
            }
        }

        @Override
        public void xmlPropertySet(String property, Map<String, Object> params) {
            // mucscale settings are database properties only
        }

        @Override
        public void xmlPropertyDeleted(String property, Map<String, Object> params) {
            // mucscale settings are database properties only
        }
    }
}
