package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mucscale.testkit.ProsodyServer;

/**
 * The client profiles against a real server: Prosody 0.12 with its own MUC, mod_smacks (XEP-0198), mod_csi_simple
 * (XEP-0352) and mod_websocket (RFC 7395). Each profile's clients log in, join, receive every message exactly once,
 * and the report has that profile's own figures.
 */
class ProfilesAgainstProsodyTest {
    private static final int USERS = 12;

    @Test
    @Timeout(180)
    void streamManagementWithResumption_prosodySmacks_cutSessionsResumeAndNothingIsLostOrDoubled() {
        try (ProsodyServer xmpp = prosody().module("smacks").start()) {
            ObjectNode r = run(xmpp, "clients.streamManagement=resume", "clients.resumeCuts=4", "clients.resumeAfterS=1",
                    "clients.resumeReconnectMs=500");
            JsonNode s = r.get("summary");
            JsonNode sm = r.get("profiles").get("streamManagement");
            assertThat(sm.get("enabled").asLong()).isEqualTo(USERS);
            assertThat(sm.get("cuts").asLong()).isEqualTo(4);
            assertThat(sm.get("resumed").asLong()).as(r.get("errors").toString() + "\n" + xmpp.tail()).isEqualTo(4);
            assertExactlyOnce(s);
            JsonNode p = r.get("profiles").get("byProfile").get("tcp+sm");
            assertThat(p.get("clients").asInt()).isEqualTo(USERS);
            // what Prosody kept for them while they were away comes back delay-stamped (mod_smacks adds the stamp)
            assertThat(p.get("redelivered").get("deliveries").asLong()).isPositive();
            assertThat(p.get("delayStamped").asLong()).isPositive();
        }
    }

    @Test
    @Timeout(180)
    void csiToggling_prosodyCsiSimple_inactiveDeliveriesReportedApart() {
        try (ProsodyServer xmpp = prosody().module("csi_simple").start()) {
            ObjectNode r = run(xmpp, "clients.csiShare=0.5", "clients.csiInactiveS=1", "clients.csiActiveS=1");
            JsonNode s = r.get("summary");
            assertExactlyOnce(s);
            assertThat(r.get("errors").has("csi-not-offered")).as(r.get("errors").toString()).isFalse();
            assertThat(r.get("profiles").get("csi").get("toggles").asLong()).isGreaterThanOrEqualTo(USERS / 2);
            JsonNode byProfile = r.get("profiles").get("byProfile");
            assertThat(byProfile.get("tcp+csi").get("clients").asInt()).isEqualTo(USERS / 2);
            assertThat(byProfile.get("tcp").get("clients").asInt()).isEqualTo(USERS / 2);
            assertThat(byProfile.get("tcp+csi").get("inactive").get("deliveries").asLong()).isPositive();
            assertThat(byProfile.get("tcp").has("inactive")).isFalse();
            // the run's latency is over what nothing held back: everything but the inactive clients' share
            assertThat(s.get("latencyMs").get("count").asLong()).isEqualTo(s.get("deliveries").asLong()
                    - byProfile.get("tcp+csi").get("inactive").get("deliveries").asLong());
        }
    }

    @Test
    @Timeout(180)
    void websocket_prosodyModWebsocket_wsAndTcpClientsInOneRunReceiveEverything() {
        try (ProsodyServer xmpp = prosody().websocket(true).start()) {
            ObjectNode r = run(xmpp, "clients.websocketShare=0.5", "clients.websocketPort=" + xmpp.httpPort(),
                    "clients.websocketPath=/xmpp-websocket", "server.sasl=SCRAM-SHA-1");
            assertExactlyOnce(r.get("summary"));
            JsonNode ws = r.get("profiles").get("byProfile").get("ws");
            assertThat(ws.get("clients").asInt()).isEqualTo(USERS / 2);
            assertThat(ws.get("active").get("deliveries").asLong()).isPositive();
            assertThat(r.get("profiles").get("byProfile").get("tcp").get("clients").asInt()).isEqualTo(USERS / 2);
        }
    }

    @Test
    @Timeout(180)
    void modernMix_prosody_everyProfileReportedAndNothingIsLostOrDoubled() {
        try (ProsodyServer xmpp = prosody().module("smacks").module("csi_simple").websocket(true).start()) {
            ObjectNode r = run(xmpp, "clients.streamManagement=resume", "clients.streamManagementShare=0.8",
                    "clients.resumeCuts=3", "clients.resumeAfterS=1", "clients.resumeReconnectMs=300",
                    "clients.csiShare=0.2", "clients.csiInactiveS=1", "clients.csiActiveS=1",
                    "clients.websocketShare=0.25", "clients.websocketPort=" + xmpp.httpPort(),
                    "clients.websocketPath=/xmpp-websocket", "server.sasl=SCRAM-SHA-1", "users=20");
            assertExactlyOnce(r.get("summary"));
            JsonNode p = r.get("profiles");
            assertThat(p.get("streamManagement").get("enabled").asLong()).isEqualTo(16);
            assertThat(p.get("streamManagement").get("resumed").asLong()).as(r.get("errors").toString()).isEqualTo(3);
            int clients = 0;
            int ws = 0;
            for (var e : (Iterable<java.util.Map.Entry<String, JsonNode>>) p.get("byProfile")::fields) {
                clients += e.getValue().get("clients").asInt();
                if (e.getKey().startsWith("ws")) {
                    ws += e.getValue().get("clients").asInt();
                }
            }
            assertThat(clients).isEqualTo(20);
            assertThat(ws).isEqualTo(5);
            assertThat(r.get("levels").get(0).get("profiles").size()).isEqualTo(p.get("byProfile").size());
        }
    }

    private static void assertExactlyOnce(JsonNode s) {
        assertThat(s.get("joined").asLong()).isEqualTo(s.get("users").asLong());
        assertThat(s.get("messagesSent").asLong()).isPositive();
        assertThat(s.get("lost").asLong()).isZero();
        assertThat(s.get("duplicates").asLong()).isZero();
        assertThat(s.get("deliveries").asLong()).isEqualTo(s.get("expectedDeliveries").asLong());
    }

    private static ProsodyServer.Builder prosody() {
        return ProsodyServer.builder().allowRegistration(true).prosodyMuc(true)
                .globalConfig("network_settings = { nagle = false }");
    }

    private static ObjectNode run(ProsodyServer xmpp, String... more) {
        List<String> o = new ArrayList<>(List.of("server.host=" + xmpp.host(), "server.port=" + xmpp.c2sPort(),
                "server.domain=" + xmpp.domain(), "server.mucDomain=" + xmpp.prosodyMucDomain(), "server.tls=none",
                "server.sasl=PLAIN", "users=" + USERS, "rooms.count=2", "levels.ratesPerSec=40", "levels.warmupS=0",
                "levels.durationS=4", "soak.durationS=0", "rampDown.drainMs=5000", "run.deadlineS=120",
                "messages.schedule=fixed"));
        o.addAll(List.of(more));
        ObjectNode r = new LoadRun(ScenarioLoader.load("smoke", o), List.of(xmpp.pid()), "prosody", System.out).run();
        System.out.println(r.get("profiles") + "\n" + r.get("errors"));
        return r;
    }
}
