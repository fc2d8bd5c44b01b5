package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mucscale.testkit.FreePort;

/**
 * A server that swallows the first join of each room (Openfire 5.1.1 sometimes loses one when rooms are created at
 * once): the creator's join is re-sent after join.resendAfterMs, counted, and the run still ends with everyone in
 * and nothing lost. Uses the trivial {@link FakeMucServer} over real loopback sockets, because Prosody never drops.
 */
class OwnerJoinResendTest {

    @Test
    @Timeout(60)
    void creatorJoin_unanswered_isResentCountedAndTheRoomFills() throws Exception {
        FakeMucServer server = new FakeMucServer();
        server.dropFirstJoinPerRoom = true;
        int port = FreePort.next();
        server.start(port);
        try {
            Scenario s = ScenarioLoader.load("smoke", List.of("server.port=" + port, "server.tls=none", "server.sasl=PLAIN",
                    "users=8", "rooms.count=2", "join.resendAfterMs=300", "levels.ratesPerSec=20", "levels.warmupS=0",
                    "levels.durationS=2", "soak.durationS=0", "rampDown.drainMs=2000", "run.deadlineS=40"));
            JsonNode r = new LoadRun(s, null, "drop-first-join", null).run();
            JsonNode sum = r.get("summary");
            assertThat(sum.get("ownerJoinResends").asLong()).isEqualTo(2);
            assertThat(sum.get("joinResends").asLong()).isZero();
            assertThat(sum.get("joined").asLong()).isEqualTo(8);
            assertThat(sum.get("messagesSent").asLong()).isPositive();
            assertThat(sum.get("lost").asLong()).isZero();
            assertThat(sum.get("deliveries").asLong()).isEqualTo(sum.get("expectedDeliveries").asLong());
        } finally {
            server.stop();
        }
    }
}
