package org.jivesoftware.util;

import java.util.Map;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.util.PropertyEventListener}. */
public interface PropertyEventListener {

    void propertySet(String property, Map<String, Object> params);

    void propertyDeleted(String property, Map<String, Object> params);

    void xmlPropertySet(String property, Map<String, Object> params);

    void xmlPropertyDeleted(String property, Map<String, Object> params);
}
