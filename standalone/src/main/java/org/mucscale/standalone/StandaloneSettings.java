package org.mucscale.standalone;

import java.time.Duration;
import java.util.List;
import org.mucscale.engine.config.Setting;

/**
 * Settings of the standalone XEP-0114 component ({@code mucscale.standalone.*}). The config file holds these next
 * to the engine's own {@code mucscale.*} keys; an unknown {@code mucscale.} key is refused so a typo is not ignored.
 * The database is the store's: {@code mucscale.store.jdbc-url} (embedded HSQLDB file database by default),
 * {@code -user}, {@code -password}, {@code pool-size}, so one key means one thing in every host.
 */
public final class StandaloneSettings {
    private StandaloneSettings() {
    }

    /** What happens to an outbound stanza when the connection's write queue is full. */
    public enum WriteQueueOverflow {
        /** The new stanza is not written; counted in {@code outboundDroppedQueueFull} and logged. */
        DROP_NEWEST,
        /** The stream is closed and reopened (the server sees the component go and come back); counted and logged. */
        RECONNECT
    }

    public static final Setting<String> SERVER_HOST = Setting.ofString("mucscale.standalone.server-host", "127.0.0.1",
            false, "Host name or address of the XMPP server's component port.", StandaloneSettings::hostRule);

    public static final Setting<Integer> SERVER_PORT = Setting.ofInt("mucscale.standalone.server-port", 5275, 1, 65535,
            false, "TCP port where the XMPP server accepts XEP-0114 components.");

    public static final Setting<String> COMPONENT_DOMAIN = Setting.ofString("mucscale.standalone.component-domain",
            "conference.localhost", false,
            "The component's domain as configured on the server; rooms live at room@<this domain>.",
            StandaloneSettings::domainRule);

    public static final Setting<String> COMPONENT_SECRET = Setting.ofSecret("mucscale.standalone.component-secret",
            false, "The shared secret the server expects for this component (required).", null);

    public static final Setting<Duration> CONNECT_TIMEOUT = Setting.ofDuration("mucscale.standalone.connect-timeout",
            Duration.ofSeconds(10), Duration.ofMillis(100), Duration.ofMinutes(5), false,
            "How long one attempt to open the TCP connection to the server may take.");

    public static final Setting<Duration> HANDSHAKE_TIMEOUT = Setting.ofDuration(
            "mucscale.standalone.handshake-timeout", Duration.ofSeconds(10), Duration.ofMillis(100),
            Duration.ofMinutes(5), false,
            "How long the server may take to answer the stream header and the handshake before the attempt fails.");

    public static final Setting<Duration> KEEPALIVE_INTERVAL = Setting.ofDuration(
            "mucscale.standalone.keepalive-interval", Duration.ofSeconds(30), Duration.ofSeconds(1),
            Duration.ofHours(1), false,
            "After this long without writing, a single space is sent so idle connections are not cut by the server "
                    + "or a middlebox.");

    public static final Setting<Duration> RECONNECT_INITIAL_DELAY = Setting.ofDuration(
            "mucscale.standalone.reconnect-initial-delay", Duration.ofMillis(500), Duration.ofMillis(10),
            Duration.ofMinutes(5), false,
            "Wait before the first reconnect after the connection is lost; doubles on each failed attempt. A "
            + "cluster node standing by while another node holds the server's only link retries at this interval, "
            + "without doubling.");

    public static final Setting<Duration> RECONNECT_MAX_DELAY = Setting.ofDuration(
            "mucscale.standalone.reconnect-max-delay", Duration.ofSeconds(30), Duration.ofMillis(10),
            Duration.ofHours(1), false, "Upper bound of the reconnect back-off.");

    public static final Setting<Integer> MAX_STANZA_BYTES = Setting.ofInt("mucscale.standalone.max-stanza-bytes",
            1024 * 1024, 1024, 64 * 1024 * 1024, false,
            "Largest stanza accepted from the server; a larger one is a policy-violation stream error "
                    + "(keep it above the server's own client stanza limit).");

    public static final Setting<Long> WRITE_QUEUE_MAX_BYTES = Setting.ofLong("mucscale.standalone.write-queue-max-bytes",
            64L * 1024 * 1024, 64 * 1024, 4L * 1024 * 1024 * 1024, false,
            "Bytes that may wait in the outbound queue to the server before the overflow policy applies.");

    public static final Setting<WriteQueueOverflow> WRITE_QUEUE_OVERFLOW = Setting.ofEnum(
            "mucscale.standalone.write-queue-overflow", WriteQueueOverflow.class, WriteQueueOverflow.DROP_NEWEST, false,
            "What happens to a stanza when the outbound queue is full: DROP_NEWEST or RECONNECT; both are counted "
                    + "and logged.");

    public static final Setting<Long> WRITE_QUEUE_HIGH_WATER_BYTES = Setting.ofLong(
            "mucscale.standalone.write-queue-high-water-bytes", 0L, 0L, 4L * 1024 * 1024 * 1024, false,
            "Back-pressure: when this many bytes wait in the outbound queue to the server, the room threads that "
                    + "feed it pause until it is down to half of this (their own queues then fill and senders are told "
                    + "resource-constraint), instead of the link dropping stanzas. 0: a quarter of "
                    + "write-queue-max-bytes. Must be below write-queue-max-bytes.");

    public static final Setting<Duration> WRITE_QUEUE_MAX_WAIT = Setting.ofDuration(
            "mucscale.standalone.write-queue-max-wait", Duration.ofSeconds(30), Duration.ZERO, Duration.ofMinutes(10),
            false,
            "Longest a room thread pauses for the outbound queue to drain (back-pressure); after it the stanza "
                    + "meets write-queue-max-bytes and the overflow policy. 0 turns back-pressure off. A stop never "
                    + "waits for it.");

    // ---- clustering of standalone nodes: an embedded Hazelcast member per node (HazelcastClusterTransport)

    public static final Setting<Boolean> CLUSTER_ENABLED = Setting.ofBoolean("mucscale.standalone.cluster-enabled",
            false, false,
            "Runs this node as a member of a cluster of standalone nodes (embedded Hazelcast): rooms are spread over "
                    + "the nodes and taken over when one fails. Every node needs the same cluster-members and "
                    + "cluster-name.");

    public static final Setting<String> CLUSTER_MEMBERS = Setting.ofString("mucscale.standalone.cluster-members",
            "127.0.0.1:5701", false,
            "Comma-separated host:port of every node of the cluster, this one included. Members are found only "
                    + "through this list (TCP-IP join); multicast and cloud auto-detection are never used.",
            StandaloneSettings::memberListRule);

    public static final Setting<String> CLUSTER_BIND_ADDRESS = Setting.ofString(
            "mucscale.standalone.cluster-bind-address", "127.0.0.1", false,
            "The address this node's cluster member listens on and is reached at; it uses no other interface.",
            StandaloneSettings::ipv4Rule);

    public static final Setting<Integer> CLUSTER_PORT = Setting.ofInt("mucscale.standalone.cluster-port", 5701, 0,
            65535, false,
            "TCP port of this node's cluster member; never incremented when taken (0 picks a free one, for tests).");

    public static final Setting<String> CLUSTER_NAME = Setting.ofString("mucscale.standalone.cluster-name", "mucscale",
            false, "Name of the cluster: a member configured with another name is refused, so clusters that share "
                    + "hosts stay apart.", StandaloneSettings::clusterNameRule);

    public static final Setting<Duration> CLUSTER_FAILURE_TIMEOUT = Setting.ofDuration(
            "mucscale.standalone.cluster-failure-timeout", Duration.ofMillis(3000), Duration.ofMillis(2000),
            Duration.ofMinutes(10), false,
            "How long a member that has gone silent (hung, powered off, cut off by the network) stays in the view "
                    + "before it is declared dead and its rooms are taken over; a killed process on a host that is "
                    + "up is noticed sooner, as its connections close. Heartbeats go every second, so this is "
                    + "rounded up to whole seconds.");

    public static final List<Setting<?>> ALL = List.of(SERVER_HOST, SERVER_PORT, COMPONENT_DOMAIN, COMPONENT_SECRET,
            CONNECT_TIMEOUT, HANDSHAKE_TIMEOUT, KEEPALIVE_INTERVAL,
            RECONNECT_INITIAL_DELAY, RECONNECT_MAX_DELAY, MAX_STANZA_BYTES, WRITE_QUEUE_MAX_BYTES,
            WRITE_QUEUE_OVERFLOW, WRITE_QUEUE_HIGH_WATER_BYTES, WRITE_QUEUE_MAX_WAIT, CLUSTER_ENABLED, CLUSTER_MEMBERS, CLUSTER_BIND_ADDRESS, CLUSTER_PORT, CLUSTER_NAME,
            CLUSTER_FAILURE_TIMEOUT);

    static String hostRule(String value) {
        if (value == null) {
            return "a host name or IP address";
        }
        if (value.isBlank() || hasSpaceOrControl(value)) {
            return "a host name or IP address";
        }
        return null;
    }

    static String domainRule(String value) {
        String rule = "a domain name such as conference.example.org (no '@', '/', spaces or leading/trailing dot)";
        if (value == null || value.isEmpty() || value.length() > 1023 || hasSpaceOrControl(value)
                || value.startsWith(".") || value.endsWith(".")) {
            return rule;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '@' || c == '/' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '&') {
                return rule;
            }
        }
        return null;
    }

    private static final String MEMBER_LIST = "a comma-separated list of host:port entries such as "
            + "10.0.0.1:5701,10.0.0.2:5701 (host name or IPv4 address, port 1 to 65535)";

    /** Every entry is host:port; the message names the first entry that is not. */
    static String memberListRule(String value) {
        if (value == null || value.isBlank()) {
            return MEMBER_LIST;
        }
        for (String part : value.split(",", -1)) {
            String entry = part.trim();
            if (memberEntryProblem(entry)) {
                return MEMBER_LIST + "; '" + entry + "' is not one";
            }
        }
        return null;
    }

    private static boolean memberEntryProblem(String entry) {
        int colon = entry.lastIndexOf(':');
        if (colon <= 0 || hasSpaceOrControl(entry)) {
            return true;
        }
        String host = entry.substring(0, colon);
        String port = entry.substring(colon + 1);
        if (host.indexOf(':') >= 0 || host.indexOf('/') >= 0 || host.startsWith("[") || port.isEmpty()
                || port.length() > 5) {
            return true;
        }
        for (int i = 0; i < port.length(); i++) {
            if (port.charAt(i) < '0' || port.charAt(i) > '9') {
                return true;
            }
        }
        int p = Integer.parseInt(port);
        return p < 1 || p > 65535;
    }

    /** The cluster runs on Hazelcast's IPv4 stack, so the bind address is a dotted-quad literal. */
    static String ipv4Rule(String value) {
        String rule = "an IPv4 address literal such as 127.0.0.1 (not a host name)";
        return value != null && isIpv4Literal(value.trim()) ? null : rule;
    }

    static boolean isIpv4Literal(String value) {
        String[] octets = value.split("\\.", -1);
        if (octets.length != 4) {
            return false;
        }
        for (String o : octets) {
            if (o.isEmpty() || o.length() > 3) {
                return false;
            }
            for (int i = 0; i < o.length(); i++) {
                if (o.charAt(i) < '0' || o.charAt(i) > '9') {
                    return false;
                }
            }
            if (Integer.parseInt(o) > 255) {
                return false;
            }
        }
        return true;
    }

    static String clusterNameRule(String value) {
        String rule = "1 to 64 letters, digits, '.', '_' or '-'";
        String name = value == null ? "" : value.trim();
        if (name.isEmpty() || name.length() > 64) {
            return rule;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
                    || c == '_' || c == '-';
            if (!ok) {
                return rule;
            }
        }
        return null;
    }

    private static boolean hasSpaceOrControl(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isWhitespace(c) || Character.isISOControl(c)) {
                return true;
            }
        }
        return false;
    }
}
