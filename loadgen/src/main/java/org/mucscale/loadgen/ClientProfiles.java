package org.mucscale.loadgen;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * Gives every played client its profile ({@link Scenario.Clients}: stream management, CSI, WebSocket, each for its
 * own share, drawn independently with exact counts from the scenario's seed), drives what the profiles do on the
 * timer (CSI toggles, the resumption cuts), and reports each profile's own deliveries and latency, per level and for
 * the whole run. The generator's CPU is one process's and is reported per delivery over all profiles, so a run
 * with a single profile (ref-5000-sm, -csi, -ws, -tls) gives that profile's cost, and a mix gives the mix's.
 *
 * <p>Concurrency: {@link #assign} runs before any connection; {@link #tick} and {@link #levelStarted} on the timer and
 * run threads touch only volatile or timer-owned state; the histograms are collected under this object's lock.
 */
final class ClientProfiles {
    final LongAdder smEnabled = new LongAdder();
    final LongAdder resumeCuts = new LongAdder();
    final LongAdder resumed = new LongAdder();
    final LongAdder resumeFailed = new LongAdder();
    final LongAdder outboundResent = new LongAdder();

    private final Scenario.Clients options;
    private final long seed;
    private final List<ClientProfile> profiles = new ArrayList<>();
    private final List<ClientStateIndication> csiClients = new ArrayList<>();
    /** Clients picked for the resumption cut, in cutting order. */
    private final List<Client> toCut = new ArrayList<>();
    private int nextCut;
    private volatile long cutFromNs;
    private long csiToggles;

    ClientProfiles(Scenario scenario) {
        this.options = scenario.clients();
        this.seed = scenario.messages().seed();
    }

    /** Picks every client's profile; the last {@code extra} clients (the abuse attackers) stay plain TCP. */
    void assign(Client[] clients, int extra) {
        int n = clients.length - extra;
        boolean[] sm = pick(n, options.smOn() ? options.streamManagementShare() : 0, seed + 1);
        boolean[] csi = pick(n, options.csiShare(), seed + 2);
        boolean[] ws = pick(n, options.websocketShare(), seed + 3);
        Map<String, ClientProfile> byLabel = new LinkedHashMap<>();
        List<Client> cuttable = new ArrayList<>();
        SplittableRandom offsets = new SplittableRandom(seed + 4);
        for (int i = 0; i < clients.length; i++) {
            boolean inMix = i < n;
            ClientProfile fresh = new ClientProfile(inMix && ws[i], inMix && sm[i], inMix && csi[i]);
            ClientProfile p = byLabel.get(fresh.label);
            if (p == null) {
                p = fresh;
                byLabel.put(p.label, p);
                profiles.add(p);
            }
            p.clients++;
            Client c = clients[i];
            c.profile = p;
            if (p.streamManagement && "resume".equals(options.streamManagement())) {
                cuttable.add(c);
            }
            if (p.csi) {
                c.csi = new ClientStateIndication(c, options.csiInactiveS(), options.csiActiveS(), offsets.nextDouble());
                csiClients.add(c.csi);
            }
        }
        boolean[] cut = pick(cuttable.size(), cuttable.isEmpty() ? 0
                : Math.min(1.0, (double) options.resumeCuts() / cuttable.size()), seed + 5);
        for (int i = 0; i < cuttable.size(); i++) {
            if (cut[i]) {
                toCut.add(cuttable.get(i));
            }
        }
        java.util.Set<Client> cutSet = new java.util.HashSet<>(toCut);
        for (Client c : clients) {
            if (c.profile.streamManagement) {
                c.sm = new StreamManagement(c, cutSet.contains(c));
            }
        }
    }

    /** Exactly round(n * share) of n positions, chosen by a seeded shuffle (independent of the other features). */
    static boolean[] pick(int n, double share, long seed) {
        boolean[] out = new boolean[n];
        int k = (int) Math.round(n * share);
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = n - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int i = 0; i < k; i++) {
            out[order[i]] = true;
        }
        return out;
    }

    /** The run thread entered level {@code level} (1-based): the resumption cuts start resumeAfterS into it. */
    void levelStarted(int level) {
        if (level == options.resumeLevel() && !toCut.isEmpty()) {
            cutFromNs = System.nanoTime() + options.resumeAfterS() * 1_000_000_000L;
        }
    }

    /** Timer thread, every sweep (200 ms): CSI toggles, and the cuts, a fifth of them per sweep (all within 1 s). */
    void tick(long nowNs) {
        for (ClientStateIndication c : csiClients) {
            c.toggleIfDue(nowNs);
        }
        long from = cutFromNs;
        if (from != 0 && nowNs - from >= 0 && nextCut < toCut.size()) {
            int perSweep = Math.max(1, (toCut.size() + 4) / 5);
            for (int k = 0; k < perSweep && nextCut < toCut.size(); k++) {
                Client c = toCut.get(nextCut++);
                if (c.isJoined()) {
                    c.sm.cut();
                }
            }
        }
    }

    /** Called by the sampler under its lock when a window begins or a tick collects. */
    synchronized void collect() {
        for (ClientProfile p : profiles) {
            p.collect();
        }
    }

    synchronized void beginWindow() {
        for (ClientProfile p : profiles) {
            p.collect();
            p.resetWindow();
        }
    }

    /** Each profile's figures over the window just ended (by label). */
    synchronized Map<String, ObjectNode> endWindow(ObjectMapper mapper) {
        Map<String, ObjectNode> out = new LinkedHashMap<>();
        for (ClientProfile p : profiles) {
            p.collect();
            out.put(p.label, p.figures(mapper, true));
        }
        return out;
    }

    /** The whole run: each profile's figures, the options, and what stream management and CSI did. */
    synchronized ObjectNode report(ObjectMapper mapper) {
        ObjectNode o = mapper.createObjectNode();
        ObjectNode byProfile = o.putObject("byProfile");
        for (ClientProfile p : profiles) {
            p.collect();
            byProfile.set(p.label, p.figures(mapper, false));
        }
        ObjectNode sm = o.putObject("streamManagement");
        sm.put("enabled", smEnabled.sum());
        sm.put("cutsPlanned", toCut.size());
        sm.put("cuts", resumeCuts.sum());
        sm.put("resumed", resumed.sum());
        sm.put("resumeFailed", resumeFailed.sum());
        sm.put("outboundResent", outboundResent.sum());
        long toggles = 0;
        for (ClientStateIndication c : csiClients) {
            toggles += c.toggles;
        }
        o.putObject("csi").put("clients", csiClients.size()).put("toggles", toggles);
        return o;
    }
}
