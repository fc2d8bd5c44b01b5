package org.mucscale.standalone;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The timeline of one failover in {@link ClusterProcessesEndToEndTest}, in milliseconds after the kill: what each
 * surviving node logged (its Hazelcast member's suspicion and removal of the dead member, the link taken over, the
 * engine's view change, the rooms taken over, replication rounds that stalled) merged with what the clients saw (per
 * room the first message accepted again, per second the round-trip p99 and the worst delivery lag). The node processes
 * log with {@code HH:mm:ss.SSS} timestamps ({@link #LOG_TIME_FLAGS}); lines that carry their own epoch milliseconds
 * ({@code ... at 1795856137914}) are placed by those.
 *
 * <p>A measurement, not an assertion: nothing here fails the test.
 */
final class FailoverTimeline {
    /** JVM options for a node process: slf4j-simple prefixes every line with the wall-clock time. */
    static final List<String> LOG_TIME_FLAGS = List.of("-Dorg.slf4j.simpleLogger.showDateTime=true",
            "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");

    private static final Pattern LOG_TIME = Pattern.compile("^(\\d\\d:\\d\\d:\\d\\d\\.\\d\\d\\d) ");
    private static final Pattern EPOCH_AT = Pattern.compile(" at (\\d{13})$");
    private static final Pattern ROUND = Pattern.compile("replication round of (\\d+) entries \\((\\d+) flushes\\) took "
            + "(\\d+) ms, started at (\\d{13})");
    /** What of a node's log belongs on the timeline (text to find, label). */
    private static final String[][] EVENTS = {
            {"is suspected to be dead", "hazelcast suspects the dead member"},
            {"astership", "hazelcast master change"},
            {"has left cluster", "hazelcast removed the dead member"},
            {"departed [", "engine view without the dead member"},
            {"on its room thread", "a room taken over, on its room thread"},
            {"took over ", "rooms adopted"},
            {"messages again that", "unconfirmed messages resent"},
            {"connected at ", "component link"},
            {"members=", "view size"},
            {"Remaining migration", "hazelcast migrations"},
            {"All migration tasks", "hazelcast migrations done"},
    };

    private final long killMillis;
    private final List<String> lines = new ArrayList<>();
    private final List<long[]> events = new ArrayList<>(); // {ms after kill, index into texts}
    private final List<String> texts = new ArrayList<>();

    FailoverTimeline(long killMillis) {
        this.killMillis = killMillis;
        add(0, "kill -9 of node 0 (holds the component link)");
    }

    private void add(long msAfterKill, String text) {
        events.add(new long[] {msAfterKill, texts.size()});
        texts.add(text);
    }

    /** The events of node {@code node}'s log from 1 s before the kill to {@code untilMs} after it. */
    void nodeLog(int node, Path log, long untilMs) throws IOException {
        long day = LocalDate.now().atStartOfDay(ZoneId.systemDefault()).toInstant().toEpochMilli();
        int refused = 0;
        long firstRefused = -1;
        long lastRefused = -1;
        for (String line : Files.readAllLines(log)) {
            long at = -1;
            Matcher t = LOG_TIME.matcher(line);
            if (t.find()) {
                at = day + LocalTime.parse(t.group(1)).toNanoOfDay() / 1_000_000;
            }
            Matcher e = EPOCH_AT.matcher(line);
            if (e.find() && !line.contains("replication round")) {
                at = Long.parseLong(e.group(1));
            }
            if (at < 0) {
                continue;
            }
            long rel = at - killMillis;
            if (rel < -1000 || rel > untilMs) {
                continue;
            }
            Matcher r = ROUND.matcher(line);
            if (r.find()) {
                long started = Long.parseLong(r.group(4)) - killMillis;
                add(started, "node " + node + ": a replication round starts (" + r.group(1) + " entries, "
                        + r.group(2) + " flushes) that takes " + r.group(3) + " ms, until +"
                        + (started + Long.parseLong(r.group(3))));
                continue;
            }
            if (line.contains("Could not connect to")) {
                refused++;
                lastRefused = rel;
                if (firstRefused < 0) {
                    firstRefused = rel;
                }
                continue;
            }
            for (String[] ev : EVENTS) {
                if (line.contains(ev[0])) {
                    String detail = line.replaceFirst("^\\d\\d:\\d\\d:\\d\\d\\.\\d\\d\\d \\[[^]]*] ", "");
                    detail = detail.replaceAll("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<id>");
                    detail = detail.replaceAll("org\\.mucscale\\.engine\\.cluster\\.|com\\.hazelcast\\.[a-z.]*\\.", "");
                    add(rel, "node " + node + ": " + ev[1] + " | " + (detail.length() > 160 ? detail.substring(0, 160)
                            + "..." : detail));
                    break;
                }
            }
        }
        if (refused > 0) {
            add(firstRefused, "node " + node + ": hazelcast's reconnects to the dead member refused " + refused
                    + " times, until +" + lastRefused);
        }
    }

    /**
     * What the clients saw. {@code sentAt}: when a message (body) was sent; {@code reflected}: per message (body) when
     * its sender got it back; {@code arrivals}: every delivery as {receive nanos, its message's send nanos}; all nanos on one clock with
     * {@code killNanos}; {@code roomJids}: room k's address; {@code deadOwnersRooms}: the addresses of the rooms the
     * survivors took over.
     */
    ClientFigures clients(long killNanos, ToLongFunction<String> sentAt, Map<Integer, Map<String, Long>> reflectedByRoom,
                          List<long[]> arrivals, List<String> roomJids, List<String> deadOwnersRooms) {
        long worst = 0;
        for (Map.Entry<Integer, Map<String, Long>> room : new TreeMap<>(reflectedByRoom).entrySet()) {
            long first = Long.MAX_VALUE;
            for (Map.Entry<String, Long> r : room.getValue().entrySet()) {
                if (sentAt.applyAsLong(r.getKey()) > killNanos) {
                    first = Math.min(first, r.getValue());
                }
            }
            long ms = first == Long.MAX_VALUE ? -1 : TimeUnit.NANOSECONDS.toMillis(first - killNanos);
            worst = Math.max(worst, ms);
            boolean dead = deadOwnersRooms.contains(roomJids.get(room.getKey()));
            String name = roomJids.get(room.getKey());
            add(ms, "clients: " + name.substring(0, name.indexOf('@')) + (dead ? " (the dead node's)" : " (a live node's)")
                    + " accepts a message again (first reflection of a message sent after the kill)");
        }
        // round trips by the second they were sent in, after the kill
        Map<Long, List<Long>> rtt = new TreeMap<>();
        for (Map<String, Long> room : reflectedByRoom.values()) {
            for (Map.Entry<String, Long> r : room.entrySet()) {
                long at = sentAt.applyAsLong(r.getKey());
                if (at > killNanos) {
                    rtt.computeIfAbsent(TimeUnit.NANOSECONDS.toSeconds(at - killNanos),
                            x -> new ArrayList<>()).add(r.getValue() - at);
                }
            }
        }
        long firstGoodWindow = -1;
        long lastBad = -1;
        StringBuilder p99s = new StringBuilder();
        for (Map.Entry<Long, List<Long>> e : rtt.entrySet()) {
            long p99 = TimeUnit.NANOSECONDS.toMillis(p99(e.getValue()));
            p99s.append(p99s.length() == 0 ? "" : " ").append(p99);
            if (p99 < 100 && firstGoodWindow < 0) {
                firstGoodWindow = e.getKey();
            }
            if (p99 >= 100) {
                lastBad = e.getKey();
            }
        }
        // the steady state before the kill, for comparison: round trips of the 3 s before it
        List<Long> before = new ArrayList<>();
        for (Map<String, Long> room : reflectedByRoom.values()) {
            for (Map.Entry<String, Long> r : room.entrySet()) {
                long at = sentAt.applyAsLong(r.getKey());
                if (at <= killNanos && killNanos - at < TimeUnit.SECONDS.toNanos(3)) {
                    before.add(r.getValue() - at);
                }
            }
        }
        if (!before.isEmpty()) {
            lines.add("round-trip p99 in the 3 s before the kill: " + TimeUnit.NANOSECONDS.toMillis(p99(before))
                    + " ms (" + before.size() + " round trips)");
        }
        // every delivery's lag (arrival minus its message's sending), by the second it arrived in
        Map<Long, List<Long>> lag = new TreeMap<>();
        long lastLate = -1;
        for (long[] a : arrivals) {
            long l = a[0] - a[1];
            if (a[0] > killNanos) {
                lag.computeIfAbsent(TimeUnit.NANOSECONDS.toSeconds(a[0] - killNanos), x -> new ArrayList<>()).add(l);
                if (l >= TimeUnit.MILLISECONDS.toNanos(500)) {
                    lastLate = Math.max(lastLate, a[0]);
                }
            }
        }
        StringBuilder lags = new StringBuilder();
        for (Map.Entry<Long, List<Long>> e : lag.entrySet()) {
            List<Long> l = e.getValue();
            lags.append(lags.length() == 0 ? "" : " ").append(TimeUnit.NANOSECONDS.toMillis(Collections.max(l)));
        }
        long drained = lastLate < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(lastLate - killNanos);
        if (drained >= 0) {
            add(drained, "clients: backlog drained (the last delivery that arrived 0.5 s or more after it was sent)");
        }
        if (firstGoodWindow >= 0) {
            add(firstGoodWindow * 1000, "clients: first 1-s window (by sending time) with round-trip p99 < 100 ms");
        }
        long forGood = (lastBad + 1) * 1000;
        add(forGood, "clients: round-trip p99 < 100 ms in every later 1-s window");
        lines.add("round-trip p99 (ms) per second after the kill, by sending time: " + p99s);
        lines.add("worst delivery lag (ms) per second after the kill, by arrival time: " + lags);
        return new ClientFigures(worst, forGood, "rooms accept again after " + worst
                + " ms; first 1-s window with p99 < 100 ms: "
                + (firstGoodWindow < 0 ? "none" : "+" + firstGoodWindow * 1000 + " ms") + "; p99 < 100 ms for good after "
                + forGood + " ms; backlog drained after " + drained + " ms");
    }

    /**
     * The clients' failover figures in ms after the kill: when the last room accepted a message again, from when on
     * every second's round-trip p99 stayed under 100 ms, and the summary line with them.
     */
    record ClientFigures(long roomsAcceptAgainMs, long p99ForGoodMs, String summary) {
    }

    private static long p99(List<Long> values) {
        List<Long> l = new ArrayList<>(values);
        Collections.sort(l);
        return l.get((int) Math.min(l.size() - 1, Math.ceil(l.size() * 0.99) - 1));
    }

    /** The timeline, ordered by time, then the per-second series. */
    List<String> render() {
        List<String> out = new ArrayList<>();
        events.stream().sorted(Comparator.comparingLong(e -> e[0]))
                .forEach(e -> out.add(String.format("TIMELINE %+7d ms  %s", e[0], texts.get((int) e[1]))));
        for (String l : lines) {
            out.add("TIMELINE " + l);
        }
        return out;
    }
}
