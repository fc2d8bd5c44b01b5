package org.xmpp.component;

/** Compile-only declaration of Tinder 2.1.0 {@code org.xmpp.component.ComponentException} (members mucscale uses). */
public class ComponentException extends Exception {

    public ComponentException() {
    }

    public ComponentException(String message) {
        super(message);
    }

    public ComponentException(String message, Throwable cause) {
        super(message, cause);
    }

    public ComponentException(Throwable cause) {
        super(cause);
    }
}
