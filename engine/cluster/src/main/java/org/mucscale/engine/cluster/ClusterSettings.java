package org.mucscale.engine.cluster;

import java.time.Duration;
import java.util.List;

import org.mucscale.engine.config.Setting;

/**
 * The engine's clustering tunables ({@code mucscale.cluster.*}). Whether a node is clustered at all is the host's
 * decision: inside Openfire it follows Openfire's own clustering; standalone it is {@code
 * mucscale.standalone.cluster-enabled} with a Hazelcast member list.
 */
public final class ClusterSettings {
    private ClusterSettings() {
    }

    public static final Setting<Integer> LOG_TAIL = Setting.ofInt("mucscale.cluster.log-tail", 500, 0, 100_000, false,
            "Newest accepted messages of each room kept replicated on another node until a takeover re-logs them "
                    + "(idempotently), so a node killed with messages still queued for the database loses none of "
                    + "them; also the history a new owner serves. 0 keeps only the history.");

    public static final Setting<Duration> HANDOFF_TIMEOUT = Setting.ofDuration("mucscale.cluster.handoff-timeout",
            Duration.ofMillis(2000), Duration.ofMillis(50), Duration.ofMinutes(5), false,
            "How long a node that became a room's owner holds the room's stanzas waiting for the previous owner's "
                    + "hand-off before it takes the room over from the replicated state; longer while the previous "
                    + "owner has not finished switching views, up to mucscale.cluster.state-read-timeout. Stanzas "
                    + "another node forwarded here under a view this node has not reached yet wait as long, longer "
                    + "while that node has announced that view.");

    public static final Setting<Duration> STATE_READ_TIMEOUT = Setting.ofDuration("mucscale.cluster.state-read-timeout",
            Duration.ofSeconds(30), Duration.ofMillis(100), Duration.ofMinutes(10), false,
            "How long a node taking rooms over keeps retrying reads of their replicated state that fail, while their "
                    + "stanzas wait, before the rooms start without it: empty (persistent rooms as the room store "
                    + "has them), their occupants to join again (counted in mucscale.cluster.state-read.given-up).");

    public static final Setting<Duration> REPLICATION_TIMEOUT = Setting.ofDuration(
            "mucscale.cluster.replication-timeout", Duration.ofMillis(5000), Duration.ofMillis(100),
            Duration.ofMinutes(5), false,
            "Longest a run of a room's deliveries waits for the cluster to confirm the write of that run's room "
                    + "state before it is delivered anyway and the write is counted as late.");

    public static final Setting<Integer> UNCONFIRMED_LIMIT = Setting.ofInt("mucscale.cluster.unconfirmed-limit",
            20_000, 0, 1_000_000, false,
            "Groupchat messages a node keeps per other node after forwarding them there, until that node confirms "
                    + "it processed and replicated them; if it leaves the cluster first, they are sent again to the "
                    + "rooms' new owners, which skip those already accepted. Above the limit the oldest are let go "
                    + "(counted). 0 keeps none (a node that stops loses what was on its way to it).");

    public static final Setting<Duration> BATCH_LINGER = Setting.ofDuration("mucscale.cluster.batch-linger",
            Duration.ZERO, Duration.ZERO, Duration.ofMillis(50), false,
            "How long a node gathers what it sends to another node (relays, forwarded stanzas, confirmations), and "
                    + "its replication writes, before sending them together. Fewer, larger cluster operations cost "
                    + "less CPU per delivery under load; messages between nodes wait up to twice this long more, "
                    + "and local deliveries of clustered rooms up to this long more. 0 sends each at once.");

    public static final Setting<Duration> ADMIN_TIMEOUT = Setting.ofDuration("mucscale.cluster.admin-timeout",
            Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofMinutes(5), false,
            "Longest a room administration call (HTTP API) for a room another node owns waits for that node's "
                    + "answer; after it the call is answered 503 outcome-unknown (the change may still be applied "
                    + "there, once).");

    public static final List<Setting<?>> ALL = List.of(LOG_TAIL, HANDOFF_TIMEOUT, STATE_READ_TIMEOUT, REPLICATION_TIMEOUT,
            UNCONFIRMED_LIMIT, BATCH_LINGER, ADMIN_TIMEOUT);
}
