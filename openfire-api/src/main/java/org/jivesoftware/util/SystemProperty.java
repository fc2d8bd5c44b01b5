package org.jivesoftware.util;

import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.Optional;
import java.util.function.Consumer;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.util.SystemProperty} (members mucscale uses). */
@SuppressWarnings("rawtypes")
public final class SystemProperty<T> {

    private SystemProperty() {
    }

    public static Collection<SystemProperty> getProperties() { return null; }

    public static void removePropertiesForPlugin(final String plugin) { }

    public static Optional<SystemProperty> getProperty(final String key) { return Optional.empty(); }

    public T getValue() { return null; }

    public String getValueAsSaved() { return null; }

    public void setValue(final T value) { }

    public String getPlugin() { return null; }

    public boolean isDynamic() { return false; }

    public boolean isRestartRequired() { return false; }

    public void addListener(final Consumer<T> listener) { }

    public void removeListener(final Consumer<T> listener) { }

    public String getKey() { return null; }

    public String getDescription() { return null; }

    public T getDefaultValue() { return null; }

    public static final class Builder<T> {

        private Builder() {
        }

        public static <T> Builder<T> ofType(final Class<T> clazz) { return new Builder<>(); }

        public Builder<T> setKey(final String key) { return this; }

        public Builder<T> setDefaultValue(final T defaultValue) { return this; }

        public Builder<T> setMinValue(final T minValue) { return this; }

        public Builder<T> setMaxValue(final T maxValue) { return this; }

        public Builder<T> setChronoUnit(final ChronoUnit chronoUnit) { return this; }

        public Builder<T> addListener(final Consumer<T> listener) { return this; }

        public Builder<T> setDynamic(final boolean dynamic) { return this; }

        public Builder<T> setEncrypted(final boolean encrypted) { return this; }

        public Builder<T> setPlugin(final String plugin) { return this; }

        public SystemProperty<T> build() throws IllegalArgumentException {
            throw new UnsupportedOperationException("compile-only declaration");
        }
    }
}
