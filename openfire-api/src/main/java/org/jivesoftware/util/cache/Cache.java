package org.jivesoftware.util.cache;

import java.io.Serializable;
import java.util.Map;

/**
 * Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.util.cache.Cache}: mucscale uses only the
 * {@link Map} methods it inherits.
 */
public interface Cache<K extends Serializable, V extends Serializable> extends Map<K, V> {
}
