package org.mucscale.loadgen;

/** A scenario that cannot run, with a message naming the key, the value given and what is allowed. */
public final class ScenarioException extends RuntimeException {
    public ScenarioException(String message) {
        super(message);
    }

    public ScenarioException(String message, Throwable cause) {
        super(message, cause);
    }
}
