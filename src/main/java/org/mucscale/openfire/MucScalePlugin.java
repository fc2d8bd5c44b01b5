package org.mucscale.openfire;

import java.io.File;
import java.util.List;
import org.jivesoftware.openfire.XMPPServer;
import org.jivesoftware.openfire.container.Plugin;
import org.jivesoftware.openfire.container.PluginManager;
import org.jivesoftware.util.JiveGlobals;
import org.mucscale.engine.config.Setting;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.runtime.MucScaleEngine;
import org.mucscale.engine.store.DatabaseType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Openfire entry point. {@link #initializePlugin} wires the capabilities, pushing every registration with
 * Openfire onto a {@link Registrations} stack; {@link #destroyPlugin} releases them in reverse order, each in its own
 * try, so a reload or removal leaves no thread, listener, interceptor, component, servlet state or property
 * definition of ours behind. If initialization fails halfway, what was registered so far is released before the
 * exception reaches Openfire (which would otherwise retry on top of our leftovers).
 *
 * <p>Wiring, in start order (stopped in reverse):
 * <ol>
 *   <li>system properties and the validated settings snapshot ({@link MucScaleProperties});</li>
 *   <li>the cluster transport ({@link OpenfireClusterTransport}, Openfire's clustering API), stopped after the
 *       engine;</li>
 *   <li>the engine ({@link MucScaleEngine}: metrics, filter, room log store on Openfire's database, MUC service,
 *       cluster through the transport), delivering through {@link OpenfireDelivery};</li>
 *   <li>settings subscription: dynamic changes reach the engine and the adapter;</li>
 *   <li>the MUC Scale service component on {@code mucscale.openfire.subdomain};</li>
 *   <li>the content filter interceptor for Openfire's own MUC ({@link BuiltInMucFilter});</li>
 *   <li>the Prometheus path's admin-login exclusion, when configured;</li>
 *   <li>the room-administration API's admin-login exclusion ({@link AdminApiExclusion}; web.xml's
 *       {@link AdminApiFilter} serves the API);</li>
 *   <li>the context the servlets of web/WEB-INF/web.xml read ({@link MucScaleContext}).</li>
 * </ol>
 *
 * <p>Concurrency: Openfire calls initialize and destroy on its plugin-monitor thread, one at a time.
 */
public final class MucScalePlugin implements Plugin {

    private static final Logger LOG = LoggerFactory.getLogger(MucScalePlugin.class);

    private final Registrations registrations = new Registrations(
            (what, e) -> LOG.error("MUC Scale could not release {}", what, e));
    private volatile MucScaleProperties properties;

    @Override
    public void initializePlugin(PluginManager manager, File pluginDirectory) {
        long startNs = System.nanoTime();
        try {
            start();
        } catch (Exception | Error e) {
            LOG.error("MUC Scale failed to start; releasing what was registered", e);
            registrations.closeAll();
            properties = null;
            if (e instanceof RuntimeException re) {
                throw re;
            }
            if (e instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException("MUC Scale failed to start: " + e.getMessage(), e);
        }
        LOG.info("MUC Scale started in {} ms with {} settings", (System.nanoTime() - startNs) / 1_000_000,
                properties.propertyCount());
    }

    private void start() throws Exception {
        List<Setting<?>> catalog = SettingsCatalog.all();
        MucScaleProperties props = registrations.push("system properties", MucScaleProperties.register(catalog));
        properties = props;
        Settings settings = props.current();

        XMPPServer server = XMPPServer.getInstance();
        String xmppDomain = server.getServerInfo().getXMPPDomain();
        String subdomain = settings.get(OpenfireSettings.SUBDOMAIN);
        OpenfireDelivery delivery = new OpenfireDelivery(server, settings.get(OpenfireSettings.DIRECT_LOCAL_DELIVERY),
                settings.get(OpenfireSettings.RAW_LOCAL_DELIVERY), settings.get(OpenfireSettings.BATCHED_WRITES));
        registrations.push("session events", delivery.watchSessions());
        ReplacedSessionRoutes replacedSessions = new ReplacedSessionRoutes(server.getRoutingTable());
        registrations.push("replaced-session routes", replacedSessions.watch());

        MucScaleEngine.Builder builder = MucScaleEngine.builder(subdomain + "." + xmppDomain, settings, delivery)
                .home(JiveGlobals.getHomePath());
        DatabaseType databaseType = supportedDatabase();
        if (databaseType != null) {
            // Openfire installs database/mucscale_<type>.sql itself (plugin.xml databaseKey), so no schema install.
            builder.database(new OpenfireDataSource(), databaseType, false);
        }
        // Always clustered through Openfire's API: alone it reports a one-member view and sends nothing; when
        // Openfire's hazelcast plugin starts the cluster later (it waits until every plugin has loaded), the
        // transport reports the new view. The engine starts and stops it; the registration below stops it too
        // (stop is idempotent), so a start that fails before the engine owns it leaves nothing registered.
        OpenfireClusterTransport cluster = new OpenfireClusterTransport();
        registrations.onClose("cluster transport", cluster::stop);
        builder.cluster(cluster);
        MucScaleEngine engine = builder.build();
        engine.start();
        registrations.push("engine", engine);
        delivery.registerGauges(engine.metrics().registry());
        engine.metrics().registry().register("mucscale.openfire.routes-repaired",
                (com.codahale.metrics.Gauge<Long>) replacedSessions::repairedCount);
        delivery.recordWriteLatency(engine.metrics()::recordWriteLatencyNs);
        delivery.recipientMaxQueuedBytes(settings.get(OpenfireSettings.RECIPIENT_MAX_QUEUED_BYTES));
        delivery.rawStreamManaged(settings.get(OpenfireSettings.RAW_STREAM_MANAGED));
        delivery.slowRecipients(engine.muc(), engine.metrics());

        BuiltInMucFilter builtInFilter = new BuiltInMucFilter(engine::filter, server.getMultiUserChatManager(),
                xmppDomain, settings.get(OpenfireSettings.FILTER_BUILTIN_MUC));
        PrometheusExclusion prometheus = new PrometheusExclusion();
        AdminApiExclusion adminApi = new AdminApiExclusion();
        registrations.push("settings subscription", props.subscribe(s -> {
            engine.reconfigure(s);
            delivery.directLocal(s.get(OpenfireSettings.DIRECT_LOCAL_DELIVERY));
            delivery.rawLocal(s.get(OpenfireSettings.RAW_LOCAL_DELIVERY));
            delivery.batchedWrites(s.get(OpenfireSettings.BATCHED_WRITES));
            delivery.rawStreamManaged(s.get(OpenfireSettings.RAW_STREAM_MANAGED));
            delivery.recipientMaxQueuedBytes(s.get(OpenfireSettings.RECIPIENT_MAX_QUEUED_BYTES));
            builtInFilter.enabled(s.get(OpenfireSettings.FILTER_BUILTIN_MUC));
            prometheus.apply(s);
            adminApi.apply(s);
        }));

        registrations.push("component " + subdomain, MucScaleComponent.register(subdomain, engine::process));
        registrations.push("built-in MUC filter interceptor", BuiltInMucFilter.register(builtInFilter));
        prometheus.apply(settings);
        registrations.push("Prometheus admin-login exclusion", prometheus);
        adminApi.apply(settings);
        registrations.push("room administration API admin-login exclusion", adminApi);
        registrations.onClose("servlet context", MucScaleContext.install(props, engine::metrics, engine::probeNow,
                () -> engine));
    }

    /** Openfire's database type when the room log has scripts for it, else null (room log off, said in the log). */
    private static DatabaseType supportedDatabase() {
        try {
            return OpenfireDataSource.databaseType();
        } catch (IllegalArgumentException e) {
            LOG.info("MUC Scale keeps no room log on this database: {}", e.getMessage());
            return null;
        }
    }

    @Override
    public void destroyPlugin() {
        List<String> failed = registrations.closeAll();
        properties = null;
        if (failed.isEmpty()) {
            LOG.info("MUC Scale stopped");
        } else {
            LOG.error("MUC Scale stopped, but could not release: {}", failed);
        }
    }

    /** The settings in force, or null while the plugin is not initialized. */
    MucScaleProperties properties() {
        return properties;
    }
}
