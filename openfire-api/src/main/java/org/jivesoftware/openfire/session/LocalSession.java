package org.jivesoftware.openfire.session;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.session.LocalSession}. */
public abstract class LocalSession implements Session {
}
