package org.mucscale.loadgen;

import java.util.List;

/**
 * One load scenario, immutable and validated by {@link ScenarioLoader}: who connects where, how rooms are sized, the
 * message schedule and the phases. Field names are the keys of the scenario JSON file and of {@code --set a.b=v}.
 */
public record Scenario(
        String name,
        String description,
        int users,
        Server server,
        Accounts accounts,
        Rooms rooms,
        Connect connect,
        Join join,
        Messages messages,
        Levels levels,
        Soak soak,
        RampDown rampDown,
        Run run,
        Abuse abuse,
        Clients clients) {

    /** Target server. {@code tls}: none, starttls (when offered) or required; {@code sasl}: PLAIN or SCRAM-SHA-1. */
    public record Server(String host, int port, String domain, String mucDomain, String tls, String sasl) {
    }

    /**
     * Accounts {@code <prefix><index>@domain}; {@code register} creates them in-band (XEP-0077) first. {@code shard}
     * {@code k/n} (default {@code 0/1}: everyone): this process plays only the members whose slot in their room is
     * k modulo n, of the same plan every process computes, so n processes together play every user once and each
     * room's members are spread over the processes; deliveries from the members other processes play are counted and
     * timed too (see {@link LoadRun}). {@code shardOwners} (default empty: by slot, as above) instead places whole
     * rooms: a comma-separated list of a mucscale cluster's members, the k-th being the node shard k connects to;
     * shard k plays every member of the rooms that mucscale's rendezvous hashing gives to that node, so no room has
     * occupants on two nodes (the placement that needs no inter-node fan-out, to measure what two nodes cost without it).
     */
    public record Accounts(boolean register, String prefix, String password, int firstIndex, String shard,
                           String shardOwners) {
        /** k of {@code k/n}; 0 when not sharded. */
        public int shardIndex() {
            return Integer.parseInt(shard.substring(0, shard.indexOf('/')));
        }

        /** n of {@code k/n}; 1 when not sharded. */
        public int shardCount() {
            return Integer.parseInt(shard.substring(shard.indexOf('/') + 1));
        }

        /** The members of {@code shardOwners}, in shard order; empty when sharded by slot. */
        public List<String> owners() {
            return shardOwners == null || shardOwners.isBlank() ? List.of() : List.of(shardOwners.trim().split("\\s*,\\s*"));
        }
    }

    /**
     * Room sizing: {@code size} > 0 gives rooms of exactly that size (count derived); otherwise {@code count} rooms
     * with Zipf({@code zipfExponent}) sizes, the first room forced to {@code largest} when it is > 0.
     */
    public record Rooms(int count, int size, double zipfExponent, int largest, String prefix, boolean instantRoomForm) {
    }

    /** Connection ramp-up: rate, in-flight login cap, source addresses 127.0.0.1..N, MINA processor threads. */
    public record Connect(int sourceAddresses, int processors, int loginTimeoutMs, int maxPendingLogins,
                         int connectionsPerSec) {
    }

    /** {@code mode}: onConnect (join as soon as logged in) or afterAllConnected (everyone joins at once). */
    public record Join(String mode, int timeoutMs, int resendAfterMs) {
    }

    /** Message schedule (fixed or poisson), padding, and the share of bodies carrying one of {@code words}. */
    public record Messages(String schedule, int bodyBytes, double wordShare, List<String> words, long seed) {
    }

    /**
     * Stepped message rates (messages/s over all senders); stepping stops after the first level with p99 above the
     * threshold. Before level 1, {@code warmupS} seconds at the first rate warm both JITs and caches; they count for
     * loss but not for any level's figures.
     */
    public record Levels(List<Double> ratesPerSec, int warmupS, int durationS, double p99ThresholdMs) {
    }

    /** Steady phase after the levels. */
    public record Soak(double ratePerSec, int durationS) {
    }

    /** After sending stops: wait up to drainMs for outstanding deliveries, then leave and disconnect. */
    public record RampDown(int drainMs, int leavePerSec) {
    }

    /**
     * The abuse phase (off while {@code attackers} is 0): after the levels, {@code windowS} seconds of normal messages at
     * {@code normalRatePerSec} without attack, then twice as long with {@code attackers} extra accounts playing the
     * {@code kinds} of attack ({@link AbuseAttack#KINDS}) against the largest room at {@code ratePerSec} stanzas per
     * second, measured as two windows: the onset (the limits' bursts are still there to spend) and the sustained attack
     * (only their refill passes). The windows' percentiles are the normal occupants' latency without and with attack.
     */
    public record Abuse(int attackers, double ratePerSec, double normalRatePerSec, int windowS, List<String> kinds) {
    }

    /**
     * Hard deadline for the whole run, and the progress line interval. {@code barrierDir} (sharded runs only): a
     * directory, empty at the start, shared by the processes of one sharded run; each writes its readiness there once
     * its members have joined, and all start sending at the same moment (see {@link LoadRun}).
     */
    public record Run(int deadlineS, int progressIntervalS, String barrierDir) {
    }

    /**
     * Client profiles, each for a share of the users (drawn independently per feature, exact counts): {@code
     * streamManagement} off, on (XEP-0198: {@code <enable resume='true'/>} after bind, every {@code <r/>} acked at
     * once, as Smack and Conversations do) or resume (as on, and {@code resumeCuts} of these connections have their
     * TCP socket cut once, {@code resumeAfterS} seconds into level {@code resumeLevel}, connect again {@code
     * resumeReconnectMs} later (a phone regaining its network) and resume the session).
     * {@code csiShare} of the users toggle XEP-0352 inactive for {@code csiInactiveS}, then active for {@code
     * csiActiveS}, over and over. {@code websocketShare} of the users connect over RFC 7395 WebSocket (plain ws) to
     * {@code websocketPort} (0: server.port) at {@code websocketPath}. See {@link ClientProfiles}.
     */
    public record Clients(String streamManagement, double streamManagementShare, int resumeCuts, int resumeLevel,
                          int resumeAfterS, int resumeReconnectMs, double csiShare, int csiInactiveS, int csiActiveS, double websocketShare,
                          int websocketPort, String websocketPath) {
        public boolean smOn() {
            return !"off".equals(streamManagement);
        }
    }

    public boolean joinAfterAllConnected() {
        return "afterAllConnected".equals(join.mode());
    }

    public boolean poisson() {
        return "poisson".equals(messages.schedule());
    }
}
