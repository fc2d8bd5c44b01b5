package org.jivesoftware.openfire.auth;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.auth.InternalUnauthenticatedException}. */
public class InternalUnauthenticatedException extends Exception {
    private static final long serialVersionUID = 1L;
}
