package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mucscale.testkit.FreePort;

/** XEP-0352 toggling against {@link FakeMucServer}, which counts the toggles it receives. */
class CsiAgainstFakeServerTest {

    @Test
    @Timeout(60)
    void csiShare_serverAdvertisesCsi_thatShareTogglesAndOnlyItsDeliveriesCountAsInactive() throws Exception {
        FakeMucServer server = new FakeMucServer();
        server.csi = true;
        int port = FreePort.next();
        server.start(port);
        try {
            ObjectNode r = new LoadRun(StreamManagementTest.scenario(port, "clients.csiShare=0.25",
                    "clients.csiInactiveS=1", "clients.csiActiveS=1"), null, "csi", null).run();
            JsonNode byProfile = r.get("profiles").get("byProfile");
            assertThat(byProfile.get("tcp+csi").get("clients").asInt()).isEqualTo(3);
            assertThat(byProfile.get("tcp").get("clients").asInt()).isEqualTo(9);
            long toggles = r.get("profiles").get("csi").get("toggles").asLong();
            // 3 clients, 4 s of messages plus joins and drain, a toggle every second after a random first offset
            assertThat(toggles).isGreaterThanOrEqualTo(6);
            assertThat(server.csiInactive.get() + server.csiActive.get()).isEqualTo(toggles);
            assertThat(server.csiInactive.get() - server.csiActive.get()).isBetween(0L, 3L);
            assertThat(byProfile.get("tcp+csi").get("inactive").get("deliveries").asLong()).isPositive();
            assertThat(byProfile.get("tcp").has("inactive")).isFalse();
            assertThat(r.get("summary").get("lost").asLong()).isZero();
        } finally {
            server.stop();
        }
    }

    @Test
    @Timeout(60)
    void csiShare_serverWithoutCsi_nobodyTogglesAndItIsSaid() throws Exception {
        FakeMucServer server = new FakeMucServer();
        int port = FreePort.next();
        server.start(port);
        try {
            ObjectNode r = new LoadRun(StreamManagementTest.scenario(port, "clients.csiShare=0.25"), null, "no-csi", null).run();
            assertThat(r.get("errors").get("csi-not-offered").asLong()).isEqualTo(3);
            assertThat(r.get("profiles").get("csi").get("toggles").asLong()).isZero();
            assertThat(server.csiInactive.get()).isZero();
        } finally {
            server.stop();
        }
    }
}
