package org.jivesoftware.openfire;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.openfire.Connection} (the members we use). */
public interface Connection extends java.io.Closeable {

    boolean isClosed();
}
