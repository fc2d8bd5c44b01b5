package org.mucscale.engine.runtime.admin;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The admin API's rate per client address: a token bucket each, with a burst of two seconds' worth. Touched by the
 * HTTP threads; each bucket is updated under its own lock.
 */
final class AddressRate {
    /** Per client address: tokens left and when they were counted (nanoTime); one small object per address. */
    private static final class Bucket {
        double tokens;
        long atNs;
    }

    /** Client addresses seen at most before the table is emptied (a flood of new addresses cannot grow it). */
    private static final int MAX_BUCKETS = 10_000;
    private final ConcurrentHashMap<InetAddress, Bucket> buckets = new ConcurrentHashMap<>();

    /** Whether a request from {@code remote} is within {@code perSecond} (0: no limit). */
    boolean within(InetAddress remote, int perSecond) {
        if (perSecond == 0 || remote == null) {
            return true;
        }
        if (buckets.size() > MAX_BUCKETS) {
            buckets.clear();
        }
        Bucket b = buckets.computeIfAbsent(remote, k -> {
            Bucket n = new Bucket();
            n.tokens = 2.0 * perSecond;
            n.atNs = System.nanoTime();
            return n;
        });
        synchronized (b) {
            long now = System.nanoTime();
            b.tokens = Math.min(2.0 * perSecond, b.tokens + (now - b.atNs) / 1e9 * perSecond);
            b.atNs = now;
            if (b.tokens < 1) {
                return false;
            }
            b.tokens -= 1;
            return true;
        }
    }
}
