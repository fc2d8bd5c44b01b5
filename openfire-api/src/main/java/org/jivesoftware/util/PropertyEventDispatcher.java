package org.jivesoftware.util;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.util.PropertyEventDispatcher} (members mucscale uses). */
public class PropertyEventDispatcher {

    private PropertyEventDispatcher() {
    }

    public static void addListener(PropertyEventListener listener) { }

    public static void removeListener(PropertyEventListener listener) { }
}
