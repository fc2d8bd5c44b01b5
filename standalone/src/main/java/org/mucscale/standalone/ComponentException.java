package org.mucscale.standalone;

/**
 * The component could not connect or authenticate. The message is written for an operator and names the cause:
 * "cannot connect to host:port: ...", "the server refused the component secret for domain", ...
 */
public final class ComponentException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Whether retrying with the same configuration could help (unreachable server: yes; wrong secret: no). */
    private final boolean transientFailure;

    public ComponentException(String message, boolean transientFailure) {
        super(message);
        this.transientFailure = transientFailure;
    }

    public boolean isTransient() {
        return transientFailure;
    }
}
