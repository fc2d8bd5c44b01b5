package org.mucscale.engine.muc;

import java.util.concurrent.atomic.AtomicLong;

import org.mucscale.engine.port.Clock;

/** A clock tests move by hand (our own Clock port). */
final class ManualClock implements Clock {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final AtomicLong millis = new AtomicLong(1_700_000_000_000L);

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    @Override
    public long currentTimeMillis() {
        return millis.get();
    }

    void advanceMillis(long ms) {
        nanos.addAndGet(ms * 1_000_000L);
        millis.addAndGet(ms);
    }
}
