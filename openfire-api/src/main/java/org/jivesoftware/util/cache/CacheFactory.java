package org.jivesoftware.util.cache;

/** Compile-only declaration of Openfire 5.1.1 {@code org.jivesoftware.util.cache.CacheFactory} (members mucscale uses). */
public class CacheFactory {

    private CacheFactory() {
    }

    public static long getMaxCacheSize(String cacheName) { return 0L; }

    public static void setMaxSizeProperty(String cacheName, long size) { }

    public static long getMaxCacheLifetime(String cacheName) { return 0L; }

    public static void setMaxLifetimeProperty(String cacheName, long lifetime) { }

    public static synchronized <T extends Cache> T createCache(String name) { return null; }

    public static boolean isClusteringStarted() { return false; }
}
