package org.mucscale.standalone;

import com.zaxxer.hikari.HikariDataSource;
import java.util.List;
import org.mucscale.engine.config.InvalidSettingException;
import org.mucscale.engine.config.Setting;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.metrics.MucScaleMetrics;
import org.mucscale.engine.muc.MucService;
import org.mucscale.engine.runtime.MucScaleEngine;
import org.mucscale.engine.runtime.MucScaleSettings;
import org.mucscale.engine.store.DatabaseType;
import org.mucscale.engine.store.StandaloneDataSource;
import org.mucscale.engine.store.StoreSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone MUC service: mucscale's engine (MUC, content filter, room log store, metrics) behind an XEP-0114
 * component connection. {@link Main} runs it from a config file; tests start it in-process.
 *
 * <pre>
 * try (StandaloneServer server = StandaloneServer.start(Settings.fromText(StandaloneServer.catalog(), text))) {
 *     ...   // rooms at room@component-domain, reached through the XMPP server
 * }
 * </pre>
 *
 * <p>Lifecycle: {@link #start} opens the database pool (when the store is enabled), starts the engine, then
 * connects (blocking until the handshake is done). {@link #close} stops the engine first, while the stream is still
 * up, so occupants are told their rooms are going (status 332) and queued stanzas drain; then it closes the stream
 * and the pool. Called from one thread (main, or the shutdown hook).
 */
public final class StandaloneServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StandaloneServer.class);

    private final ComponentConnection connection;
    private final MucScaleEngine engine;
    private final HikariDataSource dataSource;
    private boolean closed;

    private StandaloneServer(ComponentConnection connection, MucScaleEngine engine, HikariDataSource dataSource) {
        this.connection = connection;
        this.engine = engine;
        this.dataSource = dataSource;
    }

    /** Every setting the config file may hold: the engine's and the standalone runner's. */
    public static List<Setting<?>> catalog() {
        return MucScaleSettings.catalogWith(StandaloneSettings.ALL);
    }

    /**
     * Validates the settings, starts the engine and connects to the server. Throws {@link InvalidSettingException}
     * for bad configuration and {@link ComponentException} when the server cannot be reached or refuses the
     * component; nothing is left running then.
     */
    public static StandaloneServer start(Settings settings) throws ComponentException {
        ComponentConfig componentConfig = ComponentConfig.from(settings);
        ComponentConnection connection = new ComponentConnection(componentConfig);
        HikariDataSource ds = null;
        MucScaleEngine engine = null;
        HazelcastClusterTransport transport = null;
        try {
            MucScaleEngine.Builder b = MucScaleEngine.builder(componentConfig.domain(), settings, connection)
                    .serveHttp(true);
            boolean clustered = settings.get(StandaloneSettings.CLUSTER_ENABLED);
            if (clustered) {
                transport = HazelcastClusterTransport.create(settings);
                // users' sessions are on the server; while this node's link is down another node's link serves
                b.cluster(transport).clusterSessionsOnServer(connection::isReady);
            }
            if (settings.get(StoreSettings.ENABLED)) {
                DatabaseType type = DatabaseType.fromJdbcUrl(settings.get(StoreSettings.JDBC_URL));
                ds = StandaloneDataSource.create(settings);
                b.database(ds, type, true);
            }
            engine = b.build();
            engine.start();
            MucScaleEngine started = engine;
            connection.recordWriteLatency(ns -> {
                MucScaleMetrics m = started.metrics();
                if (m != null) {
                    m.recordWriteLatencyNs(ns);
                }
            });
            connection.metrics(engine.metrics());
            if (clustered) {
                // the server may accept one link per component address (Prosody): a node that starts while another
                // holds it waits in the background and takes the link over when the holder goes
                connection.connectInBackground(engine::process);
            } else {
                connection.connect(engine::process);
            }
        } catch (ComponentException | RuntimeException e) {
            if (engine != null) {
                engine.close();
            } else if (transport != null) {
                transport.stop();
            }
            connection.close();
            if (ds != null) {
                ds.close();
            }
            throw e;
        }
        LOG.info("mucscale standalone: MUC service {} connected to {}:{}", componentConfig.domain(),
                componentConfig.serverHost(), componentConfig.serverPort());
        return new StandaloneServer(connection, engine, ds);
    }

    public ComponentConnection connection() {
        return connection;
    }

    public MucScaleEngine engine() {
        return engine;
    }

    public MucService muc() {
        return engine.muc();
    }

    public ComponentStats stats() {
        return connection.stats();
    }

    /** Stops the engine (occupants are told), then closes the stream and the pool; idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            connection.stopBackPressure(); // a stop never waits for a slow server
            engine.close();
        } finally {
            connection.close();
            if (dataSource != null) {
                dataSource.close();
            }
        }
        ComponentStats s = stats();
        LOG.info("mucscale standalone: stopped (stanzas in {}, out {}, not sent {})", s.stanzasReceived(),
                s.stanzasSent(), s.outboundDroppedQueueFull() + s.outboundDroppedDisconnected());
    }
}
