package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mucscale.testkit.FreePort;

/**
 * XEP-0198 in the generator against {@link FakeMucServer}'s stream management, where the server's edge cases can be
 * switched on: every client enables it and acks, cut connections resume and get what was sent while they were away
 * (with a delay stamp), and a server that resends too much or too little shows as duplicates or as loss, never as
 * extra deliveries.
 */
class StreamManagementTest {
    private static final int USERS = 12;
    private static final int CUTS = 4;

    @Test
    @Timeout(90)
    void resume_cutConnectionsResume_everyMessageArrivesExactlyOnce() throws Exception {
        FakeMucServer server = new FakeMucServer();
        server.streamManagement = true;
        ObjectNode r = run(server);
        JsonNode s = r.get("summary");
        JsonNode sm = r.get("profiles").get("streamManagement");
        assertThat(sm.get("enabled").asLong()).isEqualTo(USERS);
        assertThat(sm.get("cuts").asLong()).isEqualTo(CUTS);
        assertThat(sm.get("resumed").asLong()).isEqualTo(CUTS);
        assertThat(server.resumptions.get()).isEqualTo(CUTS);
        assertThat(sm.get("resumeFailed").asLong()).isZero();
        assertThat(s.get("lost").asLong()).isZero();
        assertThat(s.get("duplicates").asLong()).isZero();
        assertThat(s.get("deliveries").asLong()).isEqualTo(s.get("expectedDeliveries").asLong());
        assertThat(r.get("errors").size()).as(r.get("errors").toString()).isZero();
        JsonNode p = r.get("profiles").get("byProfile").get("tcp+sm");
        assertThat(p.get("clients").asInt()).isEqualTo(USERS);
        // sent while the four were away (500 ms at 60 msg/s into their rooms): kept by the server, resent with a delay
        assertThat(p.get("redelivered").get("deliveries").asLong()).isPositive();
        // the server's resend carries a delay stamp; what was in flight when they came back counts too, unstamped
        assertThat(p.get("delayStamped").asLong()).isPositive()
                .isLessThanOrEqualTo(p.get("redelivered").get("deliveries").asLong());
        // those are apart from the run's latency, which counts the others only
        assertThat(s.get("latencyMs").get("count").asLong())
                .isEqualTo(s.get("deliveries").asLong() - p.get("redelivered").get("deliveries").asLong());
    }

    @Test
    @Timeout(90)
    void resume_serverResendsWhatTheClientAlreadyHad_reportedAsDuplicatesNotDeliveries() throws Exception {
        FakeMucServer server = new FakeMucServer();
        server.streamManagement = true;
        server.smRequestEvery = 0; // never asks for acks, so everything the client handled is still kept
        server.resumeResendsHandled = 3;
        ObjectNode r = run(server);
        JsonNode s = r.get("summary");
        assertThat(r.get("profiles").get("streamManagement").get("resumed").asLong()).isEqualTo(CUTS);
        // each resumption resends the client's last three handled stanzas: messages from others are duplicates,
        // its own echoed messages are echoes
        assertThat(s.get("duplicates").asLong()).isPositive().isLessThanOrEqualTo(3L * CUTS);
        assertThat(s.get("lost").asLong()).isZero();
        assertThat(s.get("deliveries").asLong()).isEqualTo(s.get("expectedDeliveries").asLong());
    }

    @Test
    @Timeout(90)
    void resume_serverDropsWhatItKept_reportedAsLost() throws Exception {
        FakeMucServer server = new FakeMucServer();
        server.streamManagement = true;
        server.resumeDropsQueue = true;
        ObjectNode r = run(server);
        JsonNode s = r.get("summary");
        assertThat(r.get("profiles").get("streamManagement").get("resumed").asLong()).isEqualTo(CUTS);
        assertThat(server.droppedOnResume.get()).isPositive();
        // what was dropped never arrives: lost (its own echoes among them are not expected, so at most that many)
        assertThat(s.get("lost").asLong()).isPositive().isLessThanOrEqualTo(server.droppedOnResume.get());
        assertThat(s.get("deliveries").asLong() + s.get("lost").asLong()).isEqualTo(s.get("expectedDeliveries").asLong());
        assertThat(s.get("duplicates").asLong()).isZero();
    }

    @Test
    @Timeout(60)
    void on_serverWithoutStreamManagement_clientsCarryOnAndSayItWasNotOffered() throws Exception {
        FakeMucServer server = new FakeMucServer();
        int port = FreePort.next();
        server.start(port);
        try {
            ObjectNode r = new LoadRun(scenario(port, "clients.streamManagement=on"), null, "no-sm", null).run();
            assertThat(r.get("errors").get("sm-not-offered").asLong()).isEqualTo(USERS);
            assertThat(r.get("summary").get("lost").asLong()).isZero();
            assertThat(r.get("profiles").get("streamManagement").get("enabled").asLong()).isZero();
        } finally {
            server.stop();
        }
    }

    private static ObjectNode run(FakeMucServer server) throws Exception {
        int port = FreePort.next();
        server.start(port);
        try {
            return new LoadRun(scenario(port, "clients.streamManagement=resume", "clients.resumeCuts=" + CUTS,
                    "clients.resumeAfterS=1", "clients.resumeReconnectMs=500"), null, "sm", System.out).run();
        } finally {
            server.stop();
        }
    }

    static Scenario scenario(int port, String... more) {
        List<String> o = new ArrayList<>(List.of("server.port=" + port, "server.tls=none", "server.sasl=PLAIN",
                "users=" + USERS, "rooms.count=2", "levels.ratesPerSec=60", "levels.warmupS=0", "levels.durationS=4",
                "soak.durationS=0", "rampDown.drainMs=3000", "run.deadlineS=60", "messages.schedule=fixed"));
        o.addAll(List.of(more));
        return ScenarioLoader.load("smoke", o);
    }
}
