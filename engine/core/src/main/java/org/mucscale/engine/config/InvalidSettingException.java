package org.mucscale.engine.config;

import java.util.List;

/**
 * A setting value was refused. The message names the key, the value given and what is allowed, e.g.
 * {@code mucscale.store.batch-size must be between 1 and 100000, was 0}; that wording is part of the contract
 * (operators grep logs for it, tests match it).
 */
public final class InvalidSettingException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final List<String> problems;

    public InvalidSettingException(List<String> problems) {
        super(String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    public InvalidSettingException(String problem) {
        this(List.of(problem));
    }

    /** One line per refused value. */
    public List<String> problems() {
        return problems;
    }
}
