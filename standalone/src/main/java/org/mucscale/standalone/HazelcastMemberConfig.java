package org.mucscale.standalone;

import com.hazelcast.config.Config;
import com.hazelcast.config.EvictionPolicy;
import com.hazelcast.config.InMemoryFormat;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.config.TopicConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.mucscale.engine.config.Settings;

/**
 * The embedded Hazelcast member's configuration, from the {@code mucscale.standalone.cluster-*} settings: TCP-IP join
 * over exactly the configured member list (never multicast or auto-detection), one interface, no phone-home, no
 * shutdown hook, heartbeats every second, short retry pauses, the cluster maps and the nodes' inbox topics. Built
 * without touching the network, so a test can check it without starting a member.
 *
 * <p>Threads: no state; static functions of the settings, called by whoever builds a {@link HazelcastClusterTransport}.
 */
final class HazelcastMemberConfig {
    /** Longest pause between two tries of a Hazelcast operation (see build). */
    static final long INVOCATION_RETRY_PAUSE_MILLIS = 50;
    /** Connection failures to a member are counted at most once per this interval (see build). */
    static final long CONNECTION_MONITOR_INTERVAL_MILLIS = 50;
    /** Tries of one Hazelcast operation: with the pause above, about Hazelcast's default two minutes. */
    static final int INVOCATION_MAX_RETRIES = 2500;
    /** Longest a graceful stop waits for the partitions it owns to move to the other members. */
    static final int GRACEFUL_SHUTDOWN_MAX_WAIT_SECONDS = 60;

    private HazelcastMemberConfig() {
    }

    /** The member's Hazelcast configuration for node {@code nodeId}. */
    static Config build(Settings settings, String nodeId) {
        Config c = new Config();
        c.setInstanceName("mucscale-" + nodeId);
        c.setClusterName(settings.get(StandaloneSettings.CLUSTER_NAME).trim());
        c.getMemberAttributeConfig().setAttribute(HazelcastClusterTransport.NODE_ATTRIBUTE, nodeId);

        c.setProperty("hazelcast.phone.home.enabled", "false");
        c.setProperty("hazelcast.logging.type", "slf4j");
        c.setProperty("hazelcast.shutdownhook.enabled", "false"); // the server stops the member in its own order
        c.setProperty("hazelcast.graceful.shutdown.max.wait", Integer.toString(GRACEFUL_SHUTDOWN_MAX_WAIT_SECONDS));
        // failure detection: heartbeats every second, a member silent for the timeout is removed from the view
        Duration timeout = settings.get(StandaloneSettings.CLUSTER_FAILURE_TIMEOUT);
        long seconds = Math.max(2, (timeout.toMillis() + 999) / 1000);
        c.setProperty("hazelcast.heartbeat.interval.seconds", "1");
        c.setProperty("hazelcast.max.no.heartbeat.seconds", Long.toString(seconds));
        // an operation on a partition that is moving, or whose member just died, is retried with a doubling pause
        // capped at this (Hazelcast's default 500 ms): the engine's replication writes (and through them every room's
        // deliveries) wait for the retry after the cluster has already recovered, so the cap is kept short; the
        // retry count is raised to match, so an operation still gives up after about the same two minutes
        c.setProperty("hazelcast.invocation.retry.pause.millis", Long.toString(INVOCATION_RETRY_PAUSE_MILLIS));
        // a member whose connection fails (refused: its process is gone) this many times, counted at most once per
        // interval, is suspected at once, without waiting for the heartbeat timeout: 3 x 50 ms instead of Hazelcast's
        // 3 x 100 ms. A live member in a pause still accepts connections (the kernel does), so this does not suspect it
        c.setProperty("hazelcast.connection.monitor.interval", Long.toString(CONNECTION_MONITOR_INTERVAL_MILLIS));
        c.setProperty("hazelcast.connection.monitor.max.faults", "3");
        c.setProperty("hazelcast.invocation.max.retry.count", Integer.toString(INVOCATION_MAX_RETRIES));

        String bind = settings.get(StandaloneSettings.CLUSTER_BIND_ADDRESS).trim();
        int port = settings.get(StandaloneSettings.CLUSTER_PORT);
        c.setProperty("hazelcast.socket.bind.any", "false"); // listen on the bind address only, not on 0.0.0.0
        NetworkConfig network = c.getNetworkConfig();
        network.setPort(port).setPortAutoIncrement(false);
        network.getInterfaces().setEnabled(true).setInterfaces(List.of(bind));
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setMembers(memberList(settings));

        MapConfig maps = new MapConfig(HazelcastClusterTransport.MAP_PREFIX + "*")
                .setBackupCount(1)
                .setAsyncBackupCount(0)
                .setTimeToLiveSeconds(0)
                .setMaxIdleSeconds(0)
                .setInMemoryFormat(InMemoryFormat.BINARY);
        // the map's own eviction config (a new EvictionConfig() counts ENTRY_COUNT, which an IMap refuses, and only
        // when the map is first used, not when the member starts)
        maps.getEvictionConfig().setEvictionPolicy(EvictionPolicy.NONE);
        c.addMapConfig(maps);
        c.addTopicConfig(new TopicConfig(HazelcastClusterTransport.INBOX_PREFIX + "*")
                .setGlobalOrderingEnabled(false)
                .setMultiThreadingEnabled(false)
                .setStatisticsEnabled(false));
        c.getSerializationConfig().addDataSerializableFactory(ClusterEnvelope.FACTORY_ID,
                type -> type == ClusterEnvelope.TYPE ? new ClusterEnvelope() : null);
        return c;
    }

    static List<String> memberList(Settings settings) {
        List<String> members = new ArrayList<>();
        for (String part : settings.get(StandaloneSettings.CLUSTER_MEMBERS).split(",")) {
            if (!part.isBlank()) {
                members.add(part.trim());
            }
        }
        return members;
    }

    /**
     * Hazelcast's static loggers (such as the one that warns about missing {@code --add-opens} at start) read the
     * logging type from a system property only, not from the member's configuration; without it they write through
     * java.util.logging in another format. Set when absent, never overridden.
     */
    static void routeStaticLoggingToSlf4j() {
        if (System.getProperty("hazelcast.logging.type") == null
                && System.getProperty("hazelcast.logging.class") == null) {
            System.setProperty("hazelcast.logging.type", "slf4j");
        }
    }
}
