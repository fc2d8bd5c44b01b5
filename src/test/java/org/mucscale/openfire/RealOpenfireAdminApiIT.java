package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jivesoftware.smack.packet.Message;
import org.jivesoftware.smack.packet.Presence;
import org.jivesoftware.smack.tcp.XMPPTCPConnection;
import org.jivesoftware.smackx.muc.MultiUserChat;
import org.jivesoftware.smackx.muc.MultiUserChatManager;
import org.jxmpp.jid.impl.JidCreate;
import org.jxmpp.jid.parts.Resourcepart;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The room-administration HTTP API inside a real Openfire 5.1.1 (issue 37): served at {@code /plugins/mucscale/v1/}
 * by {@link AdminApiFilter} past the admin console's CSRF check, authenticated by Openfire admin credentials (HTTP
 * Basic) or the shared secret, with the allow-list, and what real XMPP clients in the room receive for each change:
 * create, add a member (presence with the new affiliation), message into the room (groupchat from the room), kick
 * (307), destroy ({@code <destroy/>} with the reason). Every refusal is checked with nothing changed.
 *
 * <p>An Openfire of its own (started by {@link RealOpenfireIT}'s helpers), so it does not lengthen or reorder that
 * test; skipped without {@code -Dopenfire.home} as it is.
 */
class RealOpenfireAdminApiIT {

    static final String SECRET = "backend-secret-0123456789";
    static final String SERVICE = "mucscale." + RealOpenfireIT.DOMAIN;
    /** A client without the admin console's cookies: what a game backend is. */
    static HttpClient backend;

    @BeforeAll
    static void start() throws Exception {
        RealOpenfireIT.startOpenfire();
        if (RealOpenfireIT.skipReason != null) {
            return;
        }
        RealOpenfireIT.login();
        RealOpenfireIT.uploadPlugin(Path.of(System.getProperty("mucscale.plugin.jar", "target/mucscale.jar")));
        RealOpenfireIT.waitUntil("MUC Scale to start", RealOpenfireIT.LOAD_TIMEOUT,
                () -> RealOpenfireIT.countInLog("MUC Scale started") >= 1);
        backend = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    static void stop() throws Exception {
        RealOpenfireIT.stopOpenfire();
    }

    @Test
    void adminApi_insideOpenfire_changesSeenByRealClients_andRefusalsChangeNothing() throws Exception {
        assumeTrue(RealOpenfireIT.skipReason == null, RealOpenfireIT.skipReason);
        String admin = basic("admin", RealOpenfireIT.ADMIN_PASSWORD);

        // Openfire honours our wildcard login exclusion only with this property (as for the REST API plugin)
        saveProperty("adminConsole.access.allow-wildcards-in-excludes", "true", false);
        RealOpenfireIT.waitUntil("the API path out of the admin login", Duration.ofSeconds(20),
                () -> call("GET", "/chatrooms", null, admin).statusCode() == 403);
        HttpResponse<String> off = call("GET", "/chatrooms", null, admin);
        assertThat(off.body()).as("off until enabled, and says so").contains("mucscale.admin.api-enabled=false");

        saveProperty("mucscale.admin.api-secret", SECRET, true);
        saveProperty("mucscale.admin.api-enabled", "true", false);
        RealOpenfireIT.waitUntil("the API enabled", Duration.ofSeconds(20),
                () -> call("GET", "/chatrooms", null, admin).statusCode() == 200);

        // authentication: Openfire admin by Basic, the shared secret, and every refusal with its reason
        assertThat(call("GET", "/chatrooms", null, SECRET).statusCode()).isEqualTo(200);
        HttpResponse<String> none = call("GET", "/chatrooms", null, null);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v)
                .startsWith("Basic"));
        HttpResponse<String> wrong = call("GET", "/chatrooms", null, basic("admin", "not-the-password"));
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(wrong.body()).doesNotContain("not-the-password");
        HttpResponse<String> notAdmin = call("GET", "/chatrooms", null, basic("alice", RealOpenfireIT.USER_PASSWORD));
        assertThat(notAdmin.statusCode()).isEqualTo(403);
        assertThat(notAdmin.body()).contains("not an Openfire administrator");
        assertThat(call("GET", "/chatrooms?servicename=conference", null, admin).statusCode()).isEqualTo(404);
        assertThat(call("GET", "/chatrooms/nosuchroom", null, admin).statusCode()).isEqualTo(404);

        // create through HTTP (a POST without any CSRF token: a backend has none)
        String create = "{\"roomName\":\"arena\",\"naturalName\":\"Arena\",\"description\":\"match 1\","
                + "\"owners\":[\"admin@" + RealOpenfireIT.DOMAIN + "\"]}";
        HttpResponse<String> created = call("POST", "/chatrooms", create, admin);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        assertThat(created.body()).contains("\"roomName\":\"arena\"").contains("\"naturalName\":\"Arena\"");
        assertThat(call("POST", "/chatrooms", create, admin).statusCode()).as("create-only: exists").isEqualTo(409);
        HttpResponse<String> malformed = call("POST", "/chatrooms", "{\"roomName\":", SECRET);
        assertThat(malformed.statusCode()).isEqualTo(400);
        HttpResponse<String> big = call("POST", "/chatrooms", "{\"roomName\":\"big\",\"description\":\""
                + "x".repeat(1_100_000) + "\"}", SECRET);
        assertThat(big.statusCode()).isEqualTo(413);
        assertThat(call("GET", "/chatrooms/big", null, SECRET).statusCode()).as("nothing created").isEqualTo(404);

        // real clients in the room
        String room = "arena@" + SERVICE;
        XMPPTCPConnection alice = RealOpenfireIT.connect("alice");
        XMPPTCPConnection bob = RealOpenfireIT.connect("bob");
        BlockingQueue<String> aliceSees = stanzas(alice);
        BlockingQueue<String> bobSees = stanzas(bob);
        join(alice, room, "alice");
        join(bob, room, "bob");
        RealOpenfireIT.waitUntil("two occupants", Duration.ofSeconds(20),
                () -> call("GET", "/chatrooms/arena/occupants", null, SECRET).body().split("\"nick\"").length == 3);
        aliceSees.clear();
        bobSees.clear();

        HttpResponse<String> member = call("POST", "/chatrooms/arena/members/bob@" + RealOpenfireIT.DOMAIN, null,
                SECRET);
        assertThat(member.statusCode()).as(member.body()).isEqualTo(201);
        assertThat(next(aliceSees, "presence", "affiliation=\"member\"")).as("alice sees bob become a member")
                .contains("arena@" + SERVICE + "/bob");
        assertThat(call("GET", "/chatrooms/arena/members", null, SECRET).body())
                .contains("bob@" + RealOpenfireIT.DOMAIN);

        HttpResponse<String> said = call("POST", "/chatrooms/arena/messages", "{\"body\":\"round two starts\"}",
                admin);
        assertThat(said.statusCode()).as(said.body()).isEqualTo(201);
        assertThat(next(bobSees, "message", "round two starts")).as("groupchat from the room's own address")
                .contains("type=\"groupchat\"").contains("from=\"" + room + "\"");

        HttpResponse<String> kicked = call("DELETE", "/chatrooms/arena/occupants/bob?reason=cheating", null, admin);
        assertThat(kicked.statusCode()).as(kicked.body()).isEqualTo(200);
        assertThat(next(bobSees, "presence", "code=\"307\"")).as("bob's own presence: kicked, with the reason")
                .contains("type=\"unavailable\"").contains("cheating").contains("code=\"110\"");
        assertThat(next(aliceSees, "presence", "code=\"307\"")).contains("arena@" + SERVICE + "/bob");

        HttpResponse<String> destroyed = call("DELETE", "/chatrooms/arena?reason=match%20over", null, SECRET);
        assertThat(destroyed.statusCode()).as(destroyed.body()).isEqualTo(200);
        assertThat(next(aliceSees, "presence", "<destroy")).contains("match over").contains("type=\"unavailable\"");
        assertThat(call("GET", "/chatrooms/arena", null, SECRET).statusCode()).isEqualTo(404);

        // the allow-list: another address only, then everyone again
        saveProperty("mucscale.admin.api-allowed-addresses", "10.11.12.13", false);
        RealOpenfireIT.waitUntil("the allow-list applied", Duration.ofSeconds(20),
                () -> call("GET", "/chatrooms", null, admin).statusCode() == 403);
        assertThat(call("GET", "/chatrooms", null, admin).body()).contains("mucscale.admin.api-allowed-addresses");
        saveProperty("mucscale.admin.api-allowed-addresses", "", false);
        RealOpenfireIT.waitUntil("the allow-list emptied", Duration.ofSeconds(20),
                () -> call("GET", "/chatrooms", null, admin).statusCode() == 200);

        // the admin pages keep Openfire's CSRF check: a POST without the token creates nothing
        HttpResponse<String> page = RealOpenfireIT.post("/plugins/mucscale/mucscale-rooms.jsp",
                Map.of("action", "create", "roomName", "nocsrf", "owners", "admin@" + RealOpenfireIT.DOMAIN));
        assertThat(page.statusCode()).as("redirected by PluginServlet's CSRF check").isEqualTo(302);
        assertThat(call("GET", "/chatrooms/nocsrf", null, SECRET).statusCode()).isEqualTo(404);

        // every change in the audit trail, with who made it, kept in Openfire's database (schema 4 installed by
        // Openfire's SchemaManager from the plugin's scripts) and shown on the Rooms page
        String audit = call("GET", "/audit?limit=50", null, SECRET).body();
        assertThat(audit).contains("admin:admin").contains("shared-secret")
                .contains("/plugins/mucscale/v1/chatrooms/arena/occupants/bob").doesNotContain(SECRET);
        String roomsPage = RealOpenfireIT.get("/plugins/mucscale/mucscale-rooms.jsp").body();
        assertThat(roomsPage).contains("kept in the database, table mucscaleAdminAudit")
                .contains("DELETE /plugins/mucscale/v1/chatrooms/arena/occupants/bob");
        assertThat(RealOpenfireIT.ourWarningsAndErrors()).isEmpty();
        for (String line : RealOpenfireIT.logLines()) {
            assertThat(line).doesNotContain(SECRET);
        }
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    static HttpResponse<String> call(String method, String pathAndQuery, String json, String authorization)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + RealOpenfireIT.adminPort
                + "/plugins/mucscale/v1" + pathAndQuery)).timeout(Duration.ofSeconds(30))
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json));
        if (json != null) {
            b.header("Content-Type", "application/json");
        }
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return backend.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Saves an Openfire system property through the admin console's own page, as an operator does. */
    static void saveProperty(String key, String value, boolean encrypt) throws Exception {
        RealOpenfireIT.get("/server-properties.jsp");
        HttpResponse<String> saved = RealOpenfireIT.post("/server-properties.jsp", Map.of("csrf",
                RealOpenfireIT.cookie("csrf"), "action", "save", "key", key, "value", value, "encrypt",
                Boolean.toString(encrypt), "searchName", ""));
        assertThat(saved.statusCode()).as("saving " + key).isIn(200, 302);
    }

    /** Every presence and message {@code c} receives, as XML with its attributes in double quotes. */
    static BlockingQueue<String> stanzas(XMPPTCPConnection c) {
        BlockingQueue<String> q = new LinkedBlockingQueue<>();
        c.addSyncStanzaListener(s -> q.offer(s.toXML().toString().replace('\'', '"')),
                s -> s instanceof Presence || s instanceof Message);
        return q;
    }

    /** The next {@code kind} stanza containing {@code text}, waiting at most 20 s in all. */
    static String next(BlockingQueue<String> q, String kind, String text) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            String s = q.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (s != null && s.startsWith("<" + kind) && s.contains(text)) {
                return s;
            }
        }
        throw new AssertionError("no " + kind + " with " + text + " within 20 s");
    }

    static void join(XMPPTCPConnection c, String room, String nick) throws Exception {
        MultiUserChat m = MultiUserChatManager.getInstanceFor(c).getMultiUserChat(JidCreate.entityBareFrom(room));
        m.join(Resourcepart.from(nick));
    }
}
