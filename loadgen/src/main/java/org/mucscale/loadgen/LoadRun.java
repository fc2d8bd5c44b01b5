package org.mucscale.loadgen;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.mina.core.buffer.CachedBufferAllocator;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.AttributeKey;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.filter.FilterEvent;
import org.apache.mina.filter.ssl.SslEvent;
import org.apache.mina.filter.ssl.SslFilter;
import org.apache.mina.transport.socket.nio.NioSocketConnector;
import org.mucscale.engine.cluster.Rendezvous;

/**
 * One load run: ramp-up (connect and log in at a rate, join rooms), stepped message levels that stop after the first
 * level whose p99 passes the threshold, a steady soak, a drain wait, ramp-down; then exact loss accounting.
 * Every wait is bounded by the scenario's hard deadline; when it passes, the run skips to shutdown.
 *
 * <p>Threads: the caller's thread runs the phases and is the only sender (the pacer), so per-sender sequence numbers
 * and sent counts are single-writer. MINA processor threads ({@code connect.processors}) run the receive side; one
 * timer thread ("loadgen-timer") samples, prints progress and sweeps login/join timeouts and join re-sends.
 */
public final class LoadRun {
    private static final AttributeKey CLIENT = new AttributeKey(LoadRun.class, "client");
    /** Per-connection cap on bytes queued for sending; above it the pacer skips the send and counts it (policy: skip-and-count). */
    static final long MAX_QUEUED_BYTES_PER_CONNECTION = 256 * 1024;
    /** Read buffer per socket read; pooled, so its size costs no allocation. */
    static final int READ_BUFFER_BYTES = 16 * 1024;

    final Scenario scenario;
    final Stats stats = new Stats();
    final ClientProfiles profiles;
    private final long epochNs = System.nanoTime();
    private final ServerProcesses server;
    private final String label;
    private final PrintStream progress;
    private final long deadlineNs;
    private final Sampler sampler;
    private final SplittableRandom random;
    /**
     * accounts.shard k/n: this process plays the members whose slot is k modulo n (k=0, n=1: everyone), or, with
     * accounts.shardOwners, every member of the rooms the k-th listed cluster member owns.
     */
    final int shardIndex;
    final int shardCount;
    private final List<String> shardOwners;
    /**
     * Added to every stamp and to {@link #nowUs()}: 0 for a run alone (stamps count from this run's start), the wall
     * clock in microseconds at {@link #epochNs} when sharded, so that every process of the run stamps and reads one
     * clock and a delivery from another process's sender is timed from its scheduled send time as well.
     */
    private final long stampBaseUs;

    private RoomState[] rooms;
    private Client[] clients;
    /** The abuse phase's extra accounts (each alone in a home room of its own), or none. */
    private Client[] attackers = new Client[0];
    private AbuseAttack attack;
    private NioSocketConnector connector;
    private volatile SslFilter sslFilter;
    private final AtomicInteger pendingLogins = new AtomicInteger();
    private final AtomicInteger loginsSettled = new AtomicInteger();
    private volatile boolean joinsOpen = true;
    private volatile String phaseText = "start";
    private ScheduledExecutorService timer;
    private String stoppedBy = "completed";
    private final List<ObjectNode> levelResults = new ArrayList<>();
    private final ObjectMapper mapper = new ObjectMapper();
    private final Instant startedAt = Instant.now();

    /**
     * @param serverPids the server's process ids for CPU and RSS sampling (summed over all of them), or null/empty
     * @param label     a short name for this run in reports (e.g. "prosody-muc")
     * @param progress  where progress lines go (null: nowhere)
     */
    public LoadRun(Scenario scenario, List<Long> serverPids, String label, PrintStream progress) {
        this.scenario = scenario;
        this.server = ServerProcesses.of(serverPids);
        this.label = label == null ? scenario.name() : label;
        this.progress = progress;
        this.deadlineNs = epochNs + TimeUnit.SECONDS.toNanos(scenario.run().deadlineS());
        this.profiles = new ClientProfiles(scenario);
        this.sampler = new Sampler(stats, server, epochNs, profiles);
        this.shardIndex = scenario.accounts().shardIndex();
        this.shardCount = scenario.accounts().shardCount();
        this.shardOwners = scenario.accounts().owners();
        // each process draws its own senders and times: a shared seed would make them send in lockstep
        this.random = new SplittableRandom(scenario.messages().seed() + shardIndex);
        if (shardCount > 1) {
            Instant wall = Instant.now();
            long ns = System.nanoTime();
            this.stampBaseUs = wall.getEpochSecond() * 1_000_000L + wall.getNano() / 1000 - (ns - epochNs) / 1000;
        } else {
            this.stampBaseUs = 0;
        }
    }

    long nowUs() {
        return stampUs(System.nanoTime());
    }

    /** The stamp, in this run's clock, of the moment {@code nanoTime} ({@link #stampBaseUs}). */
    long stampUs(long nanoTime) {
        return (nanoTime - epochNs) / 1000 + stampBaseUs;
    }

    /** Whether this process plays the member in {@code slot} of {@code room} (always, when not sharded). */
    boolean plays(RoomState room, int slot) {
        return shardOwners.isEmpty() ? slot % shardCount == shardIndex : room.wholeHere;
    }

    /** Whether a room's members are spread over the processes (sharded by slot) rather than played by one. */
    private boolean shardedBySlot() {
        return shardCount > 1 && shardOwners.isEmpty();
    }

    boolean pastDeadline() {
        return System.nanoTime() - deadlineNs >= 0;
    }

    SslFilter sslFilter() {
        SslFilter f = sslFilter;
        if (f == null) {
            synchronized (this) {
                if (sslFilter == null) {
                    sslFilter = new InlineTaskSslFilter(TrustAllTls.trustAllContext());
                }
                f = sslFilter;
            }
        }
        return f;
    }

    /** Runs all phases and returns the results document (also what {@link Results} writes). */
    public ObjectNode run() {
        plan();
        connector = new NioSocketConnector(scenario.connect().processors());
        connector.setConnectTimeoutMillis(scenario.connect().loginTimeoutMs());
        connector.getSessionConfig().setTcpNoDelay(true);
        // read everything a socket has in one go: MINA's adaptive size would shrink to 64 bytes on small reads
        connector.getSessionConfig().setMinReadBufferSize(READ_BUFFER_BYTES);
        connector.getSessionConfig().setReadBufferSize(READ_BUFFER_BYTES);
        // pooled read buffers (per processor thread), returned by Client.received after the scanner copied them
        IoBuffer.setAllocator(new CachedBufferAllocator());
        connector.setHandler(new Handler());
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "loadgen-timer");
            t.setDaemon(true);
            return t;
        });
        int progressMs = scenario.run().progressIntervalS() * 1000;
        timer.scheduleAtFixedRate(this::sweep, 200, 200, TimeUnit.MILLISECONDS);
        timer.scheduleAtFixedRate(sampler::tick, 1000, 1000, TimeUnit.MILLISECONDS);
        timer.scheduleAtFixedRate(this::printProgress, progressMs, progressMs, TimeUnit.MILLISECONDS);
        try {
            rampUp();
            if (!pastDeadline()) {
                joinPhase();
            }
            freezeMembership();
            messagePhases();
            drain();
            rampDown();
        } finally {
            if (pastDeadline() && "completed".equals(stoppedBy)) {
                stoppedBy = "deadline";
            }
            shutdown();
        }
        sampler.tick();
        printProgress();
        return results();
    }

    // ---- plan ----

    private void plan() {
        int[] sizes = RoomPlan.sizes(scenario.rooms(), scenario.users());
        rooms = new RoomState[sizes.length];
        for (int r = 0; r < sizes.length; r++) {
            rooms[r] = new RoomState(r, scenario.rooms().prefix() + (r + 1) + "@" + scenario.server().mucDomain(), sizes[r]);
            if (!shardOwners.isEmpty()) {
                // the engine's own ownership rule, over the room's bare JID as the engine writes it
                rooms[r].wholeHere = shardOwners.get(shardIndex).equals(Rendezvous.owner(rooms[r].jid, shardOwners));
            }
        }
        // connection order: slot 0 of every room first (the creators), then slot 1 of every room, ...
        // Sharded, every process builds the whole plan (the same user names in the same slots) and plays its share;
        // the members it does not play stay in their rooms' member lists, never connected, as the senders and
        // receivers the other processes play.
        List<Client> played = new ArrayList<>(scenario.users() / shardCount + sizes.length);
        int i = 0;
        int maxSize = 0;
        for (int s : sizes) {
            maxSize = Math.max(maxSize, s);
        }
        for (int slot = 0; slot < maxSize; slot++) {
            for (RoomState room : rooms) {
                if (slot < room.members.length) {
                    String user = scenario.accounts().prefix() + (scenario.accounts().firstIndex() + i);
                    Client c = new Client(this, i, user, room, slot);
                    room.members[slot] = c;
                    if (plays(room, slot)) {
                        played.add(c);
                    }
                    i++;
                }
            }
        }
        clients = played.toArray(new Client[0]);
        int n = scenario.abuse().attackers();
        if (n > 0) {
            attackers = new Client[n];
            clients = java.util.Arrays.copyOf(clients, clients.length + n);
            for (int k = 0; k < n; k++) {
                String user = scenario.accounts().prefix() + (scenario.accounts().firstIndex() + scenario.users() + k);
                RoomState home = new RoomState(-1 - k, scenario.rooms().prefix() + "home" + k + "@"
                        + scenario.server().mucDomain(), 1);
                Client c = new Client(this, i, user, home, 0);
                home.members[0] = c;
                attackers[k] = c;
                clients[clients.length - n + k] = c;
                i++;
            }
        }
        profiles.assign(clients, attackers.length);
    }

    // ---- ramp-up ----

    private void rampUp() {
        phase("ramp-up");
        Scenario.Server sv = scenario.server();
        InetSocketAddress remote = new InetSocketAddress(sv.host(), sv.port());
        sources = sourceAddresses(remote);
        long intervalNs = 1_000_000_000L / scenario.connect().connectionsPerSec();
        long start = System.nanoTime();
        int maxPending = scenario.connect().maxPendingLogins();
        for (int i = 0; i < clients.length && !pastDeadline(); i++) {
            parkUntil(start + i * intervalNs);
            while (pendingLogins.get() >= maxPending && !pastDeadline()) {
                LockSupport.parkNanos(1_000_000);
            }
            pendingLogins.incrementAndGet();
            clients[i].connectStartNs = System.nanoTime();
            connect(clients[i]);
        }
        // wait for every login to succeed or fail (the sweep fails logins that exceed loginTimeoutMs)
        waitUntil(() -> loginsSettled.get() >= clients.length, Long.MAX_VALUE);
    }

    private InetAddress[] sources;

    /** Opens {@code c}'s connection: TCP to server.port, or WebSocket (its framing filter first) to websocketPort. */
    private void connect(Client c) {
        Scenario.Server sv = scenario.server();
        Scenario.Clients cl = scenario.clients();
        int port = c.profile.websocket && cl.websocketPort() > 0 ? cl.websocketPort() : sv.port();
        InetSocketAddress local = sources == null ? null : new InetSocketAddress(sources[c.index % sources.length], 0);
        connector.connect(new InetSocketAddress(sv.host(), port), local, (session, future) -> {
            session.setAttribute(CLIENT, c);
            if (c.profile.websocket) {
                session.getFilterChain().addLast("ws", new WebSocketFraming(sv.host(), port, cl.websocketPath()));
            }
        }).addListener(f -> {
            org.apache.mina.core.future.ConnectFuture cf = (org.apache.mina.core.future.ConnectFuture) f;
            if (!cf.isConnected()) {
                Throwable t = cf.getException();
                c.fail("connect:" + (t == null ? "unknown" : t.getClass().getSimpleName()));
            }
        });
    }

    /** A stream management resumption cut: the same client on a new connection (its login ends in {@code <resume/>}). */
    void reconnect(Client c) {
        if (!pastDeadline()) {
            try {
                timer.schedule(() -> connect(c), scenario.clients().resumeReconnectMs(), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // shutting down: the run is over, nothing to resume
            }
        }
    }

    private InetAddress[] sourceAddresses(InetSocketAddress remote) {
        int n = scenario.connect().sourceAddresses();
        InetAddress target = remote.getAddress();
        if (target == null || !target.isLoopbackAddress() || n <= 1 || !(target.getAddress().length == 4)) {
            return null;
        }
        InetAddress[] out = new InetAddress[n];
        try {
            for (int i = 0; i < n; i++) {
                out[i] = InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) (i + 1)});
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    void loginDone(Client c) {
        settleLogin(c);
        if (!scenario.joinAfterAllConnected() && joinsOpen) {
            c.requestJoin();
        }
    }

    private void settleLogin(Client c) {
        if (c.settleLogin()) {
            pendingLogins.decrementAndGet();
            loginsSettled.incrementAndGet();
        }
    }

    void joinDone(Client c) {
        // counted in Stats; nothing else to coordinate
    }

    void clientDone(Client c) {
        settleLogin(c);
        RoomState room = c.room;
        room.creatorGone(c);
    }

    // ---- joins ----

    private void joinPhase() {
        phase("join");
        if (scenario.joinAfterAllConnected()) {
            for (Client c : clients) {
                if (c.state == Client.READY) {
                    c.requestJoin();
                }
            }
        }
        waitUntil(() -> {
            for (Client c : clients) {
                int s = c.state;
                if (s == Client.READY || s == Client.JOINING) {
                    return false;
                }
            }
            return true;
        }, Long.MAX_VALUE);
    }

    /** Ends joining: members not in by now leave the run, so the set of recipients is fixed while messages flow. */
    private void freezeMembership() {
        joinsOpen = false;
        for (Client c : clients) {
            int s = c.state;
            if (s == Client.READY || s == Client.JOINING) {
                stats.error(s == Client.JOINING ? "join-unanswered-at-freeze" : "join-not-started-at-freeze");
                stats.joinFailed.increment();
                c.closeNow();
            }
        }
    }

    // ---- messages ----

    private void messagePhases() {
        List<Client> senders = new ArrayList<>();
        for (RoomState room : rooms) {
            int joined = room.joinedCount();
            for (Client c : room.members) {
                if (c.isJoined()) {
                    // recipients counts this process's members only: the loss check and the drain are per process
                    c.recipients = joined - 1;
                    c.plannedRecipients = room.members.length - 1;
                    // sharded, a member whose room-mates are all played elsewhere still has recipients
                    if (joined >= 2 || (shardedBySlot() && room.members.length >= 2)) {
                        senders.add(c);
                    }
                }
            }
        }
        Client[] eligible = senders.toArray(new Client[0]);
        if (shardCount > 1 && !scenario.run().barrierDir().isEmpty() && !pastDeadline()) {
            new ShardBarrier(this, java.nio.file.Path.of(scenario.run().barrierDir())).await("ready", 2000);
        }
        threadCpuBeforeMessages = ProcStat.ownThreadCpuMs();
        try {
            MessagePhases phases = new MessagePhases(this, mapper, sampler, random);
            phases.levelsAndSoak(eligible, levelResults);
            if (attackers.length > 0 && eligible.length > 0 && !pastDeadline()) {
                attack = phases.abuse(eligible, rooms, attackers, levelResults);
            }
        } finally {
            threadCpuAfterMessages = ProcStat.ownThreadCpuMs();
        }
    }

    private Map<String, Long> threadCpuBeforeMessages = Map.of();
    private Map<String, Long> threadCpuAfterMessages = Map.of();

    private void drain() {
        if (stats.messagesSent > 0) {
            phase("drain");
            long limit = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(scenario.rampDown().drainMs());
            // deliveries from other processes' senders are not in expectedDeliveries (their counts are not known here)
            waitUntil(() -> ownDeliveries() >= stats.expectedDeliveries, limit);
        }
        if (shardCount > 1 && !scenario.run().barrierDir().isEmpty() && !pastDeadline()) {
            new ShardBarrier(this, java.nio.file.Path.of(scenario.run().barrierDir())).await("drained", 0);
        }
    }

    /** Distinct deliveries of this process's own senders' messages: what {@code expectedDeliveries} counts. */
    private long ownDeliveries() {
        return stats.distinctDeliveries.sum() - stats.remoteDeliveries.sum();
    }

    private void rampDown() {
        if (pastDeadline()) {
            return;
        }
        phase("ramp-down");
        long intervalNs = 1_000_000_000L / scenario.rampDown().leavePerSec();
        long start = System.nanoTime();
        for (int i = 0; i < clients.length && !pastDeadline(); i++) {
            parkUntil(start + i * intervalNs);
            clients[i].leave();
        }
        long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        waitUntil(() -> connector.getManagedSessionCount() == 0, limit);
    }

    private void shutdown() {
        phase("shutdown");
        joinsOpen = false;
        for (Client c : clients) {
            if (c != null) {
                c.closeNow();
            }
        }
        if (connector != null) {
            long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (connector.getManagedSessionCount() > 0 && System.nanoTime() - limit < 0) {
                LockSupport.parkNanos(10_000_000);
            }
            connector.dispose(true);
        }
        if (timer != null) {
            timer.shutdownNow();
            try {
                timer.awaitTermination(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ---- timer: timeouts, re-sends, progress ----

    private void sweep() {
        try {
            long now = System.nanoTime();
            long loginTimeoutNs = TimeUnit.MILLISECONDS.toNanos(scenario.connect().loginTimeoutMs());
            long resendNs = TimeUnit.MILLISECONDS.toNanos(scenario.join().resendAfterMs());
            long joinTimeoutNs = TimeUnit.MILLISECONDS.toNanos(scenario.join().timeoutMs());
            profiles.tick(now);
            for (Client c : clients) {
                int s = c.state;
                if (s > Client.NEW && s < Client.READY && c.connectStartNs != 0 && now - c.connectStartNs > loginTimeoutNs) {
                    c.fail("login-timeout");
                } else if (s == Client.NEW && c.connectStartNs != 0 && now - c.connectStartNs > loginTimeoutNs) {
                    c.fail("connect-timeout");
                } else if (s == Client.JOINING && joinsOpen) {
                    if (now - c.firstJoinSentNs > joinTimeoutNs) {
                        c.fail("join-timeout");
                    } else if (now - c.joinSentNs > resendNs) {
                        if (c.room.isCreator(c)) {
                            stats.ownerJoinResends.increment();
                        } else {
                            stats.joinResends.increment();
                        }
                        c.sendJoin(true);
                    }
                }
            }
        } catch (RuntimeException e) {
            stats.error("sweep:" + e.getClass().getSimpleName());
        }
    }

    private void printProgress() {
        if (progress == null) {
            return;
        }
        long lost = Math.max(0, stats.expectedDeliveries - ownDeliveries());
        progress.printf("[%5.0fs] %-24s | conn %d/%d joined %d | sent %,d | %s | outstanding %,d dup %d reord %d | err %d%n",
                (System.nanoTime() - epochNs) / 1e9, phaseText,
                stats.connected.sum() - stats.disconnected.sum(), clients.length, stats.joined.sum(),
                stats.messagesSent, sampler.progressFigures(), lost, stats.duplicates.sum(), stats.reordered.sum(),
                stats.errorCount());
        progress.flush();
    }

    void say(String text) {
        if (progress != null) {
            progress.println(text);
        }
    }

    void phase(String p) {
        phaseText = p;
        sampler.phase = p;
    }

    private void waitUntil(java.util.function.BooleanSupplier done, long limitNs) {
        while (!done.getAsBoolean() && !pastDeadline() && (limitNs == Long.MAX_VALUE || System.nanoTime() - limitNs < 0)) {
            LockSupport.parkNanos(20_000_000);
        }
    }

    static void parkUntil(long dueNs) {
        long wait;
        while ((wait = dueNs - System.nanoTime()) > 0) {
            LockSupport.parkNanos(wait);
        }
    }

    // ---- results ----

    private ObjectNode results() {
        return new RunReport(mapper, scenario, stats, sampler, profiles, server).document(label, startedAt,
                stoppedBy, attack, clients.length - attackers.length, rooms, levelResults, threadCpuBeforeMessages,
                threadCpuAfterMessages);
    }

    // ---- MINA ----

    private final class Handler extends IoHandlerAdapter {
        @Override
        public void sessionOpened(IoSession session) {
            Client c = (Client) session.getAttribute(CLIENT);
            c.opened(session);
        }

        @Override
        public void messageReceived(IoSession session, Object message) {
            ((Client) session.getAttribute(CLIENT)).received((IoBuffer) message);
        }

        @Override
        public void sessionClosed(IoSession session) {
            ((Client) session.getAttribute(CLIENT)).closed();
        }

        @Override
        public void exceptionCaught(IoSession session, Throwable cause) {
            Client c = (Client) session.getAttribute(CLIENT);
            // leaving, or a resumption cut (what the cut left unsent is re-sent after <resumed/>): expected, no error
            if (c != null && (c.state == Client.LEAVING || c.state == Client.CLOSED || (c.sm != null && c.sm.resuming()))) {
                session.closeNow();
                return;
            }
            stats.error("io:" + cause.getClass().getSimpleName());
            session.closeNow();
        }

        @Override
        public void event(IoSession session, FilterEvent event) {
            if (event == SslEvent.SECURED) {
                ((Client) session.getAttribute(CLIENT)).secured();
            }
        }
    }
}
