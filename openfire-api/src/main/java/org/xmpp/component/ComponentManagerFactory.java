package org.xmpp.component;

/** Compile-only declaration of Tinder 2.1.0 {@code org.xmpp.component.ComponentManagerFactory}. */
public class ComponentManagerFactory {
    public static synchronized ComponentManager getComponentManager() {
        throw new UnsupportedOperationException("compile-only declaration");
    }
}
