package org.jivesoftware.util.cache;

import java.io.Externalizable;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.util.cache.ClusterTask}. */
public interface ClusterTask<V> extends Runnable, Externalizable {

    V getResult();
}
