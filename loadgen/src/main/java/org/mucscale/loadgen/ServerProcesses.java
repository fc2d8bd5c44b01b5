package org.mucscale.loadgen;

import java.util.ArrayList;
import java.util.List;

/**
 * The server under test as one or more processes whose CPU time and resident memory are summed: a server is often
 * more than one process (Prosody plus the mucscale component beside it, or an Erlang VM plus epmd), and the cost per
 * delivery must include all of them. Immutable; read from the sampler's thread only.
 */
final class ServerProcesses {
    private static final ServerProcesses NONE = new ServerProcesses(new long[0]);

    private final long[] pids;

    private ServerProcesses(long[] pids) {
        this.pids = pids;
    }

    /** The given processes, in order; null or empty means none (no server sampling). */
    static ServerProcesses of(List<Long> pids) {
        if (pids == null || pids.isEmpty()) {
            return NONE;
        }
        long[] a = new long[pids.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = pids.get(i);
        }
        return new ServerProcesses(a);
    }

    /**
     * Process ids from one {@code --server-pid} value: a single pid or a comma-separated list ("123,456").
     *
     * @throws IllegalArgumentException naming the value when an element is not a positive whole number
     */
    static List<Long> parse(String value) {
        List<Long> out = new ArrayList<>();
        int start = 0;
        while (start <= value.length()) {
            int comma = value.indexOf(',', start);
            int end = comma < 0 ? value.length() : comma;
            String part = value.substring(start, end).trim();
            long pid;
            try {
                pid = Long.parseLong(part);
            } catch (NumberFormatException e) {
                pid = -1;
            }
            if (pid <= 0) {
                throw new IllegalArgumentException("--server-pid must be a process id or a comma-separated list of them, was '"
                        + value + "'");
            }
            out.add(pid);
            start = end + 1;
        }
        return out;
    }

    boolean none() {
        return pids.length == 0;
    }

    int count() {
        return pids.length;
    }

    long pid(int i) {
        return pids[i];
    }

    /**
     * CPU time (user + system) of all processes together in nanoseconds; -1 when there are none or any of them is
     * gone or unreadable (a partial sum would show as a sudden drop in CPU, i.e. a wrong rate).
     */
    long cpuNs() {
        if (pids.length == 0) {
            return -1;
        }
        long sum = 0;
        for (long pid : pids) {
            long ns = ProcStat.cpuNs(pid);
            if (ns < 0) {
                return -1;
            }
            sum += ns;
        }
        return sum;
    }

    /** Resident set size of all processes together in kB; -1 when there are none or any is gone or unreadable. */
    long rssKb() {
        if (pids.length == 0) {
            return -1;
        }
        long sum = 0;
        for (long pid : pids) {
            long kb = ProcStat.rssKb(Long.toString(pid));
            if (kb < 0) {
                return -1;
            }
            sum += kb;
        }
        return sum;
    }
}
