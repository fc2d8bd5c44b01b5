package org.mucscale.loadgen;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time and resident memory of a process, read from Linux /proc; of this JVM via its MXBean. */
final class ProcStat {
    /** Linux USER_HZ, the unit of utime/stime in /proc/<pid>/stat (100 on every mainstream distribution). */
    static final long TICKS_PER_SECOND = 100;

    private ProcStat() {
    }

    /** CPU time (user + system) of pid in nanoseconds, or -1 when the process is gone or unreadable. */
    static long cpuNs(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return cpuNsFromStat(stat);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Parses a /proc/<pid>/stat line; the command name may hold spaces and parentheses, so fields start after the last ')'. */
    static long cpuNsFromStat(String stat) {
        int close = stat.lastIndexOf(')');
        String[] f = stat.substring(close + 2).trim().split(" ");
        // f[0] is field 3 (state); utime is field 14, stime field 15
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
        return ticks * (1_000_000_000L / TICKS_PER_SECOND);
    }

    /** Resident set size of pid in kB, or -1. */
    static long rssKb(String pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    String v = line.substring(6).trim();
                    int sp = v.indexOf(' ');
                    return Long.parseLong(sp > 0 ? v.substring(0, sp) : v);
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /** CPU time of this JVM process (all threads, GC included) in nanoseconds. */
    static long ownCpuNs() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            return sun.getProcessCpuTime();
        }
        return -1;
    }

    /**
     * CPU milliseconds of each thread of this process, grouped by thread name without digits (so "NioProcessor-3"
     * and "NioProcessor-4" add up), read from /proc/self/task; includes JVM threads (GC, JIT) MXBeans do not show.
     */
    static java.util.Map<String, Long> ownThreadCpuMs() {
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
        try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    int open = stat.indexOf('(');
                    int close = stat.lastIndexOf(')');
                    StringBuilder name = new StringBuilder();
                    for (char c : stat.substring(open + 1, close).toCharArray()) {
                        if (!Character.isDigit(c)) {
                            name.append(c);
                        }
                    }
                    long ms = cpuNsFromStat(stat) / 1_000_000;
                    out.merge(name.toString().trim(), ms, Long::sum);
                } catch (IOException | RuntimeException e) {
                    // a thread that ended while we looked
                }
            }
        } catch (IOException e) {
            return out;
        }
        return out;
    }
}
