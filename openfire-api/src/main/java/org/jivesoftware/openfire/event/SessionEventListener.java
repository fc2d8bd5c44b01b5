package org.jivesoftware.openfire.event;

import org.jivesoftware.openfire.session.Session;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.event.SessionEventListener}. */
public interface SessionEventListener {

    void sessionCreated(Session session);

    void sessionDestroyed(Session session);

    void anonymousSessionCreated(Session session);

    void anonymousSessionDestroyed(Session session);

    void resourceBound(Session session);
}
