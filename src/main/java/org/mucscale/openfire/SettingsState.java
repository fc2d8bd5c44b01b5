package org.mucscale.openfire;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import org.mucscale.engine.config.InvalidSettingException;
import org.mucscale.engine.config.Setting;
import org.mucscale.engine.config.Settings;

/**
 * The validated settings the engine runs with, and the rules for changing them from text (as Openfire stores
 * properties). Knows nothing of Openfire, so it is tested directly.
 *
 * <ul>
 *   <li>An invalid value is refused: the snapshot keeps the previous value, and the change names the key, the value
 *       given and the allowed range, plus the text to restore.</li>
 *   <li>A valid change to a dynamic setting swaps in a new immutable snapshot and tells every subscriber.</li>
 *   <li>A valid change to a non-dynamic setting is remembered but not applied: it takes effect when the plugin is
 *       reloaded (the engine was built with the old value).</li>
 * </ul>
 *
 * <p>Concurrency: writers are Openfire's property-event threads (an admin saving a property, a cluster update);
 * {@link #apply} is {@code synchronized} so changes are applied one at a time. Readers (the engine, hot paths) read
 * the volatile {@link #current()} snapshot without locking and never see a half-applied change.
 */
public final class SettingsState {

    public enum Outcome {
        /** The snapshot now holds the new value; subscribers were told. */
        APPLIED,
        /** The value equals what is in force; nothing to do. */
        UNCHANGED,
        /** Invalid: the previous value stays; {@link Change#restoreText()} is the text to put back. */
        REFUSED,
        /** Valid, but the setting is not dynamic: it takes effect when the plugin is reloaded. */
        NEEDS_RELOAD,
        /** Not one of ours. */
        UNKNOWN_KEY
    }

    /**
     * Result of {@link #apply}. {@code message} is a complete log line; for REFUSED it names key, value and range.
     * {@code restoreText} is the previously stored text (null = no stored value, i.e. the default).
     */
    public record Change(Outcome outcome, String key, String message, String restoreText) {
    }

    private final Map<String, Setting<?>> byKey = new HashMap<>();
    private final Map<String, String> storedText = new HashMap<>();
    private final List<Consumer<Settings>> subscribers = new CopyOnWriteArrayList<>();
    private final BiConsumer<String, Throwable> onSubscriberFailure;
    private volatile Settings current;
    private final List<String> loadProblems;

    private SettingsState(Collection<Setting<?>> catalog, Function<String, String> stored,
                          BiConsumer<String, Throwable> onSubscriberFailure) {
        this.onSubscriberFailure = Objects.requireNonNull(onSubscriberFailure);
        Settings s = Settings.defaults(catalog);
        List<String> problems = new ArrayList<>();
        for (Setting<?> setting : catalog) {
            byKey.put(setting.key(), setting);
            String text = stored.apply(setting.key());
            if (text == null) {
                continue;
            }
            try {
                s = s.withText(setting.key(), text);
                storedText.put(setting.key(), text);
            } catch (InvalidSettingException e) {
                problems.add("Refused stored value of " + e.getMessage() + "; using the default "
                        + formatDefault(setting));
            }
        }
        this.current = s;
        this.loadProblems = List.copyOf(problems);
    }

    /**
     * Builds the first snapshot from stored text ({@code stored} returns null for an unset key). Invalid stored values
     * fall back to the default, each reported in {@link #loadProblems()}.
     */
    public static SettingsState load(Collection<Setting<?>> catalog, Function<String, String> stored,
                                     BiConsumer<String, Throwable> onSubscriberFailure) {
        return new SettingsState(catalog, stored, onSubscriberFailure);
    }

    /** The snapshot in force. */
    public Settings current() {
        return current;
    }

    /** One log line per stored value refused at load time. */
    public List<String> loadProblems() {
        return loadProblems;
    }

    public boolean knows(String key) {
        return byKey.containsKey(key);
    }

    /** Tells {@code subscriber} about every applied change until the returned handle is closed. */
    public AutoCloseable subscribe(Consumer<Settings> subscriber) {
        subscribers.add(Objects.requireNonNull(subscriber));
        return () -> subscribers.remove(subscriber);
    }

    public int subscriberCount() {
        return subscribers.size();
    }

    /** Applies a stored text change ({@code text} null = the property was deleted, meaning its default). */
    public synchronized Change apply(String key, String text) {
        Setting<?> setting = byKey.get(key);
        if (setting == null) {
            return new Change(Outcome.UNKNOWN_KEY, key, key + " is not a known setting", null);
        }
        Settings before = current;
        Settings after;
        try {
            after = text == null ? withDefault(before, setting) : before.withText(key, text);
        } catch (InvalidSettingException e) {
            String previous = storedText.get(key);
            return new Change(Outcome.REFUSED, key, "Refused " + e.getMessage() + "; keeping "
                    + formatCurrent(before, setting), previous);
        }
        if (text == null) {
            storedText.remove(key);
        } else {
            storedText.put(key, text);
        }
        if (Objects.equals(before.get(setting), after.get(setting))) {
            return new Change(Outcome.UNCHANGED, key, key + " unchanged", null);
        }
        if (!setting.dynamic()) {
            return new Change(Outcome.NEEDS_RELOAD, key, key + " set to " + formatCurrent(after, setting)
                    + "; it takes effect when the MUC Scale plugin is reloaded (still using "
                    + formatCurrent(before, setting) + ")", null);
        }
        current = after;
        for (Consumer<Settings> subscriber : subscribers) {
            try {
                subscriber.accept(after);
            } catch (RuntimeException e) {
                onSubscriberFailure.accept(key, e);
            }
        }
        return new Change(Outcome.APPLIED, key, key + " set to " + formatCurrent(after, setting), null);
    }

    private static <T> Settings withDefault(Settings s, Setting<T> setting) {
        return s.with(setting, setting.defaultValue());
    }

    private static <T> String formatCurrent(Settings s, Setting<T> setting) {
        return setting.display(s.get(setting));
    }

    private static <T> String formatDefault(Setting<T> setting) {
        return setting.display(setting.defaultValue());
    }
}
