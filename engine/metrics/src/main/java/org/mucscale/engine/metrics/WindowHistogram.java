package org.mucscale.engine.metrics;

import com.codahale.metrics.Histogram;

/**
 * A Dropwizard {@link Histogram} whose count comes from its {@link HdrWindowReservoir} instead of a separate
 * LongAdder, so recording a value is the recorder's work alone (one fewer contended write per value).
 * {@link #getCount()} is cumulative since creation, as Dropwizard defines it; it is a read-side call (it collects
 * the recorder's pending values first).
 */
final class WindowHistogram extends Histogram {

    private final HdrWindowReservoir reservoir;

    WindowHistogram(HdrWindowReservoir reservoir) {
        super(reservoir);
        this.reservoir = reservoir;
    }

    @Override
    public void update(int value) {
        reservoir.update(value);
    }

    @Override
    public void update(long value) {
        reservoir.update(value);
    }

    @Override
    public long getCount() {
        return reservoir.totalCount();
    }
}
