package org.mucscale.engine.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * One tunable: its key ({@code mucscale.*}), type, default, bounds, whether it may change while running, and the
 * text an operator reads next to it. Every host (Openfire system properties, the standalone config file, the README
 * table) is generated from these descriptors, so a key is declared exactly once.
 *
 * <p>Durations are carried as {@link Duration} and written in milliseconds ({@code 1000}, or {@code 1s}/{@code 250ms}
 * in text form); the key does not carry a unit because Openfire's admin console shows the unit next to it.
 */
public final class Setting<T> {

    /** How the value is written as text. */
    public enum Kind { INTEGER, LONG, BOOLEAN, STRING, DURATION, ENUM }

    private final String key;
    private final Kind kind;
    private final Class<T> type;
    private final T defaultValue;
    private final T min;
    private final T max;
    private final boolean dynamic;
    private final String description;
    private final Function<String, String> stringCheck;
    private final boolean secret;

    /** What is shown instead of a secret's value (logs, errors, pages, {@code toString}). */
    public static final String HIDDEN = "(hidden)";

    private Setting(String key, Kind kind, Class<T> type, T defaultValue, T min, T max, boolean dynamic,
                    String description, Function<String, String> stringCheck) {
        this(key, kind, type, defaultValue, min, max, dynamic, description, stringCheck, false);
    }

    private Setting(String key, Kind kind, Class<T> type, T defaultValue, T min, T max, boolean dynamic,
                    String description, Function<String, String> stringCheck, boolean secret) {
        if (!key.startsWith("mucscale.") || !key.equals(key.toLowerCase(Locale.ROOT)) || key.contains(" ")) {
            throw new IllegalArgumentException("setting keys are lower-case mucscale.*, was " + key);
        }
        this.key = key;
        this.kind = kind;
        this.type = type;
        this.defaultValue = Objects.requireNonNull(defaultValue, key);
        this.min = min;
        this.max = max;
        this.dynamic = dynamic;
        this.description = Objects.requireNonNull(description, key);
        this.stringCheck = stringCheck;
        this.secret = secret;
        String problem = problemWith(defaultValue);
        if (problem != null) {
            throw new IllegalArgumentException("default of " + problem);
        }
    }

    public static Setting<Integer> ofInt(String key, int defaultValue, int min, int max, boolean dynamic, String description) {
        return new Setting<>(key, Kind.INTEGER, Integer.class, defaultValue, min, max, dynamic, description, null);
    }

    public static Setting<Long> ofLong(String key, long defaultValue, long min, long max, boolean dynamic, String description) {
        return new Setting<>(key, Kind.LONG, Long.class, defaultValue, min, max, dynamic, description, null);
    }

    public static Setting<Boolean> ofBoolean(String key, boolean defaultValue, boolean dynamic, String description) {
        return new Setting<>(key, Kind.BOOLEAN, Boolean.class, defaultValue, null, null, dynamic, description, null);
    }

    public static Setting<String> ofString(String key, String defaultValue, boolean dynamic, String description) {
        return new Setting<>(key, Kind.STRING, String.class, defaultValue, null, null, dynamic, description, null);
    }

    /**
     * A string with its own rule. {@code check} returns null when the value is fine, else what is allowed
     * (e.g. "a host name"), which ends up in "mucscale.x must be a host name, was ...".
     */
    public static Setting<String> ofString(String key, String defaultValue, boolean dynamic, String description,
                                           Function<String, String> check) {
        return new Setting<>(key, Kind.STRING, String.class, defaultValue, null, null, dynamic, description, check);
    }

    /**
     * A secret (password, shared secret, token): empty by default, and its value is never shown: {@link #display},
     * {@link Settings#toString()} and every refusal message say {@value #HIDDEN} instead, and hosts store it
     * encrypted where they can (Openfire). {@code check} as for {@link #ofString(String, String, boolean, String,
     * Function)}, or null.
     */
    public static Setting<String> ofSecret(String key, boolean dynamic, String description,
                                           Function<String, String> check) {
        return new Setting<>(key, Kind.STRING, String.class, "", null, null, dynamic, description, check, true);
    }

    public static Setting<Duration> ofDuration(String key, Duration defaultValue, Duration min, Duration max,
                                               boolean dynamic, String description) {
        return new Setting<>(key, Kind.DURATION, Duration.class, defaultValue, min, max, dynamic, description, null);
    }

    public static <E extends Enum<E>> Setting<E> ofEnum(String key, Class<E> type, E defaultValue, boolean dynamic,
                                                        String description) {
        return new Setting<>(key, Kind.ENUM, type, defaultValue, null, null, dynamic, description, null);
    }

    public String key() { return key; }
    public Kind kind() { return kind; }
    public Class<T> type() { return type; }
    public T defaultValue() { return defaultValue; }
    /** Lower bound (inclusive) for numbers and durations, else null. */
    public T min() { return min; }
    /** Upper bound (inclusive) for numbers and durations, else null. */
    public T max() { return max; }
    /** True when a running engine picks up a change without a restart. */
    public boolean dynamic() { return dynamic; }
    public String description() { return description; }
    /** True for passwords, shared secrets and tokens: the value is never printed (see {@link #display}). */
    public boolean secret() { return secret; }

    /** Parses and validates text; the exception names key, value and the allowed range. */
    public T parse(String text) {
        if (text == null) {
            throw new InvalidSettingException(key + " must not be empty, was null");
        }
        String s = text.trim();
        T value;
        try {
            value = switch (kind) {
                case INTEGER -> type.cast(Integer.valueOf(s));
                case LONG -> type.cast(Long.valueOf(s));
                case BOOLEAN -> type.cast(parseBoolean(s));
                case STRING -> type.cast(text);
                case DURATION -> type.cast(parseDuration(s));
                case ENUM -> type.cast(parseEnum(s));
            };
        } catch (RuntimeException e) {
            throw new InvalidSettingException(key + " must be " + allowed() + ", was " + quoted(text));
        }
        validate(value);
        return value;
    }

    /** Throws when {@code value} is out of range, naming key, value and range. */
    public void validate(T value) {
        String problem = problemWith(value);
        if (problem != null) {
            throw new InvalidSettingException(problem);
        }
    }

    /** Text form that {@link #parse} reads back (durations in milliseconds). */
    public String format(T value) {
        if (value instanceof Duration d) {
            return Long.toString(d.toMillis());
        }
        if (value instanceof Enum<?> e) {
            return e.name();
        }
        return String.valueOf(value);
    }

    /**
     * The value as logs, errors and pages may show it: {@link #format} for ordinary settings; for a secret
     * {@value #HIDDEN} when set, and the empty text when not (so "not set" stays visible).
     */
    public String display(T value) {
        if (secret) {
            return value == null || value.toString().isEmpty() ? "" : HIDDEN;
        }
        return format(value);
    }

    /** {@code 'text'}, or {@value #HIDDEN} for a secret (a mistyped token must not land in a log). */
    private String quoted(String text) {
        return secret ? HIDDEN : "'" + text + "'";
    }

    /** What is allowed, in words: "between 1 and 100000", "true or false", "one of SPILL_TO_DISK, ...". */
    public String allowed() {
        return switch (kind) {
            case INTEGER, LONG -> "a whole number between " + min + " and " + max;
            case DURATION -> "a duration in milliseconds between " + ((Duration) min).toMillis() + " and "
                    + ((Duration) max).toMillis();
            case BOOLEAN -> "true or false";
            case STRING -> stringCheck == null ? "text" : stringCheck.apply(null);
            case ENUM -> "one of " + Arrays.toString(type.getEnumConstants());
        };
    }

    @SuppressWarnings("unchecked")
    private String problemWith(T value) {
        if (value == null) {
            return key + " must be " + allowed() + ", was null";
        }
        if (min != null && (((Comparable<T>) value).compareTo(min) < 0 || ((Comparable<T>) value).compareTo(max) > 0)) {
            return key + " must be " + allowed() + ", was " + display(value);
        }
        if (kind == Kind.STRING && stringCheck != null) {
            String rule = stringCheck.apply((String) value);
            if (rule != null) {
                return key + " must be " + rule + ", was " + quoted((String) value);
            }
        }
        return null;
    }

    private static Boolean parseBoolean(String s) {
        if (s.equalsIgnoreCase("true")) {
            return Boolean.TRUE;
        }
        if (s.equalsIgnoreCase("false")) {
            return Boolean.FALSE;
        }
        throw new IllegalArgumentException(s);
    }

    private static Duration parseDuration(String s) {
        String lower = s.toLowerCase(Locale.ROOT);
        if (lower.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(lower.substring(0, lower.length() - 2).trim()));
        }
        if (lower.endsWith("s")) {
            return Duration.ofSeconds(Long.parseLong(lower.substring(0, lower.length() - 1).trim()));
        }
        if (lower.endsWith("m")) {
            return Duration.ofMinutes(Long.parseLong(lower.substring(0, lower.length() - 1).trim()));
        }
        return Duration.ofMillis(Long.parseLong(lower));
    }

    private Object parseEnum(String s) {
        for (T constant : type.getEnumConstants()) {
            if (((Enum<?>) constant).name().equalsIgnoreCase(s)) {
                return constant;
            }
        }
        throw new IllegalArgumentException(s);
    }

    @Override
    public String toString() {
        return key;
    }
}
