package org.mucscale.engine.metrics;

import org.mucscale.engine.port.Clock;

import java.util.concurrent.atomic.AtomicLong;

/** A clock tests move by hand. */
final class ManualClock implements Clock {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
    private final AtomicLong wallMs = new AtomicLong(1_700_000_000_000L);

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    @Override
    public long currentTimeMillis() {
        return wallMs.get();
    }

    void advanceMs(long ms) {
        nanos.addAndGet(ms * 1_000_000L);
        wallMs.addAndGet(ms);
    }
}
