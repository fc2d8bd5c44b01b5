package org.mucscale.loadgen;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The results document of a finished {@link LoadRun} (what {@link Results} writes and the reports read): the run's
 * identity and scenario, the summary (logins, joins, deliveries, exact loss per sender/receiver pair, latency
 * percentiles, CPU per delivery weighted by each level's deliveries, RSS per user), errors, the generator's own
 * thread CPU, the levels and the sampled series.
 *
 * <p>Owner: the run's main thread, after every phase has ended; it only reads what the run gathered.
 */
final class RunReport {
    private final ObjectMapper mapper;
    private final Scenario scenario;
    private final Stats stats;
    private final Sampler sampler;
    private final ClientProfiles profiles;
    private final ServerProcesses server;

    RunReport(ObjectMapper mapper, Scenario scenario, Stats stats, Sampler sampler, ClientProfiles profiles,
              ServerProcesses server) {
        this.mapper = mapper;
        this.scenario = scenario;
        this.stats = stats;
        this.sampler = sampler;
        this.profiles = profiles;
        this.server = server;
    }

    /** The document of a finished run; {@code played}: the users this process played, the abuse phase's not counted. */
    ObjectNode document(String label, Instant startedAt, String stoppedBy, AbuseAttack attack, int played,
                        RoomState[] rooms, List<ObjectNode> levelResults, Map<String, Long> threadCpuBeforeMessages,
                        Map<String, Long> threadCpuAfterMessages) {
        ObjectNode root = mapper.createObjectNode();
        root.put("tool", "mucscale-loadgen");
        root.put("format", 1);
        root.put("label", label);
        root.put("scenarioName", scenario.name());
        root.put("startedAt", startedAt.toString());
        root.put("target", scenario.server().host() + ":" + scenario.server().port());
        if (!server.none()) {
            root.put("serverPid", server.pid(0));
            ArrayNode pids = root.putArray("serverPids");
            for (int i = 0; i < server.count(); i++) {
                pids.add(server.pid(i));
            }
        }
        root.put("stoppedBy", stoppedBy);
        root.set("scenario", ScenarioLoader.toTree(scenario));
        if (attack != null) {
            root.set("abuse", attack.report(mapper));
        }
        root.set("profiles", profiles.report(mapper));

        ObjectNode s = root.putObject("summary");
        s.put("users", scenario.users());
        s.put("shard", scenario.accounts().shard());
        s.put("usersPlayed", played);
        s.put("rooms", rooms.length);
        int largest = 0;
        for (RoomState r : rooms) {
            largest = Math.max(largest, r.members.length);
        }
        s.put("largestRoom", largest);
        s.put("loggedIn", stats.loggedIn.sum());
        s.put("joined", stats.joined.sum());
        s.put("loginFailed", stats.loginFailed.sum());
        s.put("joinFailed", stats.joinFailed.sum());
        s.put("registered", stats.registered.sum());
        s.put("roomsCreated", stats.roomsCreated.sum());
        s.put("ownerJoinResends", stats.ownerJoinResends.sum());
        s.put("joinResends", stats.joinResends.sum());
        s.set("connectMs", percentiles(sampler.connectTotal));
        s.set("joinMs", percentiles(sampler.joinTotal));
        s.put("messagesSent", stats.messagesSent);
        s.put("wordMessagesSent", stats.wordMessagesSent);
        s.put("sendsSkippedBackpressure", stats.sendsSkippedBackpressure);
        s.put("expectedDeliveries", stats.expectedDeliveries);
        s.put("deliveries", stats.distinctDeliveries.sum());
        // sharded: what arrived here from members other processes play, and what this process's messages should
        // bring to every process if every planned member joined (sum both over the processes to check loss overall)
        s.put("remoteDeliveries", stats.remoteDeliveries.sum());
        s.put("expectedDeliveriesAllShards", stats.expectedDeliveriesAllShards);
        s.put("duplicates", stats.duplicates.sum());
        s.put("reordered", stats.reordered.sum());
        s.put("lateBeyondWindow", stats.lateBeyondWindow.sum());
        s.put("echoes", stats.echoes.sum());
        s.put("socketReads", stats.reads.sum());
        s.put("bytesReceived", stats.bytesReceived.sum());
        LossReport loss = exactLoss(rooms);
        s.put("lost", loss.lost);
        s.put("lossPairs", loss.pairsWithLoss);
        ArrayNode examples = s.putArray("lossExamples");
        loss.examples.forEach(examples::add);
        s.set("latencyMs", percentiles(sampler.deliveryTotal));
        double best = -1;
        for (ObjectNode l : levelResults) {
            if (l.get("passed").asBoolean()) {
                best = Math.max(best, l.get("deliveriesPerSec").asDouble());
            }
        }
        s.put("maxDeliveriesPerSecPassing", best);
        s.put("p99ThresholdMs", scenario.levels().p99ThresholdMs());
        double genUs = -1;
        double srvUs = -1;
        long delivered = 0;
        double genSum = 0;
        double srvSum = 0;
        for (ObjectNode l : levelResults) {
            long d = l.get("deliveries").asLong();
            if (d > 0) {
                delivered += d;
                genSum += l.get("genCpuUsPerDelivery").asDouble() * d;
                srvSum += l.get("serverCpuUsPerDelivery").asDouble() * d;
            }
        }
        if (delivered > 0) {
            genUs = Sampler.round(genSum / delivered);
            srvUs = server.none() ? -1 : Sampler.round(srvSum / delivered);
        }
        s.put("genCpuUsPerDelivery", genUs);
        s.put("serverCpuUsPerDelivery", srvUs);
        double maxRss = -1;
        double maxGenRss = -1;
        for (Sampler.Point p : sampler.points) {
            maxRss = Math.max(maxRss, p.serverRssMb());
            maxGenRss = Math.max(maxGenRss, p.genRssMb());
        }
        // exact join rate: joins completed over the window from the first join sent to the last join answered
        // (nanoTime stamps at the events); in onConnect mode that window is the connection ramp's
        long joined = stats.joined.sum();
        long firstJoinNs = stats.firstJoinSentNs.get();
        long lastJoinNs = stats.lastJoinAnsweredNs.get();
        double joinRate = -1;
        double joinSpanMs = -1;
        if (joined > 0 && firstJoinNs != Long.MAX_VALUE && lastJoinNs > firstJoinNs) {
            long spanNs = lastJoinNs - firstJoinNs;
            joinSpanMs = Sampler.round(spanNs / 1e6);
            joinRate = Sampler.round(joined * 1e9 / spanNs);
        }
        s.put("joinsPerSec", joinRate);
        s.put("joinSpanMs", joinSpanMs);
        s.put("serverRssMbMax", maxRss);
        // per user this process played (all of them when not sharded; give a sharded process its own node's pid)
        s.put("serverRssKbPerUser", maxRss < 0 ? -1 : Sampler.round(maxRss * 1024 / played));
        s.put("genRssMbMax", maxGenRss);
        s.put("errors", stats.errorCount());
        ObjectNode errors = root.putObject("errors");
        for (Map.Entry<String, Long> e : stats.errors().entrySet()) {
            errors.put(e.getKey(), e.getValue());
        }
        ObjectNode threads = root.putObject("genThreadCpuMsDuringMessages");
        threadCpuAfterMessages.forEach((k, v) -> {
            long d = v - threadCpuBeforeMessages.getOrDefault(k, 0L);
            if (d > 0) {
                threads.put(k, d);
            }
        });
        ArrayNode levels = root.putArray("levels");
        levelResults.forEach(levels::add);
        ArrayNode sizes = root.putArray("roomSizes");
        for (RoomState r : rooms) {
            sizes.add(r.members.length);
        }
        root.set("series", mapper.valueToTree(sampler.points));
        return root;
    }

    private ObjectNode percentiles(Histogram h) {
        ObjectNode o = mapper.createObjectNode();
        long n = h.getTotalCount();
        o.put("count", n);
        o.put("mean", n == 0 ? 0 : Sampler.round(h.getMean() / 1000.0));
        o.put("p50", Sampler.ms(n, h.getValueAtPercentile(50)));
        o.put("p90", Sampler.ms(n, h.getValueAtPercentile(90)));
        o.put("p99", Sampler.ms(n, h.getValueAtPercentile(99)));
        o.put("p999", Sampler.ms(n, h.getValueAtPercentile(99.9)));
        o.put("max", Sampler.ms(n, h.getMaxValue()));
        return o;
    }

    /** Per sender/receiver pair: messages the sender sent minus distinct ones the receiver got. */
    private static LossReport exactLoss(RoomState[] rooms) {
        LossReport r = new LossReport();
        for (RoomState room : rooms) {
            for (Client receiver : room.members) {
                SeqTracker t = receiver.tracker();
                if (t == null || receiver.recipients < 0) {
                    continue;
                }
                for (Client sender : room.members) {
                    if (sender == receiver || sender.sent == 0 || sender.recipients < 0) {
                        continue;
                    }
                    long missing = sender.sent - t.distinct(sender.slot);
                    if (missing > 0) {
                        r.lost += missing;
                        r.pairsWithLoss++;
                        if (r.examples.size() < 10) {
                            r.examples.add(receiver.username + " missed " + missing + " of " + sender.sent + " from "
                                    + sender.username + " in " + room.jid + " (highest seen " + t.highest(sender.slot) + ")");
                        }
                    }
                }
            }
        }
        return r;
    }

    private static final class LossReport {
        long lost;
        long pairsWithLoss;
        final List<String> examples = new ArrayList<>();
    }
}
