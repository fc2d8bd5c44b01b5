package org.mucscale.engine.metrics;

import com.codahale.metrics.Snapshot;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/** A Dropwizard {@link Snapshot} over a private copy of an HdrHistogram; immutable once built. */
final class HdrSnapshot extends Snapshot {

    /** {@link #getValues()} expands counts into values; past this many it stops, to bound memory. */
    private static final int MAX_EXPANDED_VALUES = 1_000_000;

    private final Histogram histogram;

    HdrSnapshot(Histogram histogram) {
        this.histogram = histogram;
    }

    @Override
    public double getValue(double quantile) {
        if (quantile < 0.0 || quantile > 1.0 || Double.isNaN(quantile)) {
            throw new IllegalArgumentException(quantile + " is not in [0..1]");
        }
        if (histogram.getTotalCount() == 0) {
            return 0.0;
        }
        if (quantile >= 1.0) {
            return histogram.getMaxValue();
        }
        return histogram.getValueAtPercentile(quantile * 100.0);
    }

    @Override
    public long[] getValues() {
        int n = (int) Math.min(MAX_EXPANDED_VALUES, histogram.getTotalCount());
        long[] values = new long[n];
        int i = 0;
        for (HistogramIterationValue v : histogram.recordedValues()) {
            long value = histogram.highestEquivalentValue(v.getValueIteratedTo());
            for (long c = 0; c < v.getCountAtValueIteratedTo() && i < n; c++) {
                values[i++] = value;
            }
            if (i >= n) {
                break;
            }
        }
        return values;
    }

    @Override
    public int size() {
        return (int) Math.min(Integer.MAX_VALUE, histogram.getTotalCount());
    }

    @Override
    public long getMax() {
        return histogram.getTotalCount() == 0 ? 0 : histogram.getMaxValue();
    }

    @Override
    public double getMean() {
        return histogram.getTotalCount() == 0 ? 0.0 : histogram.getMean();
    }

    @Override
    public long getMin() {
        return histogram.getTotalCount() == 0 ? 0 : histogram.getMinValue();
    }

    @Override
    public double getStdDev() {
        return histogram.getTotalCount() == 0 ? 0.0 : histogram.getStdDeviation();
    }

    @Override
    public void dump(OutputStream output) {
        try (PrintWriter out = new PrintWriter(new java.io.OutputStreamWriter(output, StandardCharsets.UTF_8))) {
            for (long value : getValues()) {
                out.println(value);
            }
        }
    }
}
