package org.jivesoftware.openfire.session;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.session.ClientSession}. */
public interface ClientSession extends Session {
}
