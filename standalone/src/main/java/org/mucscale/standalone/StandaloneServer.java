package org.mucscale.standalone;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.mucscale.engine.config.InvalidSettingException;
import org.mucscale.engine.config.Setting;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.muc.MucConfig;
import org.mucscale.engine.muc.MucService;
import org.mucscale.engine.muc.MucSettings;
import org.mucscale.engine.port.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone MUC service: the engine behind an XEP-0114 component connection. {@link Main} runs it from a
 * config file; tests start it in-process.
 *
 * <pre>
 * try (StandaloneServer server = StandaloneServer.start(Settings.fromText(StandaloneServer.catalog(), text))) {
 *     ...   // rooms at room@component-domain, reached through the XMPP server
 * }
 * </pre>
 *
 * <p>Lifecycle: {@link #start} builds and starts the engine, then connects (blocking until the handshake is done);
 * {@link #close} stops the engine first, while the stream is still up, so occupants are told their rooms are going
 * (status 332) and queued stanzas drain, then closes the stream.
 */
public final class StandaloneServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StandaloneServer.class);

    private final ComponentConnection connection;
    private final MucService muc;

    private StandaloneServer(ComponentConnection connection, MucService muc) {
        this.connection = connection;
        this.muc = muc;
    }

    /** Every setting the config file may hold: the standalone runner's and the engine's. */
    public static List<Setting<?>> catalog() {
        List<Setting<?>> all = new ArrayList<>(StandaloneSettings.ALL);
        all.addAll(MucSettings.ALL);
        return List.copyOf(all);
    }

    /**
     * Validates the settings, starts the engine and connects to the server. Throws {@link InvalidSettingException}
     * for bad configuration and {@link ComponentException} when the server cannot be reached or refuses the
     * component; nothing is left running then.
     */
    public static StandaloneServer start(Settings settings) throws ComponentException {
        ComponentConfig componentConfig = ComponentConfig.from(settings);
        MucConfig mucConfig = MucConfig.from(settings);
        checkDatabaseUrl(settings.get(StandaloneSettings.DATABASE_URL));
        ComponentConnection connection = new ComponentConnection(componentConfig);
        // TODO(runtime): filter, store (database-url), metrics once engine/runtime wires them into one engine.
        MucService muc = MucService.builder(componentConfig.domain(), mucConfig, connection).clock(Clock.SYSTEM).build();
        muc.start();
        try {
            connection.connect(muc::process);
        } catch (ComponentException | RuntimeException e) {
            muc.stop();
            connection.close();
            throw e;
        }
        LOG.info("mucscale standalone: MUC service {} connected to {}:{}", componentConfig.domain(),
                componentConfig.serverHost(), componentConfig.serverPort());
        return new StandaloneServer(connection, muc);
    }

    private static void checkDatabaseUrl(String url) {
        try {
            DriverManager.getDriver(url);
        } catch (SQLException e) {
            throw new InvalidSettingException(StandaloneSettings.DATABASE_URL.key()
                    + " must be a JDBC URL of a driver on the classpath (HSQLDB is built in), was '" + url + "'");
        }
    }

    public ComponentConnection connection() {
        return connection;
    }

    public MucService muc() {
        return muc;
    }

    public ComponentStats stats() {
        return connection.stats();
    }

    /** Stops the engine (occupants are told), then closes the stream to the server; idempotent. */
    @Override
    public void close() {
        muc.stop();
        connection.close();
        LOG.info("mucscale standalone: stopped (stanzas in {}, out {}, not sent {})", stats().stanzasReceived(),
                stats().stanzasSent(), stats().outboundDroppedQueueFull() + stats().outboundDroppedDisconnected());
    }
}
