package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.hazelcast.config.Config;
import com.hazelcast.config.EvictionPolicy;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.config.InvalidSettingException;
import org.mucscale.engine.config.Settings;

/**
 * The {@code mucscale.standalone.cluster-*} settings: what is refused (naming the key and the bad part) and the
 * Hazelcast configuration the accepted ones become. No member is started here.
 */
class HazelcastClusterSettingsTest {

    private static Settings settings(String... keyValues) {
        Map<String, String> text = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            text.put(keyValues[i], keyValues[i + 1]);
        }
        return Settings.fromText(StandaloneSettings.ALL, text);
    }

    @Test
    void memberList_withABadEntry_isRefusedNamingKeyAndEntry() {
        assertThatThrownBy(() -> settings(StandaloneSettings.CLUSTER_MEMBERS.key(),
                "10.0.0.1:5701, 10.0.0.2:57o1,10.0.0.3:5701"))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageStartingWith("mucscale.standalone.cluster-members must be a comma-separated list of "
                        + "host:port entries")
                .hasMessageContaining("'10.0.0.2:57o1' is not one");
        for (String bad : List.of("10.0.0.1", "10.0.0.1:0", "10.0.0.1:65536", "10.0.0.1:5701,", ":5701",
                "[::1]:5701", "host name:5701", "")) {
            assertThatThrownBy(() -> settings(StandaloneSettings.CLUSTER_MEMBERS.key(), bad))
                    .as(bad).isInstanceOf(InvalidSettingException.class)
                    .hasMessageContaining("mucscale.standalone.cluster-members");
        }
        assertThat(HazelcastMemberConfig.memberList(settings(StandaloneSettings.CLUSTER_MEMBERS.key(),
                " node1.example.org:5701 ,10.0.0.2:5702")))
                .containsExactly("node1.example.org:5701", "10.0.0.2:5702");
    }

    @Test
    void bindAddress_notAnIpv4Literal_isRefusedNamingTheKey() {
        for (String bad : List.of("localhost", "127.0.0", "127.0.0.256", "::1", "", "127.0.0.1:5701")) {
            assertThatThrownBy(() -> settings(StandaloneSettings.CLUSTER_BIND_ADDRESS.key(), bad))
                    .as(bad).isInstanceOf(InvalidSettingException.class)
                    .hasMessage("mucscale.standalone.cluster-bind-address must be an IPv4 address literal such as "
                            + "127.0.0.1 (not a host name), was '" + bad + "'");
        }
    }

    @Test
    void nameAndPortAndTimeout_outOfRange_areRefusedNamingTheKey() {
        assertThatThrownBy(() -> settings(StandaloneSettings.CLUSTER_NAME.key(), "my cluster"))
                .hasMessage("mucscale.standalone.cluster-name must be 1 to 64 letters, digits, '.', '_' or '-', "
                        + "was 'my cluster'");
        assertThatThrownBy(() -> settings(StandaloneSettings.CLUSTER_PORT.key(), "65536"))
                .hasMessageStartingWith("mucscale.standalone.cluster-port must be");
        assertThatThrownBy(() -> settings(StandaloneSettings.CLUSTER_FAILURE_TIMEOUT.key(), "1000"))
                .hasMessage("mucscale.standalone.cluster-failure-timeout must be a duration in milliseconds between "
                        + "2000 and 600000, was 1000");
    }

    @Test
    void defaults_becomeAMemberOnLoopbackThatNeverMulticasts() {
        Config c = HazelcastMemberConfig.build(Settings.defaults(StandaloneSettings.ALL), "n1");
        assertThat(c.getClusterName()).isEqualTo("mucscale");
        assertThat(c.getMemberAttributeConfig().getAttribute(HazelcastClusterTransport.NODE_ATTRIBUTE))
                .isEqualTo("n1");
        JoinConfig join = c.getNetworkConfig().getJoin();
        assertThat(join.getMulticastConfig().isEnabled()).isFalse();
        assertThat(join.getAutoDetectionConfig().isEnabled()).isFalse();
        assertThat(join.getTcpIpConfig().isEnabled()).isTrue();
        assertThat(join.getTcpIpConfig().getMembers()).containsExactly("127.0.0.1:5701");
        assertThat(c.getNetworkConfig().getPort()).isEqualTo(5701);
        assertThat(c.getNetworkConfig().isPortAutoIncrement()).isFalse();
        assertThat(c.getNetworkConfig().getInterfaces().isEnabled()).isTrue();
        assertThat(c.getNetworkConfig().getInterfaces().getInterfaces()).containsExactly("127.0.0.1");
        assertThat(c.getProperty("hazelcast.socket.bind.any")).isEqualTo("false");
        assertThat(c.getProperty("hazelcast.phone.home.enabled")).isEqualTo("false");
        assertThat(c.getProperty("hazelcast.logging.type")).isEqualTo("slf4j");
        assertThat(c.getProperty("hazelcast.shutdownhook.enabled")).isEqualTo("false");
        assertThat(c.getProperty("hazelcast.heartbeat.interval.seconds")).isEqualTo("1");
        assertThat(c.getProperty("hazelcast.max.no.heartbeat.seconds")).isEqualTo("3");
        assertThat(c.getProperty("hazelcast.invocation.retry.pause.millis")).isEqualTo("50");
        assertThat(c.getProperty("hazelcast.invocation.max.retry.count")).isEqualTo("2500");
        assertThat(c.getProperty("hazelcast.connection.monitor.interval")).isEqualTo("50");

        MapConfig map = c.findMapConfig(HazelcastClusterTransport.MAP_PREFIX + "rooms");
        assertThat(map.getBackupCount()).isEqualTo(1);
        assertThat(map.getAsyncBackupCount()).isZero();
        assertThat(map.getTimeToLiveSeconds()).isZero();
        assertThat(map.getMaxIdleSeconds()).isZero();
        assertThat(map.getEvictionConfig().getEvictionPolicy()).isEqualTo(EvictionPolicy.NONE);
    }

    @Test
    void failureTimeout_isRoundedUpToWholeSecondsOfHeartbeats() {
        Config c = HazelcastMemberConfig.build(
                settings(StandaloneSettings.CLUSTER_FAILURE_TIMEOUT.key(), "4500",
                        StandaloneSettings.CLUSTER_BIND_ADDRESS.key(), "10.1.2.3",
                        StandaloneSettings.CLUSTER_PORT.key(), "0"), "n1");
        assertThat(c.getProperty("hazelcast.max.no.heartbeat.seconds")).isEqualTo("5");
        assertThat(c.getNetworkConfig().getInterfaces().getInterfaces()).containsExactly("10.1.2.3");
        assertThat(c.getNetworkConfig().getPort()).isZero();
    }
}
