package org.mucscale.loadgen;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The phases of a {@link LoadRun} that send: a warm-up, rate levels stepped up until one fails the p99 threshold, a
 * soak, and the abuse comparison (the same normal traffic without, then with, an attack). Each measured window becomes
 * one entry of the results' levels.
 *
 * <p>Owner: the run's main thread, which paces every message itself ({@link #pace}); the sampler and the clients'
 * receive side run on their own threads.
 */
final class MessagePhases {
    private final ObjectMapper mapper;
    private final LoadRun run;
    private final Sampler sampler;
    private final SplittableRandom random;

    MessagePhases(LoadRun run, ObjectMapper mapper, Sampler sampler, SplittableRandom random) {
        this.run = run;
        this.mapper = mapper;
        this.sampler = sampler;
        this.random = random;
    }

    /** The warm-up, the levels (stepping stops at the first that fails p99) and the soak; each window into {@code out}. */
    void levelsAndSoak(Client[] eligible, List<ObjectNode> out) {
        List<Double> rates = run.scenario.levels().ratesPerSec();
        double threshold = run.scenario.levels().p99ThresholdMs();
        double warmupRate = !rates.isEmpty() ? rates.get(0) : run.scenario.soak().ratePerSec();
        if (run.scenario.levels().warmupS() > 0 && warmupRate > 0 && eligible.length > 0 && !run.pastDeadline()) {
            run.phase("warm-up " + fmtRate(warmupRate) + " msg/s");
            pace(eligible, warmupRate, run.scenario.levels().warmupS());
        }
        for (int i = 0; i < rates.size() && !run.pastDeadline() && eligible.length > 0; i++) {
            run.phase("level " + (i + 1) + "/" + rates.size() + " " + fmtRate(rates.get(i)) + " msg/s");
            sampler.beginWindow();
            run.profiles.levelStarted(i + 1);
            pace(eligible, rates.get(i), run.scenario.levels().durationS());
            Sampler.Window w = sampler.endWindow();
            boolean passed = w.p99Ms() <= threshold;
            out.add(windowNode("level", i + 1, rates.get(i), w, passed));
            if (!passed) {
                run.say("level " + (i + 1) + " p99 " + w.p99Ms() + " ms > " + threshold + " ms: stepping stops here");
                break;
            }
        }
        if (run.scenario.soak().durationS() > 0 && !run.pastDeadline() && eligible.length > 0) {
            run.phase("soak " + fmtRate(run.scenario.soak().ratePerSec()) + " msg/s");
            sampler.beginWindow();
            pace(eligible, run.scenario.soak().ratePerSec(), run.scenario.soak().durationS());
            Sampler.Window w = sampler.endWindow();
            out.add(windowNode("soak", 0, run.scenario.soak().ratePerSec(), w, w.p99Ms() <= threshold));
        }
    }

    /**
     * The same normal traffic without, then with, the attack (same rate, same duration, same occupants), so the two
     * windows' p99 compare the normal occupants' latency in one run.
     */
    AbuseAttack abuse(Client[] eligible, RoomState[] rooms, Client[] attackers, List<ObjectNode> out) {
        Scenario.Abuse ab = run.scenario.abuse();
        double rate = ab.normalRatePerSec();
        if (run.scenario.levels().warmupS() > 0) {
            run.phase("abuse warm-up " + fmtRate(rate) + " msg/s");
            pace(eligible, rate, run.scenario.levels().warmupS());
        }
        double threshold = run.scenario.levels().p99ThresholdMs();
        run.phase("abuse baseline " + fmtRate(rate) + " msg/s");
        sampler.beginWindow();
        pace(eligible, rate, ab.windowS());
        Sampler.Window quiet = sampler.endWindow();
        out.add(windowNode("abuse-baseline", 0, rate, quiet, quiet.p99Ms() <= threshold));
        RoomState victim = rooms[0];
        for (RoomState r : rooms) {
            if (r.members.length > victim.members.length) {
                victim = r;
            }
        }
        AbuseAttack attack = new AbuseAttack(run, attackers, victim.jid);
        for (Client c : attackers) {
            c.attack = attack;
        }
        Thread t = new Thread(attack, "loadgen-abuse");
        t.setDaemon(true);
        run.phase("abuse attack onset " + fmtRate(ab.ratePerSec()) + "/s + " + fmtRate(rate) + " msg/s");
        sampler.beginWindow();
        t.start();
        Sampler.Window onset;
        Sampler.Window sustained;
        try {
            pace(eligible, rate, ab.windowS());
            onset = sampler.endWindow();
            out.add(windowNode("abuse-attack-onset", 0, rate, onset, onset.p99Ms() <= threshold));
            // the attackers' bursts are spent by now: what passes is the limits' refill rate
            run.phase("abuse attack sustained " + fmtRate(ab.ratePerSec()) + "/s + " + fmtRate(rate) + " msg/s");
            sampler.beginWindow();
            pace(eligible, rate, ab.windowS());
        } finally {
            attack.stop();
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        sustained = sampler.endWindow();
        out.add(windowNode("abuse-attack-sustained", 0, rate, sustained, sustained.p99Ms() <= threshold));
        run.say("abuse: normal occupants' p99 " + quiet.p99Ms() + " ms without the attack, " + onset.p99Ms()
                + " ms in its first " + ab.windowS() + " s, " + sustained.p99Ms() + " ms in the next "
                + ab.windowS() + " s (" + victim.jid + ")");
        return attack;
    }

    private static String fmtRate(double r) {
        return r == Math.rint(r) ? Long.toString((long) r) : Double.toString(r);
    }

    private ObjectNode windowNode(String kind, int n, double rate, Sampler.Window w, boolean passed) {
        ObjectNode o = mapper.valueToTree(w);
        o.put("kind", kind);
        o.put("level", n);
        o.put("ratePerSec", rate);
        o.put("passed", passed);
        return o;
    }

    /**
     * Sends at {@code ratePerSec} for {@code seconds} from the caller's thread. Each message carries its scheduled
     * time, not the time it actually left, so a stalled pacer or socket shows up as latency instead of hiding it.
     */
    private void pace(Client[] senders, double ratePerSec, int seconds) {
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        double meanGapNs = 1e9 / ratePerSec;
        boolean poisson = run.scenario.poisson();
        Scenario.Messages m = run.scenario.messages();
        List<String> words = m.words();
        double next = start;
        long sent = run.stats.messagesSent;
        long wordSent = run.stats.wordMessagesSent;
        long expected = run.stats.expectedDeliveries;
        long expectedAll = run.stats.expectedDeliveriesAllShards;
        long skipped = run.stats.sendsSkippedBackpressure;
        while (!run.pastDeadline()) {
            next += poisson ? -Math.log(1.0 - random.nextDouble()) * meanGapNs : meanGapNs;
            long due = (long) next;
            if (due - end >= 0) {
                break;
            }
            LoadRun.parkUntil(due);
            Client c = senders[random.nextInt(senders.length)];
            String word = m.wordShare() > 0 && random.nextDouble() < m.wordShare() ? words.get(random.nextInt(words.size())) : null;
            if (c.sendMessage(run.stampUs(due), word, m.bodyBytes(), LoadRun.MAX_QUEUED_BYTES_PER_CONNECTION)) {
                sent++;
                expected += c.recipients;
                expectedAll += c.plannedRecipients;
                if (word != null) {
                    wordSent++;
                }
            } else {
                skipped++;
            }
            run.stats.messagesSent = sent;
            run.stats.expectedDeliveries = expected;
            run.stats.expectedDeliveriesAllShards = expectedAll;
            run.stats.wordMessagesSent = wordSent;
            run.stats.sendsSkippedBackpressure = skipped;
        }
        LoadRun.parkUntil(end);
    }
}
