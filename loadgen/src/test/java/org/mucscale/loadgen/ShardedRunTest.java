package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.mucscale.testkit.FreePort;

/**
 * Two generator processes (here two runs in one JVM, as two processes would run them) share one plan with
 * {@code accounts.shard=0/2} and {@code 1/2}: each plays every other member of every room, so every room has members
 * in both, and each must count and time the deliveries from the other's senders. Against {@link FakeMucServer} over
 * real loopback sockets, which loses nothing: the two runs' deliveries must add up to exactly what their messages
 * should bring to every planned member, and each run must have received some from the other.
 */
class ShardedRunTest {

    static List<String> options(int port, Path barrier, String shard) {
        return List.of("server.port=" + port, "server.tls=none", "server.sasl=PLAIN", "users=14", "rooms.count=3",
                "rooms.largest=7", "accounts.shard=" + shard, "run.barrierDir=" + barrier, "levels.ratesPerSec=30",
                "levels.warmupS=0", "levels.durationS=2", "soak.durationS=0", "rampDown.drainMs=3000", "run.deadlineS=50");
    }

    /** Runs shards 0/2 and 1/2 of one plan side by side against one {@link FakeMucServer}; summaries in shard order. */
    static List<JsonNode> runTwoShards(Path barrier, String... extra) throws Exception {
        FakeMucServer server = new FakeMucServer();
        int port = FreePort.next();
        server.start(port);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<JsonNode>> runs = new ArrayList<>();
            for (String shard : List.of("0/2", "1/2")) {
                List<String> opts = new ArrayList<>(options(port, barrier, shard));
                opts.addAll(List.of(extra));
                Scenario s = ScenarioLoader.load("smoke", opts);
                runs.add(pool.submit(() -> new LoadRun(s, null, "shard-" + shard.charAt(0), null).run()));
            }
            return List.of(runs.get(0).get().get("summary"), runs.get(1).get().get("summary"));
        } finally {
            pool.shutdownNow();
            server.stop();
        }
    }

    @Test
    @Timeout(90)
    void twoShards_playEveryUserOnce_andCountEachOthersDeliveries(@TempDir Path tmp) throws Exception {
        Path barrier = tmp.resolve("barrier");
        List<JsonNode> summaries = runTwoShards(barrier);
        JsonNode a = summaries.get(0);
        JsonNode b = summaries.get(1);
        // 3 rooms of 7, 4, 3: slots 0,2,4,6 / 0,2 / 0,2 in shard 0, the rest in shard 1
        assertThat(a.get("usersPlayed").asInt()).isEqualTo(8);
        assertThat(b.get("usersPlayed").asInt()).isEqualTo(6);
        long expectedAll = 0;
        long delivered = 0;
        for (JsonNode s : List.of(a, b)) {
            assertThat(s.get("joined").asInt()).isEqualTo(s.get("usersPlayed").asInt());
            assertThat(s.get("errors").asLong()).as("errors in %s", s).isZero();
            assertThat(s.get("messagesSent").asLong()).isPositive();
            assertThat(s.get("remoteDeliveries").asLong()).as("deliveries from the other shard's senders").isPositive();
            assertThat(s.get("lost").asLong()).isZero();
            assertThat(s.get("duplicates").asLong()).isZero();
            // every distinct delivery, the other shard's senders' too, is timed
            assertThat(s.get("latencyMs").get("count").asLong()).isEqualTo(s.get("deliveries").asLong());
            // timed on one clock: a delivery over loopback takes milliseconds, not the runs' start-time difference
            assertThat(s.get("latencyMs").get("max").asDouble()).isLessThan(5_000);
            expectedAll += s.get("expectedDeliveriesAllShards").asLong();
            delivered += s.get("deliveries").asLong();
        }
        assertThat(delivered).as("both shards' deliveries against what both shards' messages should bring")
                .isEqualTo(expectedAll);
        assertThat(Files.list(barrier).map(p -> p.getFileName().toString()).sorted().toList())
                .containsExactly("shard-0-of-2.drained", "shard-0-of-2.ready", "shard-1-of-2.drained", "shard-1-of-2.ready");
    }

    /**
     * {@code accounts.shardOwners}: each run plays whole rooms, those the engine's rendezvous hashing gives to its node,
     * so nothing any run receives comes from the other's senders, and together they still play every user once.
     */
    @Test
    @Timeout(90)
    void shardedByOwner_eachRunPlaysTheWholeRoomsItsNodeOwns(@TempDir Path tmp) throws Exception {
        // these two names split the 3 rooms (7, 4, 3 members): lgroom1 and lgroom2 to node-2, lgroom3 to node-1
        List<String> nodes = List.of("node-1", "node-2");
        String owners = "accounts.shardOwners=" + String.join(",", nodes);
        // what each node owns, by the engine's rule over the rooms' bare JIDs
        Scenario plan = ScenarioLoader.load("smoke", List.of("users=14", "rooms.count=3", "rooms.largest=7"));
        int[] sizes = RoomPlan.sizes(plan.rooms(), plan.users());
        int[] expectedPlayed = new int[2];
        for (int r = 0; r < sizes.length; r++) {
            String room = plan.rooms().prefix() + (r + 1) + "@" + plan.server().mucDomain();
            expectedPlayed[nodes.indexOf(org.mucscale.engine.cluster.Rendezvous.owner(room, nodes))] += sizes[r];
        }
        assertThat(expectedPlayed).containsExactly(3, 11);

        List<JsonNode> summaries = runTwoShards(tmp.resolve("barrier"), owners);
        for (int k = 0; k < 2; k++) {
            JsonNode s = summaries.get(k);
            assertThat(s.get("usersPlayed").asInt()).as("users of shard %d", k).isEqualTo(expectedPlayed[k]);
            assertThat(s.get("joined").asInt()).isEqualTo(expectedPlayed[k]);
            assertThat(s.get("errors").asLong()).as("errors in %s", s).isZero();
            assertThat(s.get("messagesSent").asLong()).isPositive();
            assertThat(s.get("remoteDeliveries").asLong()).as("no room is shared, so nothing comes from the other shard")
                    .isZero();
            assertThat(s.get("lost").asLong()).isZero();
            assertThat(s.get("duplicates").asLong()).isZero();
            assertThat(s.get("deliveries").asLong()).isEqualTo(s.get("expectedDeliveriesAllShards").asLong());
        }
    }

    @Test
    void shardOwners_areValidated() {
        assertThat(ScenarioLoader.load("smoke", List.of("accounts.shard=1/2", "accounts.shardOwners=a, b")).accounts()
                .owners()).containsExactly("a", "b");
        assertThat(ScenarioLoader.load("smoke", List.of("accounts.shard=1/2")).accounts().owners()).isEmpty();
        for (List<String> bad : List.of(List.of("accounts.shard=0/2", "accounts.shardOwners=a"),
                List.of("accounts.shard=0/2", "accounts.shardOwners=a,a"),
                List.of("accounts.shard=0/2", "accounts.shardOwners=a,,b"),
                List.of("accounts.shard=0/1", "accounts.shardOwners=a"))) {
            assertThatThrownBy(() -> ScenarioLoader.load("smoke", bad)).as("%s", bad)
                    .isInstanceOf(ScenarioException.class).hasMessageContaining("accounts.shardOwners");
        }
    }

    @Test
    void shard_isValidated() {
        assertThat(ScenarioLoader.load("smoke", List.of("accounts.shard=1/2")).accounts().shardIndex()).isEqualTo(1);
        assertThat(ScenarioLoader.load("smoke", List.of()).accounts().shardCount()).isEqualTo(1);
        for (String bad : List.of("2/2", "1/0", "a/b", "1", "-1/2", "1/65")) {
            assertThatThrownBy(() -> ScenarioLoader.load("smoke", List.of("accounts.shard=" + bad)))
                    .isInstanceOf(ScenarioException.class).hasMessageContaining("accounts.shard");
        }
        assertThatThrownBy(() -> ScenarioLoader.load("abuse", List.of("accounts.shard=0/2")))
                .isInstanceOf(ScenarioException.class).hasMessageContaining("abuse.attackers");
    }
}
