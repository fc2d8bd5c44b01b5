package org.mucscale.engine.metrics.jvm;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Predicate;

/**
 * Checks a JVM's options for one JDK version: flags the JDK removed (the JVM does not start), flags it ignores or
 * deprecates, flags that fight the chosen collector, a heap too small for the expected users, and remote JMX without
 * authentication or TLS. Each finding says what to use instead. Pure: no I/O (the host checks, such as whether a GC
 * log's directory exists, are in {@link JvmFlagCheckCli}); the dashboard calls it on the running JVM's own arguments.
 *
 * <p>Only JDK classes are used, so {@code java -cp mucscale-metrics-*.jar} (the plugin's {@code lib/} folder) or the
 * standalone jar is enough to run the command-line form.
 */
public final class JvmFlagCheck {

    /** NOTE: worth knowing, exit 0; WARN: exit 1; STOP: the JVM will not start, exit 2. */
    public enum Severity { NOTE, WARN, STOP }

    /** One finding: the option as written, what is wrong on the target JDK, and what to use instead. */
    public record Finding(Severity severity, String option, String problem, String instead) {
    }

    /** The verdict on a set of options for one JDK: findings in option order, worst severity first in the exit. */
    public record Report(int jdk, String collector, OptionalLong maxHeapBytes, List<Finding> findings) {
        /** The worst severity, or null when there is nothing at all. */
        public Severity worst() {
            Severity w = null;
            for (Finding f : findings) {
                if (w == null || f.severity().compareTo(w) > 0) {
                    w = f.severity();
                }
            }
            return w;
        }

        /** 0 clean (notes only), 1 warnings, 2 something stops the JVM. */
        public int exitCode() {
            Severity w = worst();
            return w == Severity.STOP ? 2 : w == Severity.WARN ? 1 : 0;
        }

        public long count(Severity s) {
            return findings.stream().filter(f -> f.severity() == s).count();
        }
    }

    /**
     * Measured memory per user, the floor for {@code -Xmx} when the expected users are known. No live-heap-per-user
     * figure has been measured yet; these are the highest whole-process RSS per user measured for each form (RSS
     * includes the live heap, so they err on the side of a larger heap): docs/benchmarks/e2e.md.
     */
    public enum Host {
        /** mucscale inside Openfire: 625 kB RSS per user (rooms50, 2,000 users, offered 1.5x capacity). */
        OPENFIRE(625_000L, "625 kB per user: the highest RSS per user measured with mucscale inside Openfire"
                + " (docs/benchmarks/e2e.md, rooms50 offered 1.5x)"),
        /** mucscale standalone: 274 kB RSS per user (rooms50 behind Prosody). */
        STANDALONE(274_000L, "274 kB per user: the highest RSS per user measured with mucscale standalone"
                + " (docs/benchmarks/e2e.md, rooms50 behind Prosody)");

        public final long bytesPerUser;
        final String source;

        Host(long bytesPerUser, String source) {
            this.bytesPerUser = bytesPerUser;
            this.source = source;
        }
    }

    private JvmFlagCheck() {
    }

    /**
     * Checks {@code options} (JVM options in command-line order, e.g. {@code -Xmx2g}, {@code -XX:+UseG1GC}) for JDK
     * feature version {@code jdk}. {@code users} is the expected number of users (0: no heap check);
     * {@code effectiveMaxHeap} is the running JVM's actual maximum heap when known (0: take it from the options).
     */
    public static Report check(List<String> options, int jdk, long users, Host host, long effectiveMaxHeap) {
        if (jdk < 8) {
            throw new IllegalArgumentException("jdk must be a feature version such as 17, 21 or 25, was " + jdk);
        }
        List<Finding> out = new ArrayList<>();
        Map<String, Boolean> collectors = new LinkedHashMap<>();
        Map<String, String> young = new LinkedHashMap<>();
        Map<String, String> props = new LinkedHashMap<>();
        String maxPause = null;
        boolean zgenerationalOn = false;
        boolean experimentalUnlocked = false;
        boolean cmsRequested = false;
        long xmx = -1;
        long xms = -1;
        String xmxOption = null;
        String xmsOption = null;

        for (String raw : options) {
            String o = raw.trim();
            if (o.isEmpty()) {
                continue;
            }
            if (o.startsWith("-XX:")) {
                Flag f = Flag.parse(o);
                if (f == null) {
                    continue;
                }
                if (f.name.equals("UnlockExperimentalVMOptions")) {
                    experimentalUnlocked = f.on;
                }
                if (JvmFlagRules.EXPERIMENTAL.contains(f.name) && !experimentalUnlocked) {
                    out.add(new Finding(Severity.STOP, o, "an experimental flag: the JVM refuses it unless"
                            + " -XX:+UnlockExperimentalVMOptions comes before it on the command line",
                            "put -XX:+UnlockExperimentalVMOptions before it, or remove it"));
                }
                JvmFlagRules.Lifecycle rule = JvmFlagRules.lookup(f.name);
                if (rule != null) {
                    Finding finding = rule.findingAt(o, jdk);
                    if (finding != null) {
                        out.add(finding);
                    }
                }
                if (f.name.equals("UseConcMarkSweepGC") || f.name.equals("UseParNewGC")) {
                    cmsRequested = f.on;
                }
                if (JvmFlagRules.COLLECTOR_FLAGS.contains(f.name)) {
                    collectors.put(f.name, f.on);
                } else if (JvmFlagRules.YOUNG_SIZING.contains(f.name)) {
                    young.put(f.name, o);
                } else if (f.name.equals("MaxGCPauseMillis")) {
                    maxPause = o;
                } else if (f.name.equals("ZGenerational")) {
                    zgenerationalOn = f.on;
                } else if (f.name.equals("MaxHeapSize") && f.value != null) {
                    xmx = parseSize(f.value, o);
                    xmxOption = o;
                } else if (f.name.equals("InitialHeapSize") && f.value != null) {
                    xms = parseSize(f.value, o);
                    xmsOption = o;
                }
            } else if (o.startsWith("-Xmx")) {
                xmx = parseSize(o.substring(4), o);
                xmxOption = o;
            } else if (o.startsWith("-Xms")) {
                xms = parseSize(o.substring(4), o);
                xmsOption = o;
            } else if (o.startsWith("-Xmn")) {
                young.put("Xmn", o);
            } else if (o.startsWith("-Xloggc:") || o.equals("-Xloggc")) {
                out.add(new Finding(Severity.WARN, o, "legacy GC logging, deprecated since JDK 9 (the JVM warns and"
                        + " maps it to -Xlog:gc without details or rotation)", gcLogAdvice()));
            } else if (o.equals("-Xincgc")) {
                out.add(new Finding(Severity.STOP, o, "incremental CMS, removed in JDK 9: \"Unrecognized option\","
                        + " the JVM does not start", "remove it; " + modernGc()));
            } else if (o.equals("-Xverify:none") || o.equals("-noverify")) {
                out.add(new Finding(Severity.WARN, o, "deprecated since JDK 13; turns bytecode verification off",
                        "remove it (it only shaved start-up time)"));
            } else if (o.startsWith("-D")) {
                int eq = o.indexOf('=');
                props.put(eq < 0 ? o.substring(2) : o.substring(2, eq), eq < 0 ? "" : o.substring(eq + 1));
            }
        }

        // Collector: the JVM refuses two; none named means ergonomics.
        List<String> selected = new ArrayList<>();
        collectors.forEach((flag, on) -> {
            if (on) {
                selected.add(flag);
            }
        });
        String collector;
        if (selected.size() > 1) {
            out.add(new Finding(Severity.STOP, String.join(" ", selected.stream().map(s -> "-XX:+" + s).toList()),
                    "\"Multiple garbage collectors selected\": the JVM does not start", "keep exactly one"));
            collector = "conflict";
        } else if (selected.isEmpty() && cmsRequested) {
            collector = "CMS (removed in JDK 15)";
        } else if (selected.isEmpty()) {
            collector = "G1 (default)";
            out.add(new Finding(Severity.NOTE, "(no collector flag)", "the JVM picks G1 on a machine with 2+ CPUs and"
                    + " 2+ GiB, and the Serial collector (stop-the-world) in a smaller container or VM",
                    "name the collector: one of the presets in jvm-tuning/presets"));
        } else {
            collector = JvmFlagRules.collectorName(selected.get(0));
        }
        boolean g1 = collector.startsWith("G1");
        boolean zgc = collector.equals("ZGC");
        boolean shenandoah = collector.equals("Shenandoah");

        for (String y : young.values()) {
            if (collector.startsWith("CMS")) {
                out.add(new Finding(Severity.WARN, y, "sized CMS's young generation; once CMS is replaced, it fights"
                        + " the replacement: under G1 it fixes the young generation so G1 cannot meet its pause goal,"
                        + " under ZGC it does nothing", "remove it together with the CMS flags"));
            } else if (g1) {
                out.add(new Finding(Severity.WARN, y, "fixes the young generation's size under G1, so G1 can no longer"
                        + " resize it to meet its pause goal (MaxGCPauseMillis); pauses grow with the fixed size",
                        "remove it and set -XX:MaxGCPauseMillis instead (preset g1-low-pause)"));
            } else if (zgc || shenandoah) {
                out.add(new Finding(Severity.WARN, y, collector + " sizes its generations itself; the JVM accepts this"
                        + " flag silently and it does nothing useful", "remove it"));
            }
        }
        if (maxPause != null && (zgc || shenandoah)) {
            out.add(new Finding(Severity.WARN, maxPause, collector + " has no pause-time goal; the flag is accepted"
                    + " and ignored", "remove it (" + collector + " pauses are already sub-millisecond)"));
        }
        if (zgc && jdk >= 21 && jdk <= 22 && !zgenerationalOn) {
            out.add(new Finding(Severity.WARN, "-XX:+UseZGC", "on JDK " + jdk + " this is single-generation ZGC,"
                    + " which collects the whole heap each cycle and needs far more headroom",
                    "add -XX:+ZGenerational (preset zgc-generational)"));
        }
        if (collector.equals("Parallel") || collector.equals("Serial")) {
            out.add(new Finding(Severity.NOTE, "-XX:+Use" + collector + "GC", "a stop-the-world collector: every"
                    + " collection stops all threads, and full collections grow with the old generation",
                    "for live chat: " + modernGc()));
        }
        if (collector.equals("Epsilon")) {
            out.add(new Finding(Severity.WARN, "-XX:+UseEpsilonGC", "never collects: the server dies when the heap"
                    + " is full", modernGc()));
        }

        // Heap.
        if (xms > 0 && xmx > 0 && xms > xmx) {
            out.add(new Finding(Severity.STOP, xmsOption + " " + xmxOption, "\"Initial heap size set to a larger value"
                    + " than the maximum heap size\": the JVM does not start", "set -Xms equal to -Xmx"));
        } else if (xms > 0 && xmx > 0 && xms < xmx && (g1 || zgc || shenandoah)) {
            out.add(new Finding(Severity.NOTE, xmsOption + " " + xmxOption, "the heap resizes between -Xms and -Xmx",
                    "-Xms = -Xmx with -XX:+AlwaysPreTouch: a heap that never resizes never pauses to resize"));
        }
        long maxHeap = effectiveMaxHeap > 0 ? effectiveMaxHeap : xmx;
        if (users > 0) {
            Host r = host == null ? Host.OPENFIRE : host;
            long floor = users * r.bytesPerUser;
            if (maxHeap <= 0) {
                out.add(new Finding(Severity.NOTE, "(no -Xmx)", "the maximum heap is 1/4 of the machine's RAM,"
                        + " so it cannot be checked against " + users + " users (needs at least "
                        + size(floor) + ": " + r.source + ")", "-Xms = -Xmx = " + size(Math.max(floor, 1L << 30))
                        + " or more"));
            } else if (maxHeap < floor) {
                out.add(new Finding(Severity.WARN, xmxOption == null ? "max heap " + size(maxHeap) : xmxOption,
                        "heap " + size(maxHeap) + " is too small for " + users + " users: at least " + size(floor)
                                + " (" + r.source + ")",
                        "-Xms = -Xmx = " + size(roundUpGiB(floor * 3 / 2)) + " (the floor plus half for collection"
                                + " headroom), then size from the live set after a full GC (about 3x)"));
            }
        }

        // Remote JMX: the unauthenticated form from old guides gives anyone who reaches the port the JVM.
        if (props.containsKey("com.sun.management.jmxremote.port")) {
            if ("false".equalsIgnoreCase(props.get("com.sun.management.jmxremote.authenticate"))) {
                out.add(new Finding(Severity.WARN, "-Dcom.sun.management.jmxremote.authenticate=false",
                        "remote JMX without a password: anyone who reaches the port can run code in the server",
                        "authentication and TLS: jvm-tuning/addons/jmx-tls.jvmopts"));
            }
            if ("false".equalsIgnoreCase(props.get("com.sun.management.jmxremote.ssl"))) {
                out.add(new Finding(Severity.WARN, "-Dcom.sun.management.jmxremote.ssl=false",
                        "remote JMX in clear text: passwords and data cross the network readable",
                        "TLS: jvm-tuning/addons/jmx-tls.jvmopts"));
            }
        }
        return new Report(jdk, collector, maxHeap > 0 ? OptionalLong.of(maxHeap) : OptionalLong.empty(),
                List.copyOf(out));
    }

    /** The GC-related options among {@code options} (collector, heap, pauses, GC logging), for display. */
    public static List<String> gcRelated(List<String> options) {
        Predicate<String> gc = o -> o.startsWith("-Xm") || o.startsWith("-Xlog:gc") || o.startsWith("-Xloggc")
                || o.startsWith("-Xincgc") || (o.startsWith("-XX:") && isGcFlagName(Flag.nameOf(o)));
        return options.stream().filter(gc).toList();
    }

    private static boolean isGcFlagName(String n) {
        String l = n.toLowerCase(Locale.ROOT);
        return l.contains("gc") || l.contains("heap") || l.contains("new") || l.contains("survivor")
                || l.contains("tenur") || l.contains("pause") || l.startsWith("cms") || l.startsWith("z")
                || l.startsWith("shenandoah") || l.startsWith("g1") || l.contains("pretouch")
                || l.contains("largepages") || l.contains("hugepages") || l.contains("perm")
                || l.contains("metaspace") || l.contains("ram") || l.contains("outofmemory")
                || l.contains("deduplication") || l.contains("refproc");
    }

    static String modernGc() {
        return "-XX:+UseZGC on JDK 21+ (preset zgc-generational) or -XX:+UseG1GC -XX:MaxGCPauseMillis=20 on JDK 17"
                + " (preset g1-low-pause)";
    }

    static String gcLogAdvice() {
        return "-Xlog:gc*,safepoint:file=/var/log/openfire/gc.log:time,uptime,level,tags:filecount=10,filesize=20m"
                + " (jvm-tuning/addons/gc-log.jvmopts)";
    }

    /** Parses a HotSpot size ({@code 512m}, {@code 2G}, {@code 1073741824}); clear error naming the option. */
    static long parseSize(String value, String option) {
        String v = value.trim();
        if (v.isEmpty()) {
            throw new IllegalArgumentException(option + ": a size is missing (e.g. 2g)");
        }
        char last = Character.toLowerCase(v.charAt(v.length() - 1));
        long unit = switch (last) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            case 't' -> 1L << 40;
            default -> 1;
        };
        String digits = unit == 1 ? v : v.substring(0, v.length() - 1);
        try {
            long n = Long.parseLong(digits);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return Math.multiplyExact(n, unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException(option + ": '" + value + "' is not a size (e.g. 512m, 2g)");
        }
    }

    static String size(long bytes) {
        if (bytes >= (1L << 30) && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + " GiB";
        }
        if (bytes >= (1L << 30)) {
            return String.format(Locale.ROOT, "%.1f GiB", bytes / (double) (1L << 30));
        }
        return (bytes + (1L << 20) - 1 >> 20) + " MiB";
    }

    private static long roundUpGiB(long bytes) {
        long g = 1L << 30;
        return (bytes + g - 1) / g * g;
    }

    /** A parsed {@code -XX:} option: {@code +Name}, {@code -Name} or {@code Name=value}. */
    record Flag(String name, boolean on, String value) {
        static Flag parse(String option) {
            String s = option.substring(4);
            if (s.startsWith("+") || s.startsWith("-")) {
                return s.length() > 1 ? new Flag(s.substring(1), s.charAt(0) == '+', null) : null;
            }
            int eq = s.indexOf('=');
            return eq <= 0 ? null : new Flag(s.substring(0, eq), true, s.substring(eq + 1));
        }

        static String nameOf(String option) {
            Flag f = parse(option);
            return f == null ? "" : f.name;
        }
    }
}
