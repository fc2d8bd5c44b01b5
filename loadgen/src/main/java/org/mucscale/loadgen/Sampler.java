package org.mucscale.loadgen;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Turns the run's counters and latency recorders into a time series (one point per tick), whole-run histograms, and
 * per-window figures for the message levels.
 *
 * <p>Concurrency: {@link #tick} runs on the timer thread and {@link #beginWindow}/{@link #endWindow} on the run
 * thread; all are synchronized (a few calls per second, never on the delivery path). The recorders themselves are
 * written wait-free by the processor threads.
 */
final class Sampler {
    /** One point of the time series; latencies in ms over the interval since the previous point. */
    record Point(double t, String phase, long connections, long loggedIn, long joined, double sentPerSec,
                 double deliveriesPerSec, double p50Ms, double p90Ms, double p99Ms, double p999Ms, double maxMs,
                 double genCpuPct, double serverCpuPct, double serverRssMb, double genRssMb, long errors) {
    }

    /**
     * Figures over one window (a level or the soak). The latency percentiles are over the deliveries nothing
     * legitimately holds back ({@link ClientProfile#ACTIVE}); {@code profiles} has each client profile's own.
     */
    record Window(double seconds, long sent, long deliveries, double deliveriesPerSec, double p50Ms, double p90Ms,
                  double p99Ms, double p999Ms, double maxMs, double genCpuUsPerDelivery, double serverCpuUsPerDelivery,
                  Map<String, ObjectNode> profiles) {
    }

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Stats stats;
    private final ServerProcesses server;
    private final long epochNs;
    private final ClientProfiles profiles;
    final Histogram deliveryTotal = new Histogram(3);
    final Histogram connectTotal = new Histogram(3);
    final Histogram joinTotal = new Histogram(3);
    private final Histogram window = new Histogram(3);
    private Histogram recycle;
    private Histogram recycleConnect;
    private Histogram recycleJoin;
    final List<Point> points = new ArrayList<>();

    private long lastNs;
    private long lastDeliveries;
    private long lastSent;
    private long lastOwnCpu;
    private long lastServerCpu;
    private double lastP50;
    private double lastP99;
    private double lastMax;
    private double lastDeliveriesPerSec;
    private double lastGenCpuPct;
    private double lastServerCpuPct;
    private double lastServerRssMb;

    private long windowStartNs;
    private long windowSent;
    private long windowDeliveries;
    private long windowOwnCpu;
    private long windowServerCpu;
    volatile String phase = "start";

    Sampler(Stats stats, ServerProcesses server, long epochNs, ClientProfiles profiles) {
        this.stats = stats;
        this.profiles = profiles;
        this.server = server;
        this.epochNs = epochNs;
        this.lastNs = epochNs;
        this.lastOwnCpu = ProcStat.ownCpuNs();
        this.lastServerCpu = server.cpuNs();
    }

    /** Collects the latest interval: adds it to the totals and the open window and appends one point. */
    synchronized Point tick() {
        long now = System.nanoTime();
        Histogram interval = collect();
        collectSide();
        double seconds = Math.max(1e-3, (now - lastNs) / 1e9);
        long deliveries = stats.distinctDeliveries.sum();
        long sent = stats.messagesSent;
        long ownCpu = ProcStat.ownCpuNs();
        long serverCpu = server.cpuNs();
        double genPct = ownCpu < 0 ? -1 : 100.0 * (ownCpu - lastOwnCpu) / (now - lastNs);
        double srvPct = serverCpu < 0 || lastServerCpu < 0 ? -1 : 100.0 * (serverCpu - lastServerCpu) / (now - lastNs);
        long srvRssKb = server.rssKb();
        double srvRss = srvRssKb < 0 ? -1 : srvRssKb / 1024.0;
        double genRss = ProcStat.rssKb("self") / 1024.0;
        long total = interval.getTotalCount();
        Point p = new Point(round((now - epochNs) / 1e9), phase,
                stats.connected.sum() - stats.disconnected.sum(), stats.loggedIn.sum(), stats.joined.sum(),
                round((sent - lastSent) / seconds), round((deliveries - lastDeliveries) / seconds),
                ms(total, interval.getValueAtPercentile(50)), ms(total, interval.getValueAtPercentile(90)),
                ms(total, interval.getValueAtPercentile(99)), ms(total, interval.getValueAtPercentile(99.9)),
                ms(total, interval.getMaxValue()), round(genPct), round(srvPct), round(srvRss), round(genRss),
                stats.errorCount());
        points.add(p);
        lastNs = now;
        lastDeliveries = deliveries;
        lastSent = sent;
        lastOwnCpu = ownCpu;
        lastServerCpu = serverCpu;
        lastP50 = p.p50Ms();
        lastP99 = p.p99Ms();
        lastMax = p.maxMs();
        lastDeliveriesPerSec = p.deliveriesPerSec();
        lastGenCpuPct = p.genCpuPct();
        lastServerCpuPct = p.serverCpuPct();
        lastServerRssMb = p.serverRssMb();
        return p;
    }

    private Histogram collect() {
        Histogram interval = stats.deliveryUs.getIntervalHistogram(recycle);
        recycle = interval;
        deliveryTotal.add(interval);
        window.add(interval);
        profiles.collect();
        return interval;
    }

    private void collectSide() {
        Histogram c = stats.connectUs.getIntervalHistogram(recycleConnect);
        connectTotal.add(c);
        recycleConnect = c;
        Histogram j = stats.joinUs.getIntervalHistogram(recycleJoin);
        joinTotal.add(j);
        recycleJoin = j;
    }

    /** Starts a measurement window (a level or the soak) now. */
    synchronized void beginWindow() {
        collect();
        collectSide();
        window.reset();
        profiles.beginWindow();
        windowStartNs = System.nanoTime();
        windowSent = stats.messagesSent;
        windowDeliveries = stats.distinctDeliveries.sum();
        windowOwnCpu = ProcStat.ownCpuNs();
        windowServerCpu = server.cpuNs();
    }

    /** Closes the window opened by {@link #beginWindow} and returns its figures. */
    synchronized Window endWindow() {
        collect();
        collectSide();
        long now = System.nanoTime();
        double seconds = Math.max(1e-3, (now - windowStartNs) / 1e9);
        long deliveries = stats.distinctDeliveries.sum() - windowDeliveries;
        long sent = stats.messagesSent - windowSent;
        long ownCpu = ProcStat.ownCpuNs() - windowOwnCpu;
        long serverCpuNow = server.cpuNs();
        long serverCpu = windowServerCpu < 0 || serverCpuNow < 0 ? -1 : serverCpuNow - windowServerCpu;
        long total = window.getTotalCount();
        return new Window(round(seconds), sent, deliveries, round(deliveries / seconds),
                ms(total, window.getValueAtPercentile(50)), ms(total, window.getValueAtPercentile(90)),
                ms(total, window.getValueAtPercentile(99)), ms(total, window.getValueAtPercentile(99.9)),
                ms(total, window.getMaxValue()),
                deliveries == 0 ? -1 : round(ownCpu / 1000.0 / deliveries),
                deliveries == 0 || serverCpu < 0 ? -1 : round(serverCpu / 1000.0 / deliveries), profiles.endWindow(MAPPER));
    }

    synchronized String progressFigures() {
        return String.format("deliv %,d (%,.0f/s) | p50 %.1f p99 %.1f max %.1f ms | cpu %.0f%%%s",
                stats.distinctDeliveries.sum(), lastDeliveriesPerSec, lastP50, lastP99, lastMax, lastGenCpuPct,
                server.none() ? "" : String.format(" srv %.0f%% %.0fMB", lastServerCpuPct, lastServerRssMb));
    }

    static double ms(long count, long us) {
        return count == 0 ? 0 : round(us / 1000.0);
    }

    static double round(double v) {
        return Math.round(v * 1000.0) / 1000.0;
    }
}
