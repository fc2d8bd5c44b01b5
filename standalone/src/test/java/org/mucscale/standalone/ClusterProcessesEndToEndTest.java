package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.engine.cluster.Rendezvous;
import org.mucscale.engine.stanza.XmlElement;
import org.mucscale.testkit.FreePort;
import org.mucscale.testkit.PostgresServer;
import org.mucscale.testkit.ProsodyServer;

/**
 * Three standalone mucscale processes (separate JVMs, each a Hazelcast member on loopback) behind one real Prosody,
 * writing one room log in a real PostgreSQL, with real clients. Prosody accepts one link per component address, so one
 * node holds the link and the others wait to take it over (docs/cluster-servers.md).
 *
 * <p>Under traffic, the node holding the link (and owning about a third of the rooms) is killed with SIGKILL. Then:
 * every message any client saw reflected (accepted) is in the room log; nobody received a message twice; each sender's
 * messages arrived in order; no surviving occupant was removed; every room accepts messages again and all of them
 * reach every occupant. The failover times are printed (docs/benchmarks.md records them). Then a second node leaves
 * gracefully (SIGTERM) under traffic: nobody gets an error, and every message outside the second of the leave reaches
 * every occupant exactly once, in order (what the second of the leave misses is printed).
 */
class ClusterProcessesEndToEndTest {
    static final String DOMAIN = "example.test";
    static final String MUC = "muc." + DOMAIN;
    static final String SECRET = "cluster-secret";
    static final int NODES = 3;
    static final int USERS = 18;
    /**
     * Bound on the nodes' start and their cluster forming (seconds on a quiet machine; not what is checked): three
     * JVMs, Prosody and PostgreSQL starting at once took over a minute on the shared 2-core machine at load 30.
     */
    private static final Duration STARTUP = Duration.ofSeconds(180);
    static final int ROOMS = 6;

    @TempDir
    static Path dir;
    private static ProsodyServer prosody;
    private static PostgresServer postgres;
    private static final List<Process> processes = new ArrayList<>();
    private static final List<RawXmppClient> clients = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        prosody = ProsodyServer.builder().domain(DOMAIN).externalComponent("muc", SECRET).start();
        Map<String, String> accounts = new HashMap<>();
        for (int i = 0; i < USERS; i++) {
            accounts.put("user" + i, "pw");
        }
        prosody.createUsers(accounts);
        postgres = PostgresServer.startNew();
        List<Integer> ports = List.of(FreePort.next(), FreePort.next(), FreePort.next());
        for (int i = 0; i < NODES; i++) {
            processes.add(startNode(i, ports));
            if (i == 0) {
                awaitLine(0, "connected", STARTUP); // node 0 holds the link
            }
        }
        for (int i = 0; i < NODES; i++) {
            awaitLine(i, "members=3", STARTUP);
        }
        nameRooms();
    }

    /**
     * Room names such that each node owns {@code ROOMS / NODES} of the rooms (node ids are random, so with fixed names
     * the node that is killed owned no room in about one run of eleven, and its rooms' take-over went unmeasured):
     * the first names that {@link Rendezvous} gives to each node in turn, as every node computes it.
     */
    private static void nameRooms() throws IOException {
        List<String> ids = new ArrayList<>();
        java.util.regex.Pattern started = java.util.regex.Pattern.compile("as node ([0-9a-f-]{36})");
        for (int i = 0; i < NODES; i++) {
            java.util.regex.Matcher m = started.matcher(Files.readString(dir.resolve("node" + i + ".log")));
            if (!m.find()) {
                throw new AssertionError("node " + i + " did not log its node id");
            }
            ids.add(m.group(1));
        }
        int[] owned = new int[NODES];
        int k = 0;
        for (int candidate = 0; k < ROOMS && candidate < 10_000; candidate++) {
            String name = "room" + candidate;
            int owner = ids.indexOf(Rendezvous.owner(name + "@" + MUC, ids));
            int node = k * NODES / ROOMS; // rooms 0 and 1 on node 0, 2 and 3 on node 1, ...
            if (owner == node && owned[owner] < ROOMS / NODES) {
                owned[owner]++;
                ROOM_NAMES[k++] = name;
            }
        }
        assertThat(k).as("rooms named").isEqualTo(ROOMS);
    }

    /** Local part of room k's address (see nameRooms). */
    static final String[] ROOM_NAMES = new String[ROOMS];

    @AfterAll
    static void stop() throws Exception {
        for (RawXmppClient c : clients) {
            c.close();
        }
        for (Process p : processes) {
            p.destroy();
        }
        for (Process p : processes) {
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        // keep the nodes' logs for whoever reads a failure
        Path keep = Path.of("target", "cluster-nodes");
        Files.createDirectories(keep);
        for (int i = 0; i < NODES; i++) {
            Path log = dir.resolve("node" + i + ".log");
            if (Files.exists(log)) {
                Files.copy(log, keep.resolve("node" + i + ".log"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        if (postgres != null) {
            postgres.close();
        }
        if (prosody != null) {
            prosody.close();
        }
    }

    private static Process startNode(int i, List<Integer> ports) throws IOException {
        Properties p = new Properties();
        p.setProperty("mucscale.standalone.server-port", Integer.toString(prosody.componentPort()));
        p.setProperty("mucscale.standalone.component-domain", MUC);
        p.setProperty("mucscale.standalone.component-secret", SECRET);
        p.setProperty("mucscale.standalone.reconnect-initial-delay", "100");
        p.setProperty("mucscale.standalone.reconnect-max-delay", "300");
        p.setProperty("mucscale.standalone.cluster-enabled", "true");
        p.setProperty("mucscale.standalone.cluster-port", Integer.toString(ports.get(i)));
        p.setProperty("mucscale.standalone.cluster-members",
                "127.0.0.1:" + ports.get(0) + ",127.0.0.1:" + ports.get(1) + ",127.0.0.1:" + ports.get(2));
        p.setProperty("mucscale.standalone.cluster-name", "e2e-" + ports.get(0));
        p.setProperty("mucscale.standalone.cluster-failure-timeout", "2000");
        p.setProperty("mucscale.store.jdbc-url", postgres.jdbcUrl());
        p.setProperty("mucscale.store.jdbc-user", postgres.user());
        p.setProperty("mucscale.store.jdbc-password", postgres.password());
        p.setProperty("mucscale.store.max-batch-age", "200");
        p.setProperty("mucscale.store.spill-directory", dir.resolve("spill" + i).toString());
        p.setProperty("mucscale.metrics.http-port", "0");
        p.setProperty("mucscale.metrics.jmx-enabled", "false");
        p.setProperty("mucscale.metrics.probe-enabled", "false");
        p.setProperty("mucscale.muc.stanza-id-node", "n" + i);
        p.setProperty("mucscale.muc.occupant-messages-per-second", "1000");
        Path config = dir.resolve("node" + i + ".properties");
        try (var out = Files.newOutputStream(config)) {
            p.store(out, null);
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(HazelcastJvmFlags.FLAGS);
        cmd.add("-Xmx512m");
        cmd.addAll(FailoverTimeline.LOG_TIME_FLAGS);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ClusterNodeProcess.class.getName());
        cmd.add(config.toString());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(dir.resolve("node" + i + ".log").toFile());
        return pb.start();
    }

    /**
     * Waits until every occupant of every room has its senders' message {@code round}, or {@code timeout}; prints how
     * long the wait took, so a slow machine shows as lag rather than as loss.
     */
    private static void awaitRound(Map<Integer, Seen> seen, int round, Duration timeout) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            boolean all = true;
            for (int i = 0; i < USERS && all; i++) {
                Seen s = seen.get(i);
                synchronized (s) {
                    for (int k : roomsOf(i)) {
                        for (int sender = 0; sender < USERS && all; sender++) {
                            if (roomsOf(sender).contains(k)) {
                                List<Integer> got = s.byRoomAndSender.get(k + "/" + sender);
                                all = got != null && got.contains(round);
                            }
                        }
                    }
                }
            }
            if (all) {
                System.out.println("round " + round + " reached every occupant "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms after it was sent");
                return;
            }
            Thread.sleep(100);
        }
        System.out.println("round " + round + " did not reach every occupant within " + timeout.toSeconds() + " s");
    }

    /** The survivors' timeline, relative to the kill. */
    private static void printNodeTimelines(long killAtMillis) throws IOException {
        for (int i = 1; i < NODES; i++) {
            for (String line : Files.readAllLines(dir.resolve("node" + i + ".log"))) {
                java.util.regex.Matcher t = java.util.regex.Pattern.compile(" at (\\d{13})$").matcher(line);
                if (t.find() && Long.parseLong(t.group(1)) >= killAtMillis) {
                    System.out.println("node " + i + " +" + (Long.parseLong(t.group(1)) - killAtMillis) + " ms: "
                            + line.substring(0, t.start()));
                }
                if (line.contains("took over") || line.contains("cluster view") || line.contains("WARN org.mucscale.engine")
                        || line.contains("ERROR org.mucscale.engine")) {
                    System.out.println("node " + i + ": " + line);
                }
            }
        }
    }

    /**
     * The failover's timeline (node logs and clients' receive times, {@link FailoverTimeline}), printed and written to
     * {@code target/cluster-failover-timeline.txt}; {@code bench/cluster/failover.sh} collects it per run.
     */
    private static FailoverTimeline.ClientFigures printTimeline(Map<Integer, Seen> seen, SendTimes sent, long killAt,
                                                                long killAtMillis) throws IOException {
        FailoverTimeline timeline = new FailoverTimeline(killAtMillis);
        List<String> deadOwnersRooms = new ArrayList<>();
        java.util.regex.Pattern adopted = java.util.regex.Pattern.compile("rooms \\[([^]]*)]");
        for (int i = 1; i < NODES; i++) {
            Path log = dir.resolve("node" + i + ".log");
            timeline.nodeLog(i, log, 20_000);
            for (String line : Files.readAllLines(log)) {
                java.util.regex.Matcher m = adopted.matcher(line);
                if (line.contains("took over") && m.find()) {
                    deadOwnersRooms.addAll(List.of(m.group(1).split(", ")));
                }
            }
        }
        Map<Integer, Map<String, Long>> reflectedByRoom = new HashMap<>();
        List<long[]> arrivals = new ArrayList<>();
        for (Seen s : seen.values()) {
            synchronized (s) {
                s.reflectedAtNanos.forEach((body, at) -> reflectedByRoom.computeIfAbsent(
                        Integer.parseInt(body.split("\\|")[2]), k -> new HashMap<>()).put(body, at));
                for (long[] a : s.arrivals) {
                    arrivals.add(new long[] {a[0], sent.at((int) a[1], (int) a[2], (int) a[3])});
                }
            }
        }
        List<String> roomJids = new ArrayList<>();
        for (int k = 0; k < ROOMS; k++) {
            roomJids.add(room(k));
        }
        FailoverTimeline.ClientFigures figures = timeline.clients(killAt, sent::of, reflectedByRoom, arrivals, roomJids,
                deadOwnersRooms);
        List<String> out = new ArrayList<>(timeline.render());
        out.add("TIMELINE " + figures.summary());
        out.forEach(System.out::println);
        Files.write(Path.of("target", "cluster-failover-timeline.txt"), out);
        return figures;
    }

    private static void awaitLine(int node, String text, Duration timeout) throws Exception {
        Path log = dir.resolve("node" + node + ".log");
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (Files.exists(log) && Files.readString(log).contains(text)) {
                return;
            }
            if (!processes.get(node).isAlive()) {
                throw new AssertionError("node " + node + " died:\n" + Files.readString(log));
            }
            Thread.sleep(100);
        }
        throw new AssertionError("node " + node + " never logged '" + text + "':\n" + Files.readString(log));
    }

    /** When each tagged message ("t|sender|room|round") was written, by the sending thread; read by any. */
    static final class SendTimes {
        private final AtomicLongArray nanos;

        SendTimes(int rounds) {
            nanos = new AtomicLongArray(rounds * USERS * ROOMS_PER_USER);
        }

        void record(int round, int sender, int room, long at) {
            nanos.set(index(round, sender, room), at);
        }

        long at(int round, int sender, int room) {
            return nanos.get(index(round, sender, room));
        }

        /** The send time of a tagged body. */
        long of(String body) {
            String[] p = body.split("\\|");
            return at(Integer.parseInt(p[3]), Integer.parseInt(p[1]), Integer.parseInt(p[2]));
        }

        private static int index(int round, int sender, int room) {
            return (round * USERS + sender) * ROOMS_PER_USER + roomsOf(sender).indexOf(room);
        }
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long left = nanoTime - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    /** Reads {@code c}'s stanzas until it has its self-presence (status 110) from each of {@code rooms}. */
    private static void awaitSelfPresences(RawXmppClient c, Set<String> rooms, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!rooms.isEmpty()) {
            long left = deadline - System.nanoTime();
            XmlElement e = left <= 0 ? null : c.poll(Duration.ofNanos(left));
            if (e == null) {
                throw new AssertionError(c.jid() + " not joined to " + rooms + " within " + timeout.toSeconds() + " s");
            }
            String from = e.attribute("from");
            if (e.name().equals("presence") && from != null && e.toXml().contains("code=\"110\"")) {
                int slash = from.indexOf('/');
                rooms.remove(slash < 0 ? from : from.substring(0, slash));
            }
        }
    }

    static String room(int k) {
        return ROOM_NAMES[k] + "@" + MUC;
    }

    static List<Integer> roomsOf(int i) {
        return List.of(i % ROOMS, (i + 1) % ROOMS);
    }

    /** How many rooms {@link #roomsOf} gives each user. */
    static final int ROOMS_PER_USER = 2;

    /** What one client saw: per room and sender, the sequence numbers in arrival order; and its own reflections. */
    static final class Seen {
        final Map<String, List<Integer>> byRoomAndSender = new HashMap<>();
        final Map<String, Long> reflectedAtNanos = new HashMap<>();
        /** Every delivery of a tagged message: {arrival nanos, round, sender, room}. */
        final List<long[]> arrivals = new ArrayList<>();
        int ownUnavailable;
    }

    @Test
    void linkHolderKilled_noAcceptedMessageLost_noDuplicates_orderKept_deliveryResumes_thenGracefulLeaveWithNoError() throws Exception {
        for (int i = 0; i < USERS; i++) {
            clients.add(RawXmppClient.login(prosody.c2sPort(), DOMAIN, "user" + i, "pw", "r" + i));
        }
        for (int k = 0; k < ROOMS; k++) {
            RawXmppClient owner = clients.get(k);
            owner.write("<presence to='" + room(k) + "/nick" + k + "'><x xmlns='http://jabber.org/protocol/muc'/></presence>");
            owner.expect(e -> e.name().equals("presence") && e.toXml().contains("code=\"110\""), "room " + k + " joined",
                    Duration.ofSeconds(20));
            owner.write("<iq type='set' id='cfg" + k + "' to='" + room(k) + "'><query xmlns='http://jabber.org/protocol/muc#owner'>"
                    + "<x xmlns='jabber:x:data' type='submit'/></query></iq>");
            String cfg = "cfg" + k;
            owner.expect(e -> cfg.equals(e.attribute("id")), "room " + k + " configured", Duration.ofSeconds(20));
        }
        for (int i = 0; i < USERS; i++) {
            for (int k : roomsOf(i)) {
                if (k != i) {
                    clients.get(i).write("<presence to='" + room(k) + "/nick" + i + "'><x xmlns='http://jabber.org/protocol/muc'/></presence>");
                }
            }
        }
        // every join answered before the traffic starts (bounded, instead of a fixed 2 s)
        for (int i = 0; i < USERS; i++) {
            Set<String> pending = new HashSet<>();
            for (int k : roomsOf(i)) {
                if (k != i) {
                    pending.add(room(k));
                }
            }
            awaitSelfPresences(clients.get(i), pending, Duration.ofSeconds(20));
        }

        // traffic: every user sends one message to each of its rooms every mucscale.test.failover-round-ms (100 ms;
        // bench/cluster/failover.sh's FAILOVER_ROUND_MS sets more, to measure the p99's return from a load whose
        // steady p99 is well under 100 ms on this machine); node 0 dies after
        // mucscale.test.failover-warmup-rounds rounds (40: 4 s), and 120 rounds (12 s) follow. bench/cluster/
        // failover.sh sets 100: in the first seconds the nodes' and Prosody's queues still hold the start's backlog
        // on this 2-core machine (round-trip p99 1.2-2.8 s in the 3 s before a kill at 4 s), which the failover's
        // figures would otherwise measure
        Map<Integer, Seen> seen = new ConcurrentHashMap<>();
        for (int i = 0; i < USERS; i++) {
            seen.put(i, new Seen());
        }
        AtomicBoolean reading = new AtomicBoolean(true);
        List<Thread> readers = new ArrayList<>();
        for (int i = 0; i < USERS; i++) {
            int u = i;
            Thread t = new Thread(() -> read(u, clients.get(u), seen.get(u), reading, "t", null), "reader-" + i);
            t.start();
            readers.add(t);
        }
        int killRound = Integer.getInteger("mucscale.test.failover-warmup-rounds", 40);
        long roundMs = Long.getLong("mucscale.test.failover-round-ms", 100);
        if (roundMs < 10 || roundMs > 1_000) {
            throw new IllegalArgumentException("mucscale.test.failover-round-ms takes 10..1000, was " + roundMs);
        }
        // mucscale.test.failover-paced: each round's messages are spread evenly over the round instead of sent as one
        // burst. A burst of 36 messages (216 deliveries) takes Prosody's one thread about as long to route as the
        // 100 ms the p99 goal allows, so with bursts the steady round-trip p99 sits at that line whatever the nodes do
        boolean paced = Boolean.getBoolean("mucscale.test.failover-paced");
        int rounds = killRound + 120;
        SendTimes sent = new SendTimes(rounds);
        long killAt = 0;
        long killAtMillis = 0;
        long sendsPerRound = (long) USERS * ROOMS_PER_USER;
        long start = System.nanoTime();
        for (int m = 0; m < rounds; m++) {
            long roundStart = start + TimeUnit.MILLISECONDS.toNanos(roundMs) * m;
            int j = 0;
            for (int i = 0; i < USERS; i++) {
                for (int k : roomsOf(i)) {
                    if (paced) {
                        sleepUntil(roundStart + TimeUnit.MILLISECONDS.toNanos(roundMs) * j / sendsPerRound);
                    }
                    j++;
                    sent.record(m, i, k, System.nanoTime());
                    clients.get(i).write("<message type='groupchat' to='" + room(k) + "'><body>t|" + i + "|" + k + "|" + m
                            + "</body></message>");
                }
            }
            if (m == killRound) {
                killAt = System.nanoTime();
                killAtMillis = System.currentTimeMillis();
                processes.get(0).destroyForcibly();
            }
            sleepUntil(roundStart + TimeUnit.MILLISECONDS.toNanos(roundMs));
        }
        // delivery is asserted, not speed: a loaded machine (Prosody's single thread, the test's own readers) may be
        // seconds behind, so wait, bounded, until the last round reached everyone (what never comes fails below)
        awaitRound(seen, rounds - 1, Duration.ofSeconds(30));
        Thread.sleep(500); // anything duplicated after the last round would arrive now
        reading.set(false);
        for (Thread t : readers) {
            t.join(10_000);
        }

        // 1. nobody received a message twice, and each sender's messages arrived in order
        for (Map.Entry<Integer, Seen> e : seen.entrySet()) {
            for (Map.Entry<String, List<Integer>> s : e.getValue().byRoomAndSender.entrySet()) {
                List<Integer> got = s.getValue();
                assertThat(new HashSet<>(got)).as("user %d, %s: no duplicates", e.getKey(), s.getKey()).hasSize(got.size());
                List<Integer> sorted = new ArrayList<>(got);
                Collections.sort(sorted);
                assertThat(got).as("user %d, %s: in the order sent", e.getKey(), s.getKey()).isEqualTo(sorted);
            }
            // 2. no surviving occupant was removed (sessions live on Prosody, not on the dead node)
            assertThat(e.getValue().ownUnavailable).as("user %d removed from a room", e.getKey()).isZero();
        }
        // 3. every accepted (reflected) message is in the room log, once
        Set<String> accepted = new HashSet<>();
        for (Seen s : seen.values()) {
            accepted.addAll(s.reflectedAtNanos.keySet());
        }
        assertThat(accepted).isNotEmpty();
        Map<String, Integer> logged = loggedBodies();
        List<String> missing = new ArrayList<>();
        for (String body : accepted) {
            if (!logged.containsKey(body)) {
                missing.add(body);
            }
        }
        assertThat(missing).as("accepted messages missing from the room log").isEmpty();
        assertThat(logged.values()).as("room log rows per message").allMatch(n -> n == 1);
        // 4. delivery resumed: the last 30 rounds reached every occupant of every room, exactly once; every miss is
        // listed (room, receiver, sender, numbers) so that a failure shows its shape, not only its first instance
        List<String> misses = new ArrayList<>();
        for (int i = 0; i < USERS; i++) {
            for (int k : roomsOf(i)) {
                for (int s = 0; s < USERS; s++) {
                    if (!roomsOf(s).contains(k)) {
                        continue;
                    }
                    List<Integer> got = seen.get(i).byRoomAndSender.getOrDefault(k + "/" + s, List.of());
                    List<Integer> notGot = new ArrayList<>();
                    for (int m = rounds - 30; m < rounds; m++) {
                        if (!got.contains(m)) {
                            notGot.add(m);
                        }
                    }
                    if (!notGot.isEmpty()) {
                        misses.add("room " + k + ", user " + i + " missed sender " + s + "'s " + notGot
                                + " (last received " + (got.isEmpty() ? "none" : got.get(got.size() - 1)) + ")");
                    }
                }
            }
        }
        if (!misses.isEmpty()) {
            printNodeTimelines(killAtMillis);
        }
        assertThat(misses).as("the last 30 rounds reach every occupant of every room").isEmpty();
        // failover figures (per room, the first message sent after the kill that came back to its sender; per second
        // of sending, the round-trip p99), from the timeline
        FailoverTimeline.ClientFigures figures = printTimeline(seen, sent, killAt, killAtMillis);
        System.out.println("FAILOVER link holder killed: every room accepts messages again after "
                + figures.roomsAcceptAgainMs() + " ms; p99 back under 100 ms after " + figures.p99ForGoodMs()
                + " ms; accepted " + accepted.size() + " messages, all in the room log");
        Files.writeString(Path.of("target", "cluster-failover.txt"), "rooms accept again after "
                + figures.roomsAcceptAgainMs() + " ms; p99 < 100 ms again after " + figures.p99ForGoodMs()
                + " ms; accepted " + accepted.size() + "\n");

        // then a graceful leave (SIGTERM) of the survivor that does not hold the link, under traffic: its rooms move
        // to the last node with no error to anyone, and every message reaches every occupant exactly once, in order
        int holder = Files.readString(dir.resolve("node1.log")).lastIndexOf("connected at")
                > Files.readString(dir.resolve("node1.log")).lastIndexOf("disconnected at") ? 1 : 2;
        int leaving = holder == 1 ? 2 : 1;
        for (RawXmppClient c : clients) {
            c.drain();
        }
        Map<Integer, Seen> after = new ConcurrentHashMap<>();
        for (int i = 0; i < USERS; i++) {
            after.put(i, new Seen());
        }
        List<XmlElement> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean reading2 = new AtomicBoolean(true);
        List<Thread> readers2 = new ArrayList<>();
        for (int i = 0; i < USERS; i++) {
            int u = i;
            Thread t = new Thread(() -> read(u, clients.get(u), after.get(u), reading2, "g", errors),
                    "reader2-" + i);
            t.start();
            readers2.add(t);
        }
        int rounds2 = 60;
        for (int m = 0; m < rounds2; m++) {
            for (int i = 0; i < USERS; i++) {
                for (int k : roomsOf(i)) {
                    clients.get(i).write("<message type='groupchat' to='" + room(k) + "'><body>g|" + i + "|" + k + "|" + m
                            + "</body></message>");
                }
            }
            if (m == 15) {
                processes.get(leaving).destroy(); // SIGTERM: the node hands its rooms over, then leaves
            }
            Thread.sleep(100);
        }
        assertThat(processes.get(leaving).waitFor(30, TimeUnit.SECONDS)).as("the leaving node stopped").isTrue();
        awaitRound(after, rounds2 - 1, Duration.ofSeconds(30));
        Thread.sleep(500);
        reading2.set(false);
        for (Thread t : readers2) {
            t.join(10_000);
        }
        assertThat(errors).as("errors during a graceful leave").isEmpty();
        for (Map.Entry<Integer, Seen> e : after.entrySet()) {
            assertThat(e.getValue().ownUnavailable).as("user %d removed during a graceful leave", e.getKey()).isZero();
        }
        // before the leave and from a second after it on, every message reaches every occupant exactly once, in
        // order; in the second of the leave itself, what is missing is counted and reported (docs/cluster.md,
        // "Known limits")
        int lostInLeave = 0;
        int deliveriesInLeave = 0;
        for (int i = 0; i < USERS; i++) {
            for (int k : roomsOf(i)) {
                for (int s = 0; s < USERS; s++) {
                    if (!roomsOf(s).contains(k)) {
                        continue;
                    }
                    List<Integer> got = after.get(i).byRoomAndSender.getOrDefault(k + "/" + s, List.of());
                    assertThat(new HashSet<>(got)).as("user %d, room %d, sender %d: no duplicates", i, k, s)
                            .hasSize(got.size());
                    List<Integer> sorted = new ArrayList<>(got);
                    Collections.sort(sorted);
                    assertThat(got).as("user %d, room %d, sender %d: in order", i, k, s).isEqualTo(sorted);
                    for (int m = 0; m < rounds2; m++) {
                        boolean inLeave = m >= 15 && m < 25;
                        if (inLeave) {
                            deliveriesInLeave++;
                            if (!got.contains(m)) {
                                lostInLeave++;
                            }
                        } else {
                            assertThat(got).as("user %d, room %d, sender %d, message %d across a graceful leave", i,
                                    k, s, m).contains(m);
                        }
                    }
                }
            }
        }
        System.out.println("GRACEFUL LEAVE: no errors; " + lostInLeave + " of " + deliveriesInLeave
                + " deliveries sent in the second of the leave missing; all others exactly once, in order");
        Files.writeString(Path.of("target", "cluster-graceful-leave.txt"), lostInLeave + " of " + deliveriesInLeave
                + " deliveries in the second of the leave missing\n");
    }

    /**
     * Reads client {@code u}'s stanzas until {@code reading} turns false: its own unavailable presences, and per room
     * and sender the numbers of the messages tagged {@code tag}, with when its own came back; error stanzas go to
     * {@code errors} when given.
     */
    private static void read(int u, RawXmppClient c, Seen s, AtomicBoolean reading, String tag,
                             List<XmlElement> errors) {
        String self = "user" + u + "@" + DOMAIN + "/r" + u;
        while (reading.get()) {
            XmlElement e;
            try {
                e = c.poll(Duration.ofMillis(200));
            } catch (InterruptedException ex) {
                return;
            }
            if (e == null) {
                continue;
            }
            long now = System.nanoTime();
            if (errors != null && "error".equals(e.attribute("type"))) {
                errors.add(e);
                continue;
            }
            if (e.name().equals("presence") && "unavailable".equals(e.attribute("type"))
                    && e.toXml().contains("code=\"110\"")) {
                synchronized (s) {
                    s.ownUnavailable++;
                }
            }
            String body = e.name().equals("message") && "groupchat".equals(e.attribute("type")) ? e.childText("body")
                    : null;
            if (body == null || !body.startsWith(tag + "|")) {
                continue;
            }
            String[] p = body.split("\\|");
            int sender = Integer.parseInt(p[1]);
            synchronized (s) {
                s.byRoomAndSender.computeIfAbsent(p[2] + "/" + sender, x -> new ArrayList<>()).add(Integer.parseInt(p[3]));
                s.arrivals.add(new long[] {now, Integer.parseInt(p[3]), sender, Integer.parseInt(p[2])});
                if (sender == u) {
                    s.reflectedAtNanos.putIfAbsent(body, now);
                }
            }
            assertThat(e.attribute("to")).isEqualTo(self);
        }
    }

    private static Map<String, Integer> loggedBodies() throws Exception {
        Map<String, Integer> out = new HashMap<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int last = -1;
        while (true) {
            out.clear();
            try (Connection c = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
                 PreparedStatement ps = c.prepareStatement("SELECT body FROM mucscaleRoomLog");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.merge(rs.getString(1), 1, Integer::sum);
                }
            }
            // the writers batch: wait until the count stops growing
            if (out.size() == last || System.nanoTime() > deadline) {
                return out;
            }
            last = out.size();
            Thread.sleep(1500);
        }
    }
}
