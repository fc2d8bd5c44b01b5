package org.mucscale.engine.runtime;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.mucscale.engine.cluster.ClusterNode;
import org.mucscale.engine.cluster.ClusterTransport;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.filter.ContentFilter;
import org.mucscale.engine.filter.FilterSettings;
import org.mucscale.engine.filter.FilterConfig;
import org.mucscale.engine.metrics.MetricsConfig;
import org.mucscale.engine.metrics.MetricsHttpServer;
import org.mucscale.engine.metrics.MetricsSettings;
import org.mucscale.engine.metrics.MucScaleMetrics;
import org.mucscale.engine.metrics.Probe;
import org.mucscale.engine.muc.MucConfig;
import org.mucscale.engine.muc.MucService;
import org.mucscale.engine.muc.MucSettings;
import org.mucscale.engine.port.Clock;
import org.mucscale.engine.muc.admin.RoomAdmin;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.runtime.admin.AdminApi;
import org.mucscale.engine.runtime.admin.AdminApiHttpHandler;
import org.mucscale.engine.runtime.admin.AdminForwarding;
import org.mucscale.engine.runtime.admin.RoomsAdminPage;
import org.mucscale.engine.runtime.admin.ServiceAdminPage;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;
import org.mucscale.engine.store.DatabaseType;
import org.mucscale.engine.store.RoomLogStore;
import org.mucscale.engine.store.StoreConfig;
import org.mucscale.engine.store.StoreSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * mucscale's engine in one object: the MUC service with its content filter, room log store and metrics, wired
 * through their ports and started and stopped as one. Hosts (the Openfire plugin, the standalone component) give it
 * a validated {@link Settings} snapshot, a {@link Delivery} for outbound stanzas and, for the room log, a
 * {@link DataSource}; then feed it inbound stanzas with {@link #process}.
 *
 * <pre>{@code
 * MucScaleEngine engine = MucScaleEngine.builder("muc.example.org", settings, delivery)
 *         .database(dataSource, DatabaseType.HSQLDB, true)   // optional: no database, no room log
 *         .build();
 * engine.start();
 * engine.process(stanza);          // any thread
 * engine.close();                  // reverse order; afterwards no thread, timer or listener of ours is left
 * }</pre>
 *
 * <p>Lifecycle: {@link #start} starts metrics, filter, store, MUC service, probe and (standalone only) the metrics
 * HTTP server in that order, pushing each onto a stack; {@link #close} closes the stack in reverse, each step in its
 * own try, so a failed start or a failing part never leaves the others running. An engine starts once.
 */
public final class MucScaleEngine implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MucScaleEngine.class);
    static final String PROBE_ROOM = "mucscale-probe";

    private final String serviceDomain;
    /** The newest snapshot reconfigure applied; null until then (written under this object's lock). */
    private volatile Settings applied;
    private final Settings settings;
    private final Delivery hostDelivery;
    private final Clock clock;
    private final DataSource dataSource;
    private final DatabaseType databaseType;
    private final boolean installSchema;
    private final boolean serveHttp;
    private final Path home;
    private final ClusterTransport cluster;
    private final java.util.function.BooleanSupplier sessionsOnServer;
    private final Deque<AutoCloseable> running = new ArrayDeque<>();

    private volatile MucService muc;
    private volatile ContentFilter filter;
    private volatile RoomLogStore store;
    private volatile MucScaleMetrics metrics;
    private volatile MetricsHttpServer http;
    private volatile Probe probe;
    private volatile ClusterNode clusterNode;
    private volatile AdminApi adminApi;
    private boolean started;
    private String probeAdmin;

    private MucScaleEngine(Builder b) {
        this.serviceDomain = b.serviceDomain;
        this.settings = b.settings;
        this.hostDelivery = b.delivery;
        this.clock = b.clock;
        this.dataSource = b.dataSource;
        this.databaseType = b.databaseType;
        this.installSchema = b.installSchema;
        this.serveHttp = b.serveHttp;
        this.home = b.home;
        this.cluster = b.cluster;
        this.sessionsOnServer = b.sessionsOnServer;
    }

    public static Builder builder(String serviceDomain, Settings settings, Delivery delivery) {
        return new Builder(serviceDomain, settings, delivery);
    }

    /**
     * Starts every part. On failure everything already started is stopped again and the cause is rethrown (as an
     * {@link IllegalStateException} naming the part, for checked causes).
     */
    public synchronized void start() {
        if (started) {
            throw new IllegalStateException("a mucscale engine starts once; build a new one");
        }
        started = true;
        try {
            MucScaleMetrics m = new MucScaleMetrics(MetricsConfig.from(settings), clock);
            m.start();
            push(m, () -> metrics = null);
            metrics = m;

            ContentFilter f = ContentFilter.start(FilterConfig.from(settings), MetricsBridge.filter(m));
            push(f, () -> filter = null);
            filter = f;

            StoreConfig storeConfig = StoreConfig.from(settings);
            if (home != null && !storeConfig.spillDirectory().isAbsolute()) {
                storeConfig = storeConfig.withSpillDirectory(home.resolve(storeConfig.spillDirectory()));
            }
            RoomLogStore s = null;
            if (dataSource != null && storeConfig.enabled()) {
                s = new RoomLogStore(dataSource, databaseType, storeConfig, clock, MetricsBridge.store(m), installSchema);
                try {
                    s.start();
                } catch (SQLException e) {
                    s.close();
                    throw new IllegalStateException("mucscale: the room log store could not start: " + e.getMessage(), e);
                }
                push(s, () -> store = null);
                store = s;
                RoomLogStore started = s;
                push(m.gaugeQueueDepth("store", () -> started.writer().queueDepth()), () -> { });
            } else {
                LOG.info("mucscale: room log store off ({})", dataSource == null ? "no database" : "mucscale.store.enabled=false");
            }

            MetricsConfig mc = m.config();
            boolean probeOn = mc.probeEnabled();
            ClusterNode node = cluster == null ? null
                    : new ClusterNode(cluster, settings, settings.get(MucSettings.HISTORY_SIZE),
                    MetricsBridge.cluster(m));
            if (node != null && sessionsOnServer != null) {
                node.sessionsOnServer(sessionsOnServer);
            }
            // in a cluster every node has its own probe occupant, so each one measures its own path
            ProbeOccupant probeOccupant = new ProbeOccupant(hostDelivery,
                    Jid.of(null, serviceDomain, null), clock, node == null ? null : node.localNode());
            probeAdmin = probeOn ? probeOccupant.address().bare().toString() : null;
            Settings mucSettings = probeOn ? withServiceAdmin(settings, probeAdmin) : settings;
            Delivery engineDelivery = probeOn ? probeOccupant : hostDelivery;
            if (node != null) {
                engineDelivery = node.wrap(engineDelivery);
            }
            MucService.Builder mb = MucService.builder(serviceDomain, MucConfig.from(mucSettings), engineDelivery)
                    .clock(clock).inspector(new FilterInspector(f)).listener(MetricsBridge.muc(m));
            if (node != null) {
                mb.cluster(node, node);
            }
            if (s != null) {
                long durableTimeoutMs = settings.get(StoreSettings.WRITE_AHEAD_TIMEOUT).toMillis();
                mb.logSink(new StoreLogSink(s, durableTimeoutMs,
                        settings.get(FilterSettings.REVIEW_QUEUE) ? f : null)).repository(new StoreRoomRepository(s))
                        .archive(new StoreArchiveSource(s.reader()));
            }
            MucService service = mb.build();
            service.start();
            push(service::stop, () -> muc = null);
            muc = service;
            m.gaugeRooms(service::roomCount);
            m.gaugeOccupants(service::occupantCount);

            if (node != null) {
                // closed before the service stops: a graceful leave hands every room to another node first
                node.start(service);
                push(node, () -> clusterNode = null);
                clusterNode = node;
                m.clusterView(() -> new MucScaleMetrics.ClusterView(node.localNode(), node.roomsPerNode(),
                        node.failovers(), node.lastFailoverMillis(), node.versionsPerNode()));
                m.clusterMembers(node.localNode(), node::members);
                push(m.gaugeQueueDepth("cluster-relay-in", node::relayBacklog), () -> { });
                push(m.gaugeQueueDepth("cluster-held", node::heldMessages), () -> { });
                push(m.gaugeQueueDepth("cluster-unconfirmed", node::unconfirmedMessages), () -> { });
            }

            if (probeOn) {
                List<String> rooms = new ArrayList<>();
                rooms.add(PROBE_ROOM);
                rooms.addAll(mc.probeRooms());
                Probe p = new Probe(probeOccupant, rooms, mc.probeInterval(), m, clock);
                probeOccupant.attach(service::process, p, rooms);
                p.start();
                push(() -> {
                    p.close();
                    probeOccupant.detach();
                }, () -> probe = null);
                probe = p;
            }

            RoomLogStore auditStore = store;
            AdminApi api = new AdminApi(new RoomAdmin(service), settings,
                    auditStore == null ? null : auditStore.audit());
            api.audit().countIn(m); // the dashboard's and Prometheus's count of changes and refusals
            if (node != null) {
                // a call for a room another node owns is run there; listings ask every member
                AdminForwarding.install(api, node);
            }
            push(() -> { }, () -> adminApi = null);
            adminApi = api;

            if (serveHttp && mc.httpEnabled()) {
                MetricsHttpServer server = new MetricsHttpServer(m, mc);
                server.onAction("probe", this::probeNow);
                server.mount(AdminApi.PREFIX, new AdminApiHttpHandler(api));
                server.page("/mucscale-rooms.jsp", (query, form, csrf, remote) -> {
                    java.util.Map<String, String> params = new java.util.HashMap<>(query);
                    String notice = null;
                    if (form != null) {
                        notice = RoomsAdminPage.act(api, form, "dashboard", remote);
                        if ("destroy".equals(form.get("action"))) {
                            params.remove("room"); // the room is gone: back to the list
                        }
                    }
                    return RoomsAdminPage.page(api, params, csrf, notice);
                });
                server.page("/mucscale-service.jsp", (query, form, csrf, remote) -> {
                    // standalone the settings live in the running engine (the settings file is read at start only)
                    String notice = form == null ? null : ServiceAdminPage.act(form, currentSettings(), changed -> {
                        Settings next = currentSettings();
                        for (java.util.Map.Entry<String, String> e : changed.entrySet()) {
                            next = next.withText(e.getKey(), e.getValue());
                        }
                        reconfigure(next);
                    }, api.audit(), "dashboard", remote);
                    return ServiceAdminPage.page(currentSettings(), serviceDomain, csrf, notice);
                });
                server.start();
                push(server, () -> http = null);
                http = server;
            }
            LOG.info("mucscale: engine for {} started", serviceDomain);
        } catch (RuntimeException | IOException | Error e) {
            close();
            if (e instanceof RuntimeException re) {
                throw re;
            }
            if (e instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException("mucscale: the metrics HTTP server could not start: " + e.getMessage(), e);
        }
    }

    private static Settings withServiceAdmin(Settings s, String jid) {
        String admins = s.get(MucSettings.SERVICE_ADMINS).trim();
        return s.with(MucSettings.SERVICE_ADMINS, admins.isEmpty() ? jid : admins + "," + jid);
    }

    private void push(AutoCloseable part, Runnable forget) {
        running.push(() -> {
            try {
                part.close();
            } finally {
                forget.run();
            }
        });
    }

    /** Hands one inbound stanza (addressed to the service or one of its rooms) to the MUC service; never blocks. */
    public void process(XmlElement stanza) {
        MucService m = muc;
        if (m != null) {
            m.process(stanza);
        }
    }

    /**
     * Applies a new snapshot's dynamic settings to the running parts: the content filter recompiles off the message
     * path and swaps atomically; the MUC service applies its dynamic settings from the next stanza each room handles.
     * Returns the keys whose new values need a restart (they keep their running values until then).
     */
    public synchronized List<String> reconfigure(Settings newSettings) {
        applied = newSettings;
        List<String> restartNeeded = new ArrayList<>();
        ContentFilter f = filter;
        if (f != null) {
            f.reconfigure(FilterConfig.from(newSettings));
        }
        AdminApi api = adminApi;
        if (api != null) {
            api.updateSettings(newSettings);
        }
        MucService m = muc;
        if (m != null) {
            Settings mucSettings = probeAdmin == null ? newSettings : withServiceAdmin(newSettings, probeAdmin);
            restartNeeded.addAll(m.reconfigure(MucConfig.from(mucSettings)));
        }
        return restartNeeded;
    }

    /**
     * Sends one probe message into every probe room now (the dashboard's "send a probe" action); false when the probe
     * is off or the engine is not running.
     */
    public boolean probeNow() {
        Probe p = probe;
        if (p == null) {
            return false;
        }
        p.sendOnce();
        return true;
    }

    /** Stops every part in reverse start order; idempotent. */
    @Override
    public synchronized void close() {
        while (!running.isEmpty()) {
            AutoCloseable part = running.pop();
            try {
                part.close();
            } catch (Exception | Error e) {
                LOG.error("mucscale: a part did not stop cleanly: {}", e.toString(), e);
            }
        }
    }

    public String serviceDomain() {
        return serviceDomain;
    }

    /** The MUC service, or null when not running. */
    /**
     * Retracts a message from the review queue on an operator's behalf (admin page): every occupant of the room is
     * told, history and room log keep the tombstone, and the message leaves the queue. A room not active on this
     * node (a temporary room that is gone) has nobody to tell: its log row is retracted directly. Blocking; not for
     * room threads.
     */
    public org.mucscale.engine.muc.RoomLogSink.Retraction retractReviewed(String roomJid, String stanzaId,
                                                                           String reason) throws Exception {
        MucService service = muc;
        RoomLogStore log = store;
        if (service == null || log == null) {
            throw new IllegalStateException("the engine runs without the MUC service or the room log");
        }
        Jid room = Jid.parse(roomJid);
        org.mucscale.engine.muc.RoomLogSink.Retraction outcome =
                service.retractAsService(room, stanzaId, reason).get(60, java.util.concurrent.TimeUnit.SECONDS);
        if (outcome == org.mucscale.engine.muc.RoomLogSink.Retraction.NOT_FOUND) {
            String stamp = java.time.Instant.ofEpochMilli(clock.currentTimeMillis()).toString();
            org.mucscale.engine.store.RoomLogRetractions.Outcome o = log.retract(room.toString(), stanzaId, r ->
                    org.mucscale.engine.stanza.XmlElement.builder("message")
                            .attribute("from", room + "/" + r.senderNick()).attribute("type", "groupchat")
                            .child(org.mucscale.engine.stanza.XmlElement.builder("retracted",
                                    "urn:xmpp:message-retract:1").attribute("stamp", stamp)
                                    .child(org.mucscale.engine.stanza.XmlElement.builder("moderated",
                                            "urn:xmpp:message-moderate:1").attribute("by", room.toString()).build())
                                    .build())
                            .child(org.mucscale.engine.stanza.XmlElement.builder("stanza-id", "urn:xmpp:sid:0")
                                    .attribute("id", r.stanzaId()).attribute("by", room.toString()).build())
                            .build().toXml());
            outcome = switch (o) {
                case RETRACTED -> org.mucscale.engine.muc.RoomLogSink.Retraction.RETRACTED;
                case ALREADY_RETRACTED -> org.mucscale.engine.muc.RoomLogSink.Retraction.ALREADY_RETRACTED;
                case NOT_FOUND -> org.mucscale.engine.muc.RoomLogSink.Retraction.NOT_FOUND;
            };
        }
        log.review().remove(room.toString(), stanzaId);
        return outcome;
    }

    public MucService muc() {
        return muc;
    }

    /** The room administration HTTP API (served by the host), or null when not running. */
    public AdminApi adminApi() {
        return adminApi;
    }

    /** The content filter, or null when not running. */
    public ContentFilter filter() {
        return filter;
    }

    /** The room log store, or null when not running or not configured. */
    public RoomLogStore store() {
        return store;
    }

    /** The metrics registry, or null when not running. */
    public MucScaleMetrics metrics() {
        return metrics;
    }

    /** This node of the cluster, or null when not clustered or not running. */
    public ClusterNode cluster() {
        return clusterNode;
    }

    /** The standalone metrics HTTP server, or null when not serving. */
    public MetricsHttpServer http() {
        return http;
    }

    public Settings settings() {
        return settings;
    }

    /** The newest snapshot given to {@link #reconfigure} (the start snapshot before any): what the pages show. */
    public Settings currentSettings() {
        Settings a = applied;
        return a != null ? a : settings;
    }

    /** Builds an engine; the settings snapshot must hold {@link MucScaleSettings#catalog()}. */
    public static final class Builder {
        private final String serviceDomain;
        private final Settings settings;
        private final Delivery delivery;
        private Clock clock = Clock.SYSTEM;
        private DataSource dataSource;
        private DatabaseType databaseType;
        private boolean installSchema;
        private boolean serveHttp;
        private Path home;
        private ClusterTransport cluster;
        private java.util.function.BooleanSupplier sessionsOnServer;

        private Builder(String serviceDomain, Settings settings, Delivery delivery) {
            this.serviceDomain = Objects.requireNonNull(serviceDomain, "serviceDomain");
            this.settings = Objects.requireNonNull(settings, "settings");
            this.delivery = Objects.requireNonNull(delivery, "delivery");
        }

        public Builder clock(Clock c) {
            this.clock = Objects.requireNonNull(c);
            return this;
        }

        /**
         * The room log's database. {@code installSchema}: apply the {@code database/} scripts (standalone); inside
         * Openfire, Openfire applies them from plugin.xml, so pass false.
         */
        public Builder database(DataSource ds, DatabaseType type, boolean install) {
            this.dataSource = Objects.requireNonNull(ds);
            this.databaseType = Objects.requireNonNull(type);
            this.installSchema = install;
            return this;
        }

        /** Serve dashboard, JSON and Prometheus over the engine's own HTTP server (standalone; per settings). */
        public Builder serveHttp(boolean on) {
            this.serveHttp = on;
            return this;
        }

        /**
         * The server's home (Openfire's home, or the standalone runner's working folder): relative local paths in the
         * settings, such as {@code mucscale.store.spill-directory}, resolve against it rather than the process's
         * working directory.
         */
        public Builder home(Path dir) {
            this.home = dir.toAbsolutePath();
            return this;
        }

        /**
         * Joins the engine to a cluster through {@code transport} (standalone: Hazelcast embedded; Openfire: its own
         * clustering API). The engine starts the transport after the MUC service and stops it first on close. Without
         * this call the engine runs alone with no clustering code on its message path.
         */
        public Builder cluster(ClusterTransport transport) {
            this.cluster = Objects.requireNonNull(transport);
            return this;
        }

        /**
         * Standalone clustering: users' sessions live on the XMPP server, and this node reaches all of them while
         * {@code linkUp} (its own server link) is true; see {@link ClusterNode#sessionsOnServer}.
         */
        public Builder clusterSessionsOnServer(java.util.function.BooleanSupplier linkUp) {
            this.sessionsOnServer = Objects.requireNonNull(linkUp);
            return this;
        }

        public MucScaleEngine build() {
            return new MucScaleEngine(this);
        }
    }
}
