package org.mucscale.standalone;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.jivesoftware.smack.ConnectionConfiguration.SecurityMode;
import org.jivesoftware.smack.SmackConfiguration;
import org.jivesoftware.smack.tcp.XMPPTCPConnection;
import org.jivesoftware.smack.tcp.XMPPTCPConnectionConfiguration;
import org.mucscale.engine.config.Settings;
import org.mucscale.testkit.ProsodyServer;

/**
 * One Prosody (own MUC off) with the mucscale standalone component connected as {@code muc.<domain>}, plus Smack
 * and raw clients; everything stopped by {@link #close()}. One per test class.
 */
final class E2eFixture implements AutoCloseable {
    static final String DOMAIN = "example.test";
    static final String MUC = "muc." + DOMAIN;
    static final String SECRET = "e2e-secret";
    static final String PASSWORD = "pw";

    private static final java.util.concurrent.atomic.AtomicInteger FIXTURES = new java.util.concurrent.atomic.AtomicInteger();
    final ProsodyServer prosody;
    final StandaloneServer server;
    private final int users;
    private final List<AutoCloseable> clients = new ArrayList<>();

    E2eFixture(int users, Map<String, String> extraSettings) throws Exception {
        this(users, extraSettings, b -> { });
    }

    E2eFixture(int users, Map<String, String> extraSettings, Consumer<ProsodyServer.Builder> prosodyOptions)
            throws Exception {
        this.users = users;
        ProsodyServer.Builder b = ProsodyServer.builder().domain(DOMAIN).externalComponent("muc", SECRET);
        prosodyOptions.accept(b);
        prosody = b.start();
        try {
            Map<String, String> accounts = new HashMap<>();
            for (int i = 0; i < users; i++) {
                accounts.put(user(i), PASSWORD);
            }
            prosody.createUsers(accounts);
            Map<String, String> text = new HashMap<>();
            text.put(StandaloneSettings.SERVER_PORT.key(), Integer.toString(prosody.componentPort()));
            text.put(StandaloneSettings.COMPONENT_DOMAIN.key(), MUC);
            text.put(StandaloneSettings.COMPONENT_SECRET.key(), SECRET);
            text.put("mucscale.store.jdbc-url", "jdbc:hsqldb:mem:e2e" + FIXTURES.incrementAndGet());
            text.put("mucscale.metrics.http-port", "0");
            text.putAll(extraSettings);
            server = StandaloneServer.start(Settings.fromText(StandaloneServer.catalog(), text));
        } catch (Exception | Error e) {
            prosody.close();
            throw e;
        }
        SmackConfiguration.setDefaultReplyTimeout(10_000);
    }

    static String user(int i) {
        return "user" + i;
    }

    /** The bare address of room {@code name} on the component. */
    static String room(String name) {
        return name + "@" + MUC;
    }

    /** A logged-in Smack connection for every user of this fixture, user {@code i} at index {@code i}. */
    XMPPTCPConnection[] smackAll() throws Exception {
        XMPPTCPConnection[] all = new XMPPTCPConnection[users];
        for (int i = 0; i < users; i++) {
            all[i] = smack(i);
        }
        return all;
    }

    /** A logged-in Smack connection for user {@code i}. */
    XMPPTCPConnection smack(int i) throws Exception {
        XMPPTCPConnectionConfiguration config = XMPPTCPConnectionConfiguration.builder()
                .setXmppDomain(DOMAIN).setHost("127.0.0.1").setPort(prosody.c2sPort())
                .setSecurityMode(SecurityMode.disabled)
                .setUsernameAndPassword(user(i), PASSWORD).setResource("r" + i)
                .build();
        XMPPTCPConnection c = new XMPPTCPConnection(config);
        c.connect().login();
        synchronized (clients) {
            clients.add(c::disconnect);
        }
        return c;
    }

    /** A logged-in raw client for user {@code i}. */
    RawXmppClient raw(int i) throws Exception {
        RawXmppClient c = RawXmppClient.login(prosody.c2sPort(), DOMAIN, user(i), PASSWORD, "raw" + i);
        synchronized (clients) {
            clients.add(c);
        }
        return c;
    }

    @Override
    public void close() {
        synchronized (clients) {
            for (AutoCloseable c : clients) {
                try {
                    c.close();
                } catch (Exception ignored) {
                    // a client already gone
                }
            }
            clients.clear();
        }
        try {
            server.close();
        } finally {
            prosody.close();
        }
    }
}
