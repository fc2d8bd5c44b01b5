package org.mucscale.engine.metrics;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mucscale.engine.metrics.jvm.JvmFlagCheck;

/**
 * The running JVM for the dashboard: version, collector, heap limits, its GC-related options and the flag checker's
 * verdict on them ({@link JvmFlagCheck}, the rules of {@code bin/mucscale-jvm-check}), with the heap checked against
 * the current occupants. The options, version and collector never change while the JVM runs, so they are read once;
 * the verdict is recomputed per request because the occupant count moves (a pure check of a few dozen options).
 */
final class JvmFacts {

    /** Effective values worth showing next to the options (only those this JVM knows are listed). */
    private static final List<String> EFFECTIVE = List.of("MaxGCPauseMillis", "ParallelGCThreads", "ConcGCThreads",
            "AlwaysPreTouch", "UseLargePages", "UseTransparentHugePages", "ZGenerational", "UseStringDeduplication");

    record Static(String version, int feature, String vendor, String vm, String collector, List<String> collectorBeans,
                  List<String> options, List<String> gcOptions, Map<String, String> effective,
                  JvmFlagCheck.Host host) {
    }

    private static volatile Static facts;

    private JvmFacts() {
    }

    static Static facts() {
        Static f = facts;
        if (f == null) {
            f = read();
            facts = f;
        }
        return f;
    }

    private static Static read() {
        List<String> beans = new ArrayList<>();
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            beans.add(gc.getName());
        }
        List<String> options = List.copyOf(ManagementFactory.getRuntimeMXBean().getInputArguments());
        Map<String, String> effective = new LinkedHashMap<>();
        try {
            com.sun.management.HotSpotDiagnosticMXBean hotspot =
                    ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            for (String name : EFFECTIVE) {
                try {
                    effective.put(name, hotspot.getVMOption(name).getValue());
                } catch (IllegalArgumentException e) {
                    // not a flag of this JVM (ZGenerational before 21): left out
                }
            }
        } catch (RuntimeException | LinkageError e) {
            // not a HotSpot JVM: no effective values
        }
        // Openfire's launchers set -DopenfireHome; the standalone runner does not.
        JvmFlagCheck.Host host = System.getProperty("openfireHome") != null ? JvmFlagCheck.Host.OPENFIRE
                : JvmFlagCheck.Host.STANDALONE;
        return new Static(System.getProperty("java.runtime.version", Runtime.version().toString()),
                Runtime.version().feature(), System.getProperty("java.vm.vendor", ""),
                System.getProperty("java.vm.name", ""), collectorOf(beans), List.copyOf(beans), options,
                JvmFlagCheck.gcRelated(options), effective, host);
    }

    /** The collector's name from its MXBeans' names (what the JVM runs, whatever the options said). */
    static String collectorOf(List<String> beanNames) {
        String all = String.join("|", beanNames);
        if (all.contains("ZGC Minor") || all.contains("ZGC Major")) {
            return "ZGC (generational)";
        }
        if (all.contains("ZGC")) {
            return "ZGC";
        }
        if (all.contains("G1 ")) {
            return "G1";
        }
        if (all.contains("Shenandoah")) {
            return "Shenandoah";
        }
        if (all.contains("PS ")) {
            return "Parallel";
        }
        if (all.contains("MarkSweepCompact") || all.contains("Copy")) {
            return "Serial";
        }
        if (all.contains("Epsilon")) {
            return "Epsilon";
        }
        return beanNames.isEmpty() ? "unknown" : String.join(", ", beanNames);
    }

    /**
     * The {@code jvm} object of the dashboard JSON:
     * <pre>
     * { "version", "feature" (17, 21, 25...), "vendor", "vm", "collector", "collectorBeans": [...],
     *   "heapInitBytes", "heapMaxBytes", "heapCommittedBytes" (null when the JVM does not say),
     *   "gcOptions": [the GC-related command-line options], "effective": {flag: value},
     *   "check": { "verdict": "clean" | "warnings" | "stop", "exitCode", "occupants", "host",
     *              "findings": [{"severity", "option", "problem", "instead"}] } }
     * </pre>
     */
    static void json(StringBuilder sb, double occupants) {
        Static f = facts();
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        long users = Double.isNaN(occupants) || occupants < 0 ? 0 : (long) occupants;
        JvmFlagCheck.Report report;
        try {
            report = JvmFlagCheck.check(f.options(), f.feature(), users, f.host(), heap.getMax() > 0 ? heap.getMax() : 0);
        } catch (IllegalArgumentException e) {
            // An option the checker cannot read (the JVM did): say so instead of failing the whole page.
            report = new JvmFlagCheck.Report(f.feature(), f.collector(), java.util.OptionalLong.empty(), List.of(
                    new JvmFlagCheck.Finding(JvmFlagCheck.Severity.NOTE, "(options)", "not checked: " + e.getMessage(),
                            "run bin/mucscale-jvm-check --pid on this JVM")));
        }
        sb.append("{\"version\":");
        Json.string(sb, f.version());
        sb.append(",\"feature\":").append(f.feature()).append(",\"vendor\":");
        Json.string(sb, f.vendor());
        sb.append(",\"vm\":");
        Json.string(sb, f.vm());
        sb.append(",\"collector\":");
        Json.string(sb, f.collector());
        sb.append(",\"collectorBeans\":");
        strings(sb, f.collectorBeans());
        sb.append(",\"heapInitBytes\":");
        Json.number(sb, heap.getInit() < 0 ? Double.NaN : heap.getInit());
        sb.append(",\"heapMaxBytes\":");
        Json.number(sb, heap.getMax() < 0 ? Double.NaN : heap.getMax());
        sb.append(",\"heapCommittedBytes\":");
        Json.number(sb, heap.getCommitted());
        sb.append(",\"gcOptions\":");
        strings(sb, f.gcOptions());
        sb.append(",\"effective\":{");
        boolean first = true;
        for (Map.Entry<String, String> e : f.effective().entrySet()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            Json.string(sb, e.getKey());
            sb.append(':');
            Json.string(sb, e.getValue());
        }
        int exit = report.exitCode();
        sb.append("},\"check\":{\"verdict\":");
        Json.string(sb, exit == 0 ? "clean" : exit == 1 ? "warnings" : "stop");
        sb.append(",\"exitCode\":").append(exit).append(",\"occupants\":").append(users).append(",\"host\":");
        Json.string(sb, f.host().name().toLowerCase(java.util.Locale.ROOT));
        sb.append(",\"findings\":[");
        first = true;
        for (JvmFlagCheck.Finding finding : report.findings()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            sb.append("{\"severity\":");
            Json.string(sb, finding.severity().name());
            sb.append(",\"option\":");
            Json.string(sb, finding.option());
            sb.append(",\"problem\":");
            Json.string(sb, finding.problem());
            sb.append(",\"instead\":");
            Json.string(sb, finding.instead());
            sb.append('}');
        }
        sb.append("]}}");
    }

    private static void strings(StringBuilder sb, List<String> values) {
        sb.append('[');
        for (int i = 0; i < values.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            Json.string(sb, values.get(i));
        }
        sb.append(']');
    }
}
