package org.jivesoftware.openfire.event;

/**
 * Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.event.SessionEventDispatcher} (members
 * mucscale uses).
 */
public class SessionEventDispatcher {

    private SessionEventDispatcher() {
    }

    public static void addListener(SessionEventListener listener) { }

    public static void removeListener(SessionEventListener listener) { }
}
