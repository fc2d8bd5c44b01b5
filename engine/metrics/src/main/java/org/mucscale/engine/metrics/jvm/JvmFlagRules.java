package org.mucscale.engine.metrics.jvm;

import java.util.List;
import java.util.Locale;

/**
 * What each JDK does with the flags operators copy from old guides, in HotSpot's own model (the
 * {@code special_jvm_flags} table of {@code arguments.cpp}): a flag is <em>deprecated</em> (works, warns),
 * <em>obsolete</em> (accepted with "Ignoring option …; support was removed in N", does nothing) or <em>expired</em>
 * (gone: "Unrecognized VM option", the JVM does not start). Flags that appeared late (ZGenerational, 21) stop a JDK
 * older than that.
 *
 * <p>The verdicts for JDK 17 and 25 are checked against the real JDKs by {@code JvmFlagRulesJdkTest} (each STOP rule
 * must make {@code java <flag> -version} fail, each WARN rule must start with a warning naming the flag). JDK 21 is not
 * installed where that test ran; its verdicts follow the same table (versions from the JDK sources). Versions before
 * 17 are given for the operator's information and are not claimed.
 */
final class JvmFlagRules {

    /** Sentinel: the flag never reached that stage. */
    static final int NEVER = 0;

    private static final String GC_LOG = "-Xlog:gc*,safepoint:file=/var/log/openfire/gc.log:time,uptime,level,tags"
            + ":filecount=10,filesize=20m (jvm-tuning/addons/gc-log.jvmopts)";
    private static final String MODERN_GC = "-XX:+UseZGC on JDK 21+ (preset zgc-generational) or -XX:+UseG1GC"
            + " -XX:MaxGCPauseMillis=20 with -Xms = -Xmx on JDK 17 (preset g1-low-pause)";
    private static final String REMOVE = "remove it";

    /**
     * One {@code -XX:} flag's life. {@code introducedIn}, {@code deprecatedIn}, {@code obsoleteIn}, {@code expiredIn}
     * are JDK feature versions or {@link #NEVER}. {@code prefix} true: the rule covers every flag starting with
     * {@code name} (the CMS family).
     */
    record Lifecycle(String name, boolean prefix, int introducedIn, int deprecatedIn, int obsoleteIn, int expiredIn,
                     String about, String instead) {

        boolean matches(String flag) {
            return prefix ? flag.startsWith(name) : flag.equals(name);
        }

        /** What {@code jdk} does with the flag. */
        Stage stageAt(int jdk) {
            if (introducedIn != NEVER && jdk < introducedIn) {
                return Stage.NOT_YET;
            }
            if (expiredIn != NEVER && jdk >= expiredIn) {
                return Stage.EXPIRED;
            }
            if (obsoleteIn != NEVER && jdk >= obsoleteIn) {
                return Stage.OBSOLETE;
            }
            if (deprecatedIn != NEVER && jdk >= deprecatedIn) {
                return Stage.DEPRECATED;
            }
            return Stage.CURRENT;
        }

        /** The finding for {@code option} on {@code jdk}, or null when the flag is current there. */
        JvmFlagCheck.Finding findingAt(String option, int jdk) {
            return switch (stageAt(jdk)) {
                case CURRENT -> null;
                case NOT_YET -> new JvmFlagCheck.Finding(JvmFlagCheck.Severity.STOP, option,
                        "JDK " + jdk + " does not know it (it appeared in JDK " + introducedIn
                                + "): \"Unrecognized VM option\", the JVM does not start. " + about, instead);
                case EXPIRED -> new JvmFlagCheck.Finding(JvmFlagCheck.Severity.STOP, option,
                        "removed" + since(expiredIn) + ": \"Unrecognized VM option\", the JVM does not start on JDK "
                                + jdk + ". " + about, instead);
                case OBSOLETE -> new JvmFlagCheck.Finding(JvmFlagCheck.Severity.WARN, option,
                        "ignored on JDK " + jdk + " (\"Ignoring option; support was removed in " + obsoleteIn
                                + ".0\"): it does nothing. " + about, instead);
                case DEPRECATED -> new JvmFlagCheck.Finding(JvmFlagCheck.Severity.WARN, option,
                        "deprecated since JDK " + deprecatedIn + " (the JVM warns at start and will drop it). "
                                + about, instead);
            };
        }

        private static String since(int version) {
            return version == NEVER ? "" : " in JDK " + version;
        }
    }

    enum Stage { NOT_YET, CURRENT, DEPRECATED, OBSOLETE, EXPIRED }

    /** The table. Order matters only for prefix rules: a named rule listed before a prefix rule wins. */
    static final List<Lifecycle> FLAGS = List.of(
            // The collector the reference operator and Tigase's 2009 guide ran: CMS, removed by JEP 363.
            flag("UseConcMarkSweepGC", 9, 14, 15, "CMS, the concurrent mark-sweep collector (JEP 363).", MODERN_GC),
            flag("UseParNewGC", 9, 10, 11, "ParNew was CMS's young collector.",
                    REMOVE + "; the collector you pick has its own young collection (" + MODERN_GC + ")"),
            flag("CMSIncrementalMode", 8, 9, 10, "Incremental CMS, for one-CPU machines of 2009.",
                    REMOVE + "; " + MODERN_GC),
            prefix("CMS", 9, 14, 15, "A CMS tuning flag; CMS is gone (JEP 363).",
                    REMOVE + " (G1's counterpart of CMSInitiatingOccupancyFraction is"
                            + " -XX:InitiatingHeapOccupancyPercent; ZGC needs none)"),
            flag("ParallelCMSThreads", 9, 14, 15, "CMS's concurrent threads; CMS is gone (JEP 363).",
                    REMOVE + " (-XX:ConcGCThreads is the modern collectors' counterpart; rarely needed)"),
            flag("UseCMSInitiatingOccupancyOnly", 9, 14, 15, "A CMS tuning flag; CMS is gone (JEP 363).", REMOVE),
            flag("UseCMSCompactAtFullCollection", 9, 14, 15, "A CMS tuning flag; CMS is gone (JEP 363).", REMOVE),
            flag("PermSize", NEVER, 8, 17, "The permanent generation was replaced by native Metaspace in JDK 8.",
                    REMOVE + " (leave Metaspace unbounded; -XX:MaxMetaspaceSize only to cap a class-loader leak)"),
            flag("MaxPermSize", NEVER, 8, 17, "The permanent generation was replaced by native Metaspace in JDK 8.",
                    REMOVE + " (leave Metaspace unbounded; -XX:MaxMetaspaceSize only to cap a class-loader leak)"),
            flag("UseParallelOldGC", 14, 15, 16, "Parallel old-generation collection is part of -XX:+UseParallelGC.",
                    "-XX:+UseParallelGC if you really want the throughput collector (not for chat: " + MODERN_GC
                            + ")"),
            flag("AggressiveOpts", 11, 12, 13, "It enabled experimental optimisations of its day.", REMOVE),
            flag("UseBiasedLocking", 15, 18, 19, "Biased locking was removed (JEP 374).", REMOVE),
            flag("BiasedLockingStartupDelay", 15, 18, 19, "Biased locking was removed (JEP 374).", REMOVE),
            flag("UseMembar", 10, 12, 13, "", REMOVE),
            flag("UseFastAccessorMethods", NEVER, 9, 10, "", REMOVE),
            flag("UseSplitVerifier", NEVER, 8, 9, "", REMOVE),
            flag("UseCGroupMemoryLimitForHeap", 10, 11, 12,
                    "Container limits are honoured by default (UseContainerSupport).",
                    REMOVE + "; size the heap with -Xmx (or -XX:MaxRAMPercentage in a container)"),
            flag("UnlockCommercialFeatures", NEVER, 11, 11,
                    "An Oracle JDK 8 switch for Flight Recorder, free in every JDK since 11.",
                    REMOVE + "; continuous recording: jvm-tuning/addons/jfr.jvmopts"),
            flag("FlightRecorder", 13, NEVER, NEVER, "Flight Recorder is always available.",
                    "-XX:StartFlightRecording=... (jvm-tuning/addons/jfr.jvmopts)"),
            flag("ExplicitGCInvokesConcurrentAndUnloadsClasses", 9, 10, 11, "", "-XX:+ExplicitGCInvokesConcurrent"),
            // Generational ZGC: a switch on 21-22, the default on 23 (non-generational deprecated), the only mode
            // from 24 (JEP 490). Not known to JDK 17.
            new Lifecycle("ZGenerational", false, 21, 23, 24, 26,
                    "It selected generational ZGC on JDK 21-22; from JDK 24 ZGC is always generational.",
                    "-XX:+UseZGC alone on JDK 23+; on JDK 21-22 keep -XX:+ZGenerational; on JDK 17 ZGC is"
                            + " single-generation only"),
            // Legacy GC logging (JEP 158/271, JDK 9): the first two still map to -Xlog, the rest are gone.
            flag("PrintGCDetails", 9, NEVER, NEVER, "Legacy GC logging; the JVM maps it to -Xlog:gc*.", GC_LOG),
            flag("PrintGC", 9, NEVER, NEVER, "Legacy GC logging; the JVM maps it to -Xlog:gc.", GC_LOG),
            legacyLog("PrintGCTimeStamps"), legacyLog("PrintGCDateStamps"), legacyLog("PrintTenuringDistribution"),
            legacyLog("PrintHeapAtGC"), legacyLog("PrintGCApplicationStoppedTime"),
            legacyLog("PrintGCApplicationConcurrentTime"), legacyLog("PrintAdaptiveSizePolicy"),
            legacyLog("PrintGCCause"), legacyLog("PrintReferenceGC"), legacyLog("PrintPromotionFailure"),
            legacyLog("UseGCLogFileRotation"), legacyLog("NumberOfGCLogFiles"), legacyLog("GCLogFileSize"),
            legacyLog("PrintSafepointStatistics"), legacyLog("PrintSafepointStatisticsCount"));

    /** Flags that must follow {@code -XX:+UnlockExperimentalVMOptions} on the command line. */
    static final List<String> EXPERIMENTAL = List.of("G1NewSizePercent", "G1MaxNewSizePercent",
            "G1MixedGCLiveThresholdPercent", "G1OldCSetRegionThresholdPercent", "UseJVMCICompiler");

    /** Young-generation sizing: fixes what G1 adapts to its pause goal, and is not used by ZGC or Shenandoah. */
    static final List<String> YOUNG_SIZING = List.of("NewRatio", "NewSize", "MaxNewSize");

    /** Collector-selecting flags and the collector each selects. */
    static final List<String> COLLECTOR_FLAGS = List.of("UseSerialGC", "UseParallelGC", "UseG1GC", "UseZGC",
            "UseShenandoahGC", "UseEpsilonGC");

    private JvmFlagRules() {
    }

    /** The rule for a -XX flag name, or null. */
    static Lifecycle lookup(String flag) {
        for (Lifecycle l : FLAGS) {
            if (!l.prefix() && l.matches(flag)) {
                return l;
            }
        }
        for (Lifecycle l : FLAGS) {
            if (l.prefix() && l.matches(flag)) {
                return l;
            }
        }
        return null;
    }

    static String collectorName(String flag) {
        return switch (flag) {
            case "UseSerialGC" -> "Serial";
            case "UseParallelGC" -> "Parallel";
            case "UseG1GC" -> "G1";
            case "UseZGC" -> "ZGC";
            case "UseShenandoahGC" -> "Shenandoah";
            case "UseEpsilonGC" -> "Epsilon";
            default -> flag.toLowerCase(Locale.ROOT);
        };
    }

    private static Lifecycle flag(String name, int deprecated, int obsolete, int expired, String about,
                                  String instead) {
        return new Lifecycle(name, false, NEVER, deprecated, obsolete, expired, about, instead);
    }

    private static Lifecycle prefix(String name, int deprecated, int obsolete, int expired, String about,
                                    String instead) {
        return new Lifecycle(name, true, NEVER, deprecated, obsolete, expired, about, instead);
    }

    private static Lifecycle legacyLog(String name) {
        return new Lifecycle(name, false, NEVER, NEVER, 9, 9,
                "Legacy GC logging, replaced by unified logging (-Xlog) in JDK 9.", GC_LOG);
    }
}
