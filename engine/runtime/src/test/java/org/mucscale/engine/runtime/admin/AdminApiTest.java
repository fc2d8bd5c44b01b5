package org.mucscale.engine.runtime.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.muc.MucConfig;
import org.mucscale.engine.muc.MucService;
import org.mucscale.engine.muc.admin.RoomAdmin;
import org.mucscale.engine.port.Clock;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.runtime.MucScaleSettings;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/**
 * The HTTP API's routing, entities and access rules against a real MUC service (no HTTP server: the request records
 * are what both hosts build): the endpoints the end-to-end test does not reach (bulk, upsert, PUT, roles, lists,
 * users' rooms, unused rooms, servicename), the access order, and the audit trail.
 */
class AdminApiTest {
    static final String SECRET = "0123456789abcdef-secret";
    final List<String> sent = new CopyOnWriteArrayList<>();
    MucService muc;
    AdminApi api;
    Settings settings;

    @BeforeEach
    void start() {
        settings = Settings.fromText(MucScaleSettings.catalog(), Map.of("mucscale.admin.api-enabled", "true",
                "mucscale.admin.api-secret", SECRET, "mucscale.muc.shard-threads", "2"));
        Delivery out = new Delivery() {
            @Override
            public void deliver(RenderedStanza stanza, Jid recipient) {
                sent.add(stanza.forRecipient(recipient));
            }

            @Override
            public void send(XmlElement stanza) {
                sent.add(stanza.toXml());
            }
        };
        muc = new MucService("muc.example.org", MucConfig.from(settings), out, Clock.SYSTEM);
        muc.start();
        api = new AdminApi(new RoomAdmin(muc), settings);
    }

    @AfterEach
    void stop() {
        muc.stop();
    }

    AdminApi.Response call(String method, String pathAndQuery, String body) throws Exception {
        return call(method, pathAndQuery, body, SECRET, "127.0.0.1");
    }

    AdminApi.Response call(String method, String pathAndQuery, String body, String auth, String from)
            throws Exception {
        int q = pathAndQuery.indexOf('?');
        String path = AdminApi.PREFIX + (q < 0 ? pathAndQuery : pathAndQuery.substring(0, q));
        return api.handle(new AdminApi.Request(method, path, q < 0 ? null : pathAndQuery.substring(q + 1), auth,
                body == null ? null : "application/json", InetAddress.getByName(from),
                body == null ? null : body.getBytes(StandardCharsets.UTF_8), false, null));
    }

    void join(String user, String room, String nick) {
        muc.process(XmlElement.builder("presence").attribute("from", user + "/r")
                .attribute("to", room + "@muc.example.org/" + nick)
                .child(XmlElement.builder("x", "http://jabber.org/protocol/muc").build()).build());
    }

    @Test
    void bulkAndUpsert_resultPerRoom_putResetsToTemplate() throws Exception {
        AdminApi.Response r = call("POST", "/chatrooms/bulk", "{\"chatRooms\":[{\"roomName\":\"r1\",\"owners\":"
                + "[\"boss@example.org\"]},{\"roomName\":\"r1\",\"owners\":[\"boss@example.org\"]},{\"roomName\":"
                + "\"bad name\"},{\"roomName\":\"r2\",\"owners\":[\"boss@example.org\"],\"moderated\":true}]}");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).contains("{\"roomName\":\"r1\",\"status\":201}", "{\"roomName\":\"r1\",\"status\":409",
                "{\"roomName\":\"bad name\",\"status\":400", "{\"roomName\":\"r2\",\"status\":201}");
        r = call("POST", "/chatrooms?upsert=true", "{\"roomName\":\"r2\",\"description\":\"upserted\"}");
        assertThat(r.status()).as(r.body()).isEqualTo(201);
        assertThat(r.body()).contains("\"description\":\"upserted\"", "\"moderated\":false");
        r = call("PUT", "/chatrooms/r1", "{\"roomName\":\"r1\",\"naturalName\":\"One\",\"maxUsers\":0}");
        assertThat(r.body()).contains("\"naturalName\":\"One\"", "\"maxUsers\":1000000", "\"owners\":[\"boss@example.org\"]");
        assertThat(call("PUT", "/chatrooms/r1", "{\"roomName\":\"r9\"}").status()).isEqualTo(400);
        assertThat(call("POST", "/chatrooms", "[1,2]").status()).isEqualTo(400);
        assertThat(call("POST", "/chatrooms", null).body()).contains("a JSON object body is required");
    }

    @Test
    void rolesListsUsersAndUnusedRooms() throws Exception {
        call("POST", "/chatrooms", "{\"roomName\":\"hall\",\"owners\":[\"boss@example.org\"]}");
        call("POST", "/chatrooms", "{\"roomName\":\"empty\",\"owners\":[\"boss@example.org\"]}");
        join("ann@example.org", "hall", "ann");
        assertThat(call("GET", "/chatrooms/hall/participants", null).body())
                .contains("\"jid\":\"hall@muc.example.org/ann\"", "\"role\":\"participant\"");
        AdminApi.Response r = call("PUT", "/chatrooms/hall/occupants/ann/role/moderator", null);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        assertThat(call("GET", "/chatrooms/hall/occupants", null).body()).contains("\"role\":\"moderator\"",
                "\"userAddress\":\"ann@example.org/r\"");
        assertThat(call("PUT", "/chatrooms/hall/occupants/ann/role/king", null).status()).isEqualTo(400);
        assertThat(call("POST", "/chatrooms/hall/admins/cat@example.org", null).status()).isEqualTo(201);
        assertThat(call("GET", "/chatrooms/hall/admins", null).body()).isEqualTo("{\"admins\":[\"cat@example.org\"]}");
        assertThat(call("DELETE", "/chatrooms/hall/members/cat@example.org", null).status()).isEqualTo(404);
        assertThat(call("DELETE", "/chatrooms/hall/admins/cat@example.org", null).status()).isEqualTo(200);
        assertThat(call("GET", "/users/ann@example.org/chatrooms", null).body())
                .isEqualTo("{\"chatRooms\":[{\"roomName\":\"hall\",\"affiliation\":\"none\",\"nicks\":[\"ann\"]}]}");
        assertThat(call("GET", "/users/boss@example.org/chatrooms", null).body()).contains("empty", "hall", "owner");
        assertThat(call("GET", "/chatrooms?unusedDays=0", null).body()).isEqualTo("{\"chatRooms\":[\"empty\"]}");
        assertThat(call("DELETE", "/chatrooms?unusedDays=0", null).body()).isEqualTo("{\"destroyed\":[\"empty\"]}");
        assertThat(call("GET", "/chatrooms/empty", null).status()).isEqualTo(404);
        assertThat(call("GET", "/chatrooms?servicename=muc.example.org", null).status()).isEqualTo(200);
        assertThat(call("GET", "/chatrooms?servicename=conference", null).status()).isEqualTo(404);
        assertThat(call("GET", "/chatrooms?limit=5000", null).status()).isEqualTo(400);
        assertThat(call("PATCH", "/chatrooms", null).status()).isEqualTo(405);
    }

    @Test
    void rateLimit_perAddress_429WithRetryAfter_beforeAuthentication() throws Exception {
        api.updateSettings(settings.withText("mucscale.admin.api-requests-per-second", "2"));
        for (int i = 0; i < 4; i++) { // a burst of two seconds' worth
            assertThat(call("GET", "/chatrooms", null, "wrong", "127.0.0.2").status()).isEqualTo(401);
        }
        AdminApi.Response r = null;
        long start = System.nanoTime();
        for (int i = 0; i < 40 && (r == null || r.status() != 429); i++) { // refills 2/s: 40 calls outrun it
            r = call("GET", "/chatrooms", null, SECRET, "127.0.0.2");
        }
        assertThat(System.nanoTime() - start).as("the calls took under 5 s").isLessThan(5_000_000_000L);
        assertThat(r.status()).isEqualTo(429);
        assertThat(r.headers()).containsEntry("Retry-After", "1");
        assertThat(call("GET", "/chatrooms", null, SECRET, "127.0.0.3").status()).isEqualTo(200);
    }

    @Test
    @SuppressWarnings("unchecked")
    void openApi_describesEveryRoutedPath() throws Exception {
        AdminApi.Response r = call("GET", "/openapi.json", null);
        assertThat(r.status()).isEqualTo(200);
        Map<String, Object> paths = (Map<String, Object>) ((Map<String, Object>) JsonText.parse(r.body())).get("paths");
        assertThat(paths).containsKeys("/chatrooms", "/chatrooms/bulk", "/chatrooms/{room}",
                "/chatrooms/{room}/participants", "/chatrooms/{room}/occupants", "/chatrooms/{room}/occupants/{nick}",
                "/chatrooms/{room}/occupants/{nick}/role/{role}", "/chatrooms/{room}/chathistory",
                "/chatrooms/{room}/messages", "/chatrooms/{room}/owners/{jid}", "/chatrooms/{room}/outcasts",
                "/users/{jid}/chatrooms", "/audit");
        assertThat((Map<String, Object>) paths.get("/chatrooms/{room}")).containsKeys("get", "put", "patch", "delete");
    }

    @Test
    void access_inOrder_disabledAddressCredentials_andAuditOfChangesOnly() throws Exception {
        api.updateSettings(settings.withText("mucscale.admin.api-allowed-addresses", "10.0.0.1"));
        assertThat(call("GET", "/chatrooms", null).status()).isEqualTo(403);
        assertThat(call("GET", "/chatrooms", null, SECRET, "10.0.0.1").status()).isEqualTo(200);
        api.updateSettings(settings);
        assertThat(call("GET", "/chatrooms", null, "Bearer " + SECRET, "127.0.0.1").status()).isEqualTo(200);
        String basic = java.util.Base64.getEncoder().encodeToString(("api:" + SECRET).getBytes(StandardCharsets.UTF_8));
        assertThat(call("GET", "/chatrooms", null, "Basic " + basic, "127.0.0.1").status()).isEqualTo(200);
        assertThat(call("GET", "/chatrooms", null, SECRET + "x", "127.0.0.1").status()).isEqualTo(401);
        // the host's administrators: "admin"/"pw" is one, "user"/"pw" authenticates but is not one
        java.util.concurrent.atomic.AtomicInteger checks = new java.util.concurrent.atomic.AtomicInteger();
        AdminApi.HostLogin accounts = (user, password, remote) -> {
            checks.incrementAndGet();
            if (!password.equals("pw")) {
                return AdminApi.LoginOutcome.FAILED;
            }
            return user.equals("admin") ? AdminApi.LoginOutcome.ADMIN : AdminApi.LoginOutcome.NOT_ADMIN;
        };
        AdminApi.Response host = api.handle(new AdminApi.Request("GET", AdminApi.PREFIX + "/chatrooms", null,
                basic("user", "pw"), null, InetAddress.getByName("127.0.0.1"), null, false, accounts));
        assertThat(host.status()).isEqualTo(403);
        assertThat(host.body()).contains("not an Openfire administrator");
        AdminApi.Response wrong = api.handle(new AdminApi.Request("GET", AdminApi.PREFIX + "/chatrooms", null,
                basic("admin", "nope"), null, InetAddress.getByName("127.0.0.1"), null, false, accounts));
        assertThat(wrong.status()).isEqualTo(401);
        assertThat(wrong.body()).doesNotContain("nope");
        AdminApi.Response admin = api.handle(new AdminApi.Request("POST", AdminApi.PREFIX + "/chatrooms", null,
                basic("admin", "pw"), "application/json", InetAddress.getByName("127.0.0.1"),
                "{\"roomName\":\"x\",\"owners\":[\"a@example.org\"]}".getBytes(StandardCharsets.UTF_8), false,
                accounts));
        assertThat(admin.status()).isEqualTo(201);
        assertThat(checks.get()).isEqualTo(3);
        // the shared secret as a Basic password is accepted without asking the host
        AdminApi.Response secretAsPassword = api.handle(new AdminApi.Request("GET", AdminApi.PREFIX + "/chatrooms",
                null, basic("api", SECRET), null, InetAddress.getByName("127.0.0.1"), null, false, accounts));
        assertThat(secretAsPassword.status()).isEqualTo(200);
        assertThat(checks.get()).isEqualTo(3);
        AdminApi.Response big = api.handle(new AdminApi.Request("POST", AdminApi.PREFIX + "/chatrooms", null, SECRET,
                "application/json", InetAddress.getByName("127.0.0.1"), null, true, null));
        assertThat(big.status()).isEqualTo(413);
        List<AuditTrail.Entry> audit = api.audit().newest(10);
        assertThat(audit).extracting(AuditTrail.Entry::status).containsExactly(413, 201);
        assertThat(audit.get(1).who()).isEqualTo("admin:admin");
        api.updateSettings(settings.withText("mucscale.admin.api-enabled", "false"));
        assertThat(call("GET", "/chatrooms", null).body()).contains("mucscale.admin.api-enabled=false");
        // a disabled API never reaches the host's password check
        assertThat(api.handle(new AdminApi.Request("GET", AdminApi.PREFIX + "/chatrooms", null, basic("admin", "pw"),
                null, InetAddress.getByName("127.0.0.1"), null, false, accounts)).status()).isEqualTo(403);
        assertThat(checks.get()).isEqualTo(3);
    }

    private static String basic(String user, String password) {
        return "Basic " + java.util.Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8));
    }
}
