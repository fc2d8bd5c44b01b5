package org.mucscale.engine.metrics;

import com.codahale.metrics.Snapshot;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * A Dropwizard {@link Snapshot} of an HdrHistogram, immutable once built, answering exactly as the histogram's own
 * methods do ({@code getValueAtPercentile}, {@code getMean}, {@code getStdDeviation}, min, max).
 *
 * <p>It keeps only the histogram's non-empty buckets (a latency window holds a few hundred of its ~19,000), read in one
 * pass when built: a scrape asks six quantiles of every window, and walking the full count array for each, after
 * copying it, was most of what a Prometheus scrape cost a node (docs/benchmarks/metrics.md).
 */
final class HdrSnapshot extends Snapshot {

    /** {@link #getValues()} expands counts into values; past this many it stops, to bound memory. */
    private static final int MAX_EXPANDED_VALUES = 1_000_000;

    /** Per non-empty bucket, ascending: its highest equivalent value, and the counts up to and including it. */
    private final long[] highest;
    private final long[] cumulative;
    private final long totalCount;
    private final long lowestOfFirst;
    private final long min;
    private final long max;
    private final double mean;
    private final double stdDev;

    /** Reads {@code histogram} now; later changes to it do not show here. */
    HdrSnapshot(Histogram histogram) {
        int buckets = 0;
        long[] high = new long[64];
        long[] cum = new long[64];
        long[] median = new long[64];
        long running = 0;
        for (HistogramIterationValue v : histogram.recordedValues()) {
            if (buckets == high.length) {
                high = java.util.Arrays.copyOf(high, buckets * 2);
                cum = java.util.Arrays.copyOf(cum, buckets * 2);
                median = java.util.Arrays.copyOf(median, buckets * 2);
            }
            long value = v.getValueIteratedTo();
            running += v.getCountAtValueIteratedTo();
            high[buckets] = histogram.highestEquivalentValue(value);
            median[buckets] = histogram.medianEquivalentValue(value);
            cum[buckets] = running;
            buckets++;
        }
        this.highest = java.util.Arrays.copyOf(high, buckets);
        this.cumulative = java.util.Arrays.copyOf(cum, buckets);
        this.totalCount = running;
        this.lowestOfFirst = buckets == 0 ? 0 : histogram.lowestEquivalentValue(high[0]);
        this.min = running == 0 ? 0 : histogram.getMinValue();
        this.max = running == 0 ? 0 : histogram.getMaxValue();
        double sum = 0;
        long previous = 0;
        for (int i = 0; i < buckets; i++) {
            sum += median[i] * (double) (cum[i] - previous);
            previous = cum[i];
        }
        this.mean = running == 0 ? 0.0 : sum / running;
        double deviations = 0;
        previous = 0;
        for (int i = 0; i < buckets; i++) {
            double deviation = median[i] - mean;
            deviations += deviation * deviation * (cum[i] - previous);
            previous = cum[i];
        }
        this.stdDev = running == 0 ? 0.0 : Math.sqrt(deviations / running);
    }

    @Override
    public double getValue(double quantile) {
        if (quantile < 0.0 || quantile > 1.0 || Double.isNaN(quantile)) {
            throw new IllegalArgumentException(quantile + " is not in [0..1]");
        }
        if (totalCount == 0) {
            return 0.0;
        }
        if (quantile >= 1.0) {
            return max;
        }
        // as AbstractHistogram.getValueAtPercentile (HdrHistogram 2.2): the first bucket whose running count reaches
        // ceil(p * total), p nudged down by one ulp so that an exact boundary picks the lower bucket
        double percentile = quantile * 100.0;
        double requested = Math.min(Math.max(Math.nextAfter(percentile, Double.NEGATIVE_INFINITY), 0), 100.0);
        long countAtPercentile = Math.max(1, (long) Math.ceil(requested * totalCount / 100.0));
        int i = java.util.Arrays.binarySearch(cumulative, countAtPercentile);
        if (i < 0) {
            i = -i - 1;
        }
        if (i >= highest.length) {
            return 0.0;
        }
        return percentile == 0.0 ? lowestOfFirst : highest[i];
    }

    @Override
    public long[] getValues() {
        int n = (int) Math.min(MAX_EXPANDED_VALUES, totalCount);
        long[] values = new long[n];
        int filled = 0;
        for (int b = 0; b < highest.length && filled < n; b++) {
            long upTo = Math.min(n, cumulative[b]);
            while (filled < upTo) {
                values[filled++] = highest[b];
            }
        }
        return values;
    }

    @Override
    public int size() {
        return (int) Math.min(Integer.MAX_VALUE, totalCount);
    }

    @Override
    public long getMax() {
        return max;
    }

    @Override
    public double getMean() {
        return mean;
    }

    @Override
    public long getMin() {
        return min;
    }

    @Override
    public double getStdDev() {
        return stdDev;
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
