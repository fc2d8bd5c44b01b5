package org.mucscale.engine.muc;

/**
 * A token bucket in integer arithmetic: {@code burst} tokens, refilled at {@code perSecond}. Owned by one room
 * thread (no synchronisation). Tokens are kept in nano-units so refill needs no division per call beyond one.
 */
final class TokenBucket {
    private static final long NANOS = 1_000_000_000L;
    private long tokensNano; // tokens * 1e9
    private long lastNs;

    TokenBucket(int burst, long nowNs) {
        this.tokensNano = burst * NANOS;
        this.lastNs = nowNs;
    }

    /** Takes one token; false when the rate is exceeded (nothing taken). */
    boolean tryTake(long nowNs, int perSecond, int burst) {
        long elapsed = nowNs - lastNs;
        lastNs = nowNs;
        long cap = burst * NANOS;
        if (elapsed > 0) {
            // elapsed * perSecond could overflow after ~292 years / rate; clamp elapsed to a refill of the full burst
            long maxElapsed = cap / perSecond + 1;
            tokensNano = Math.min(cap, tokensNano + Math.min(elapsed, maxElapsed) * perSecond);
        }
        if (tokensNano >= NANOS) {
            tokensNano -= NANOS;
            return true;
        }
        return false;
    }
}
