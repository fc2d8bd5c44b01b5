package org.mucscale.engine.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.jmx.JmxReporter;
import org.mucscale.engine.port.Clock;

import java.io.IOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The registry facade every part of mucscale records into, over Dropwizard Metrics. The runtime adapts the MUC
 * engine's, filter's and store's listener ports to the plain recording methods here, so this module depends on core
 * only.
 *
 * <p><b>Concurrency.</b> Recording methods are called by any thread (room shards, delivery threads, the store writer),
 * take no lock and allocate nothing: latencies and sizes go into {@link HdrWindowReservoir}s, counts into
 * {@link Counter}s (LongAdder). Two exceptions allocate only on first use of a name: {@link #filterAction} for a new
 * list/action pair, and {@link TopRooms} when a room enters the tracked set. {@link #start()} and {@link #close()}
 * are called by the host's lifecycle thread; the sampler ({@link DashboardData}) runs on its own daemon thread.
 * The cluster layer's counters are {@link ClusterCounters}, the filter's per-list counters
 * {@link FilterActionCounters}, the Prometheus text {@link PrometheusExposition}'s.
 *
 * <p>Metric names (Prometheus names replace dots by underscores; latencies are in nanoseconds, as the name says):
 * <ul>
 *   <li>{@code mucscale.muc.handoff.latency.ns}: arrival at the service to the last local copy handed to the host's
 *       delivery adapter (before the host's batched write); {@code mucscale.muc.write.latency.ns}: arrival to the
 *       host's write of those bytes to the socket (one sample per message and write)</li>
 *   <li>{@code mucscale.muc.fanout}, {@code mucscale.muc.messages}, {@code mucscale.muc.deliveries}</li>
 *   <li>{@code mucscale.muc.moderations}: messages retracted by moderators (XEP-0425)</li>
 *   <li>{@code mucscale.admin.changes}: calls of the room administration API and actions of its pages written to the
 *       audit trail by this node, done or refused; {@code mucscale.admin.refusals}: of those, the ones refused</li>
 *   <li>{@code mucscale.filter.time.ns}, {@code mucscale.filter.actions.<list>.<action>}, {@code mucscale.filter.acted},
 *       {@code mucscale.filter.flood.rejections} (all limits), {@code .rejections.<limit>}</li>
 *   <li>{@code mucscale.store.commit.latency.ns} (enqueue to commit), {@code mucscale.store.batch.size},
 *       {@code mucscale.store.batch.time.ns}, {@code mucscale.store.spilled}, {@code mucscale.store.dead.letters}</li>
 *   <li>{@code mucscale.queue.<name>.depth}, {@code mucscale.muc.rooms}, {@code mucscale.muc.occupants},
 *       {@code mucscale.muc.messages.per.second}, {@code mucscale.muc.deliveries.per.second}</li>
 *   <li>{@code mucscale.probe.latency.ns}, {@code mucscale.jvm.gc.pause.ns}, {@code mucscale.jvm.gc.pauses},
 *       {@code mucscale.jvm.gc.cycles}, {@code mucscale.jvm.heap.used.bytes},
 *       {@code mucscale.jvm.allocation.bytes.per.second}, {@code mucscale.jvm.threads}</li>
 *   <li>{@code mucscale.cluster.relays.sent}, {@code .relay.bytes}, {@code .relay.deliveries},
 *       {@code .relays.received}, {@code .forwards}, {@code .replication.writes}, {@code .replication.late},
 *       {@code .failovers}, {@code .handoffs}, {@code .link.gaps}, {@code .straggler-hold.given-up},
 *       {@code .state-read.failures},
 *       {@code .state-read.given-up}, {@code mucscale.cluster.relay.latency.ns},
 *       {@code mucscale.cluster.replication.time.ns}, {@code mucscale.cluster.unreadable} (messages from other nodes
 *       that did not read) and {@code .unreadable.answered} (of those, the ones whose stanza's sender was answered
 *       service-unavailable); the dashboard's cluster panel also shows the
 *       {@link #clusterView(java.util.function.Supplier) view}, and Prometheus the members as
 *       {@code mucscale_cluster_member{node, local}} (value 1; inside Openfire this node alone when Openfire is
 *       not clustered; none without a cluster layer, as standalone with clustering off)</li>
 * </ul>
 */
public final class MucScaleMetrics implements AutoCloseable {

    /** JMX domain of every MBean. */
    public static final String JMX_DOMAIN = "org.mucscale";

    /** Distinct queues with their own depth gauge. */
    static final int MAX_QUEUES = 16;

    private final MetricsConfig config;
    private final Clock clock;
    private final MetricRegistry registry = new MetricRegistry();

    final HdrWindowReservoir deliveryLatency;
    final HdrWindowReservoir writeLatency;
    final HdrWindowReservoir fanout;
    final HdrWindowReservoir filterTime;
    final HdrWindowReservoir storeCommitLatency;
    final HdrWindowReservoir storeBatchSize;
    final HdrWindowReservoir storeBatchTime;
    final HdrWindowReservoir probeLatency;
    final HdrWindowReservoir gcPause;

    private final Histogram deliveryLatencyHistogram;
    private final Histogram writeLatencyHistogram;
    private final Histogram fanoutHistogram;
    private final Histogram filterTimeHistogram;
    private final Histogram storeCommitLatencyHistogram;
    private final Histogram storeBatchSizeHistogram;
    private final Histogram storeBatchTimeHistogram;
    private final Histogram probeLatencyHistogram;
    private final Histogram gcPauseHistogram;

    final Counter messages;
    final Counter deliveries;
    final Counter floodRejections;
    final Counter storeCommitted;
    final Counter storeSpilled;
    final Counter storeDeadLetters;
    final Counter outboundDropped;
    final Counter slowRecipientsRemoved;
    final Counter moderations;
    final Counter adminChanges;
    final Counter adminRefusals;
    final Counter gcPauses;
    final Counter gcCycles;
    final Counter probesSent;
    final Counter probesReceived;
    final Counter filterActionsTotal;

    final ClusterCounters cluster;
    final TopRooms topRooms;
    final TopRooms topFilterRooms;

    final FilterActionCounters filterActions;
    final ConcurrentHashMap<String, LongSupplier> queueDepths = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Counter> floodRejectionsByLimit = new ConcurrentHashMap<>();
    private volatile LongSupplier rooms = () -> 0;
    private volatile LongSupplier occupants = () -> 0;

    private final GcMonitor gcMonitor;
    private final DashboardData dashboard;
    private final PrometheusExposition prometheus;
    private JmxReporter jmxReporter;
    private boolean started;

    public MucScaleMetrics(MetricsConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
        long windowNs = config.window().toNanos();
        // The window slides in sixths: a 60 s window forgets values in 10 s steps.
        long intervalNs = Math.max(1_000_000_000L, windowNs / 6);
        deliveryLatency = HdrWindowReservoir.forNanos(windowNs, intervalNs, clock);
        writeLatency = HdrWindowReservoir.forNanos(windowNs, intervalNs, clock);
        fanout = HdrWindowReservoir.forCounts(windowNs, intervalNs, clock);
        filterTime = HdrWindowReservoir.forNanos(windowNs, intervalNs, clock);
        storeCommitLatency = HdrWindowReservoir.forNanos(windowNs, intervalNs, clock);
        storeBatchSize = HdrWindowReservoir.forCounts(windowNs, intervalNs, clock);
        storeBatchTime = HdrWindowReservoir.forNanos(windowNs, intervalNs, clock);
        probeLatency = HdrWindowReservoir.forNanos(windowNs, intervalNs, clock);
        gcPause = HdrWindowReservoir.forNanos(windowNs, intervalNs, clock);

        // Arrival to the last copy handed to the host's delivery adapter: the room's own work, measured before the
        // host's batched write; the time until the bytes are written is mucscale.muc.write.latency.ns.
        deliveryLatencyHistogram = histogram("mucscale.muc.handoff.latency.ns", deliveryLatency);
        writeLatencyHistogram = histogram("mucscale.muc.write.latency.ns", writeLatency);
        fanoutHistogram = histogram("mucscale.muc.fanout", fanout);
        filterTimeHistogram = histogram("mucscale.filter.time.ns", filterTime);
        storeCommitLatencyHistogram = histogram("mucscale.store.commit.latency.ns", storeCommitLatency);
        storeBatchSizeHistogram = histogram("mucscale.store.batch.size", storeBatchSize);
        storeBatchTimeHistogram = histogram("mucscale.store.batch.time.ns", storeBatchTime);
        probeLatencyHistogram = histogram("mucscale.probe.latency.ns", probeLatency);
        gcPauseHistogram = histogram("mucscale.jvm.gc.pause.ns", gcPause);

        messages = registry.counter("mucscale.muc.messages");
        deliveries = registry.counter("mucscale.muc.deliveries");
        floodRejections = registry.counter("mucscale.filter.flood.rejections");
        filterActionsTotal = registry.counter("mucscale.filter.acted");
        storeCommitted = registry.counter("mucscale.store.committed");
        storeSpilled = registry.counter("mucscale.store.spilled");
        storeDeadLetters = registry.counter("mucscale.store.dead.letters");
        outboundDropped = registry.counter("mucscale.delivery.dropped");
        slowRecipientsRemoved = registry.counter("mucscale.delivery.slow-recipients.removed");
        moderations = registry.counter("mucscale.muc.moderations");
        adminChanges = registry.counter("mucscale.admin.changes");
        adminRefusals = registry.counter("mucscale.admin.refusals");
        gcPauses = registry.counter("mucscale.jvm.gc.pauses");
        gcCycles = registry.counter("mucscale.jvm.gc.cycles");
        probesSent = registry.counter("mucscale.probe.sent");
        probesReceived = registry.counter("mucscale.probe.received");

        cluster = new ClusterCounters(registry, windowNs, intervalNs, clock);
        topRooms = new TopRooms(config.topRooms() * 4);
        topFilterRooms = new TopRooms(config.topRooms() * 4);
        filterActions = new FilterActionCounters(registry);

        gcMonitor = new GcMonitor(this::onGc, 4096);
        dashboard = new DashboardData(this, gcMonitor, config, clock);

        registry.register("mucscale.muc.rooms", (Gauge<Long>) () -> safely(rooms));
        registry.register("mucscale.muc.occupants", (Gauge<Long>) () -> safely(occupants));
        registry.register("mucscale.muc.messages.per.second", (Gauge<Double>) dashboard::messagesPerSecond);
        registry.register("mucscale.muc.deliveries.per.second", (Gauge<Double>) dashboard::deliveriesPerSecond);
        registry.register("mucscale.jvm.allocation.bytes.per.second", (Gauge<Double>) dashboard::allocationBytesPerSecond);
        registry.register("mucscale.jvm.heap.used.bytes",
                (Gauge<Long>) () -> ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        registry.register("mucscale.jvm.heap.max.bytes", (Gauge<Long>) () -> {
            MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
            return heap.getMax() < 0 ? heap.getCommitted() : heap.getMax();
        });
        // Room counts that lost the race for a top-rooms counter (never blocked for it): counted, not dropped.
        registry.register("mucscale.muc.top.rooms.unattributed", (Gauge<Long>) topRooms::unattributed);
        registry.register("mucscale.filter.top.rooms.unattributed", (Gauge<Long>) topFilterRooms::unattributed);
        registry.register("mucscale.jvm.threads", (Gauge<Integer>) () -> ManagementFactory.getThreadMXBean().getThreadCount());
        prometheus = new PrometheusExposition(registry);

    }

    private Histogram histogram(String name, HdrWindowReservoir reservoir) {
        return registry.register(name, new WindowHistogram(reservoir));
    }

    /** Starts GC notifications, the dashboard sampler and (if enabled) the JMX reporter. */
    public synchronized void start() {
        if (started) {
            return;
        }
        started = true;
        gcMonitor.start();
        dashboard.start();
        if (config.jmxEnabled()) {
            jmxReporter = JmxReporter.forRegistry(registry).inDomain(JMX_DOMAIN).build();
            jmxReporter.start();
        }
    }

    /** Stops everything {@link #start()} started, in reverse order; afterwards no listener, thread or MBean is left. */
    @Override
    public synchronized void close() {
        if (!started) {
            return;
        }
        started = false;
        if (jmxReporter != null) {
            try {
                jmxReporter.stop();
            } finally {
                jmxReporter = null;
            }
        }
        try {
            dashboard.close();
        } finally {
            gcMonitor.close();
        }
    }

    // ---- recording: hot path, no lock, no allocation ----

    /**
     * In-server hand-off latency: arrival at the service to the last local copy handed to the host's delivery adapter
     * (rendered and queued, not yet written: the host writes its batch after that).
     */
    public void recordDeliveryLatencyNs(long latencyNs) {
        deliveryLatencyHistogram.update(latencyNs);
    }

    /**
     * In-server write latency: arrival at the service to the moment the host handed a write holding copies of the
     * message to the socket (one sample per message and write; Openfire's batched path after the event loop's write
     * and flush, standalone when MINA reports the write to the server done).
     */
    public void recordWriteLatencyNs(long latencyNs) {
        writeLatencyHistogram.update(latencyNs);
    }

    /** Number of local recipients of one message. */
    public void recordFanout(int recipients) {
        fanoutHistogram.update(recipients);
    }

    /** One groupchat message fully handled: counts it, its deliveries and its room's traffic, and records both. */
    public void recordMessage(String room, int recipients, long deliveryLatencyNs) {
        messages.inc();
        deliveries.inc(recipients);
        fanoutHistogram.update(recipients);
        deliveryLatencyHistogram.update(deliveryLatencyNs);
        topRooms.record(room, 1);
    }

    /** Counts one message for a room's traffic (when {@link #recordMessage} is not used). */
    public void countRoomMessage(String room) {
        messages.inc();
        topRooms.record(room, 1);
    }

    /** Counts deliveries written (when {@link #recordMessage} is not used). */
    public void countDeliveries(int n) {
        deliveries.inc(n);
    }

    /** Time the filter spent on one message. */
    public void recordFilterNs(long filterNs) {
        filterTimeHistogram.update(filterNs);
    }

    /**
     * The filter acted on a message in {@code room} because of word list {@code list} ({@code action}, e.g. "mask",
     * "reject"). List and action become metric name parts: anything but letters, digits, '-' and '_' becomes '_'.
     */
    public void filterAction(String room, String list, String action) {
        filterActions.counter(list, action).inc();
        filterActionsTotal.inc();
        topFilterRooms.record(room, 1);
    }

    /**
     * How the filter's last compile read each operator list file (its format and how plain entries match), shown on
     * the dashboard. Replaced whole at every compile.
     */
    public void filterListsCompiled(java.util.List<String> lists) {
        filterLists = java.util.List.copyOf(lists);
    }

    java.util.List<String> filterLists() {
        return filterLists;
    }

    private volatile java.util.List<String> filterLists = java.util.List.of();

    /** A message refused by flood control. */
    public void floodRejected(String room) {
        floodRejections.inc();
    }

    /**
     * A stanza refused by flood control, naming the limit (e.g. "OCCUPANT_JOIN_RATE", "UNSOLICITED_DECLINE"): counted
     * in the total the dashboard charts and in {@code mucscale.filter.flood.rejections.<limit>}. Limits are a small
     * fixed set, so their counters are created once each.
     */
    public void floodRejected(String room, String limit) {
        floodRejections.inc();
        Counter c = floodRejectionsByLimit.get(limit);
        if (c == null) {
            c = floodRejectionsByLimit.computeIfAbsent(limit, l -> registry.counter("mucscale.filter.flood.rejections."
                    + l.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9_]", "_")));
        }
        c.inc();
    }

    /** Refusals of one flood limit so far (tests, admin page). */
    public long floodRejections(String limit) {
        Counter c = floodRejectionsByLimit.get(limit);
        return c == null ? 0 : c.getCount();
    }

    /** One message's time from enqueue in the write-behind store to its commit. */
    public void recordStoreCommitLatencyNs(long latencyNs) {
        storeCommitLatencyHistogram.update(latencyNs);
    }

    /** The store committed a batch of {@code batchSize} messages in {@code batchNs}. */
    public void storeCommitted(int batchSize, long batchNs) {
        storeCommitted.inc(batchSize);
        storeBatchSizeHistogram.update(batchSize);
        storeBatchTimeHistogram.update(batchNs);
    }

    public void storeSpilled(int messages) {
        storeSpilled.inc(messages);
    }

    public void storeDeadLettered(int messages) {
        storeDeadLetters.inc(messages);
    }

    /**
     * Outbound stanzas the host adapter did not deliver under its overflow policy (a slow recipient's shed presences
     * and queued stanzas, the component link's overflow); any thread, lock-free.
     */
    public void outboundDropped(long stanzas) {
        outboundDropped.inc(stanzas);
    }

    /** A recipient removed from its rooms because it read too slowly (status 333); any thread, lock-free. */
    public void slowRecipientRemoved() {
        slowRecipientsRemoved.inc();
    }

    /** A message retracted by a moderator (XEP-0425); room threads, lock-free. */
    public void messageModerated(String room) {
        moderations.inc();
    }

    /** Messages retracted by moderators so far (tests, admin page). */
    public long moderations() {
        return moderations.getCount();
    }

    /** An entry of the room administration's audit trail (HTTP threads; lock-free); {@code refused}: status >= 400. */
    public void adminChange(boolean refused) {
        adminChanges.inc();
        if (refused) {
            adminRefusals.inc();
        }
    }

    /** A relay sent to another cluster node (called on room threads; lock-free). */
    public void clusterRelaySent(int deliveries, int bytes) {
        cluster.relaysSent.inc();
        cluster.relayBytes.inc(bytes);
        cluster.relayDeliveries.inc(deliveries);
    }

    /** A relay arrived from another node, {@code latencyNs} after the sender's flush (wall clock). */
    public void clusterRelayReceived(long latencyNs) {
        cluster.relaysReceived.inc();
        cluster.relayLatencyHistogram.update(latencyNs);
    }

    public void clusterForwarded() {
        cluster.forwards.inc();
    }

    /** A message from a crashed node's run arrived after the node had left the view. */
    public void clusterLateFromDeparted() {
        cluster.lateFromDeparted.inc();
    }

    /** A message from another node could not be read (another version): dropped. */
    public void clusterUnreadable() {
        cluster.clusterUnreadable.inc();
    }

    /** An unreadable message's stanza was answered to its sender (service-unavailable) instead of dropped silently. */
    public void clusterUnreadableAnswered() {
        cluster.clusterUnreadableAnswered.inc();
    }

    /** A delivery to a session on a crashed node, which nobody can deliver, was dropped. */
    public void clusterDepartedSessionDropped() {
        cluster.departedSessionsDropped.inc();
    }

    /** A read of the replicated room state failed (tried again until the state-read timeout). */
    public void clusterStateReadFailed() {
        cluster.stateReadFailures.inc();
    }

    /** Rooms that came to this node without their replicated state (unreadable within the state-read timeout). */
    public void clusterStateReadGivenUp(int rooms) {
        cluster.stateReadGivenUp.inc(rooms);
    }

    /** One round of replicated-map writes (several flushes' writes when they queued up or lingered together). */
    public void clusterReplicationRound() {
        cluster.replicationRounds.inc();
    }

    /** One send to another node through the host, carrying {@code messages} messages (a batch when more than one). */
    public void clusterSent(int messages) {
        cluster.clusterSends.inc();
        cluster.clusterSentMessages.inc(messages);
    }

    public void clusterReplicated(long nanos, boolean late) {
        cluster.replicationWrites.inc();
        cluster.replicationTimeHistogram.update(nanos);
        if (late) {
            cluster.replicationLate.inc();
        }
    }

    public void clusterAdopted(boolean failover) {
        if (failover) {
            cluster.failovers.inc();
        }
    }

    public void clusterHandedOff() {
        cluster.handoffs.inc();
    }

    public void clusterLinkGap() {
        cluster.linkGaps.inc();
    }

    /**
     * Messages sent again to new owners because the node they had been forwarded to left before confirming them, and
     * older unconfirmed ones let go at the limit before that.
     */
    public void clusterResent(int count, long letGo) {
        cluster.resent.inc(count);
        cluster.resentLetGo.inc(letGo);
    }

    /** A resent message its room's previous owner had already accepted (skipped). */
    public void clusterResentDuplicate() {
        cluster.resentDuplicates.inc();
    }

    /** Forwards held for a leaving node's word that went on without it (docs/cluster-protocol.md, F1). */
    public void clusterStragglerHoldGivenUp(int forwards) {
        cluster.stragglerHoldGivenUp.inc(forwards);
    }

    /**
     * A message a departed owner had accepted, re-delivered by its room's new owner: written to this node's sessions
     * ({@code written}), or dropped because this node had delivered it.
     */
    public void clusterRedelivered(boolean written) {
        (written ? cluster.redelivered : cluster.redeliveredAlreadyHad).inc();
    }

    /** The cluster's view for the dashboard: nodes and rooms per node (null supplier: not clustered). */
    public void clusterView(java.util.function.Supplier<ClusterView> view) {
        this.clusterView = view;
    }

    /** Whether a cluster view is set (without asking it: the sampler checks this every sample). */
    boolean clustered() {
        return clusterView != null;
    }

    /** The cluster's view now, or null when not clustered or when the view failed to answer. */
    public ClusterView clusterView() {
        java.util.function.Supplier<ClusterView> v = clusterView;
        try {
            return v == null ? null : v.get();
        } catch (RuntimeException e) {
            return null;
        }
    }

    private volatile java.util.function.Supplier<ClusterView> clusterView;

    /**
     * The cluster's members for Prometheus ({@code mucscale_cluster_member}): the view's member list only, cheap enough
     * for every scrape (the {@link ClusterView}'s rooms per node read the replicated room list).
     */
    public void clusterMembers(String localNode, java.util.function.Supplier<List<String>> members) {
        prometheus.clusterMembers(localNode, members);
    }

    /**
     * This node, the rooms each member of the cluster owns and the build each runs ({@code versionsPerNode}: node to
     * "build (wire version n)", empty when unknown).
     */
    public record ClusterView(String localNode, Map<String, Integer> roomsPerNode, long failovers,
                              long lastFailoverMillis, Map<String, String> versionsPerNode) {
        public ClusterView(String localNode, Map<String, Integer> roomsPerNode, long failovers,
                           long lastFailoverMillis) {
            this(localNode, roomsPerNode, failovers, lastFailoverMillis, Map.of());
        }
    }

    /** End-to-end probe: send to receive through the real delivery path. */
    public void recordProbeLatencyNs(long latencyNs) {
        probeLatencyHistogram.update(latencyNs);
        probesReceived.inc();
    }

    void probeSent() {
        probesSent.inc();
    }

    // ---- gauges the runtime provides ----

    public void gaugeRooms(LongSupplier count) {
        rooms = count;
    }

    public void gaugeOccupants(LongSupplier count) {
        occupants = count;
    }

    /**
     * Registers a queue's depth as {@code mucscale.queue.<name>.depth}. Name: letters, digits, '-' and '_'.
     * Returns a handle that unregisters it.
     */
    public synchronized AutoCloseable gaugeQueueDepth(String queueName, LongSupplier depth) {
        String name = FilterActionCounters.sanitizeNamePart(queueName);
        if (!name.equals(queueName)) {
            throw new IllegalArgumentException("queue names are letters, digits, '-' and '_', was '" + queueName + "'");
        }
        if (queueDepths.size() >= MAX_QUEUES && !queueDepths.containsKey(name)) {
            throw new IllegalStateException("at most " + MAX_QUEUES + " queues have a depth gauge");
        }
        String metric = "mucscale.queue." + name + ".depth";
        registry.remove(metric);
        queueDepths.put(name, depth);
        registry.register(metric, (Gauge<Long>) () -> safely(depth));
        return () -> {
            synchronized (this) {
                if (queueDepths.remove(name, depth)) {
                    registry.remove(metric);
                }
            }
        };
    }

    /**
     * A gauge value from another capability's supplier; a failing supplier gives null, which JMX shows as empty and
     * the Prometheus bridge skips, instead of breaking the whole scrape.
     */
    private static Long safely(LongSupplier supplier) {
        try {
            return supplier.getAsLong();
        } catch (RuntimeException e) {
            return null;
        }
    }

    // ---- reading ----

    public MetricRegistry registry() {
        return registry;
    }

    public DashboardData dashboard() {
        return dashboard;
    }

    public GcMonitor gcMonitor() {
        return gcMonitor;
    }

    public MetricsConfig config() {
        return config;
    }

    Clock clock() {
        return clock;
    }

    /** Writes every metric in the Prometheus text format 0.0.4 ({@link #PROMETHEUS_CONTENT_TYPE}). */
    public void writePrometheus(Writer out) throws IOException {
        prometheus.write(out);
    }

    public static final String PROMETHEUS_CONTENT_TYPE = PrometheusExposition.CONTENT_TYPE;

    private void onGc(GcMonitor.GcEvent event) {
        if (event.pause()) {
            gcPauses.inc();
            gcPauseHistogram.update(event.durationMs() * 1_000_000L);
        } else {
            gcCycles.inc();
        }
    }
}
