package org.mucscale.engine.metrics;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProbeTest {

    /** A recording implementation of our own port: remembers what was sent. */
    private static final class RecordingTransport implements ProbeTransport {
        final List<String> rooms = new ArrayList<>();
        final List<String> bodies = new ArrayList<>();

        @Override
        public void send(String room, String body) {
            rooms.add(room);
            bodies.add(body);
        }
    }

    @Test
    void onReceived_ownStampedMessage_recordsSendToReceiveLatency() {
        ManualClock clock = new ManualClock();
        try (MucScaleMetrics metrics = new MucScaleMetrics(MetricsConfig.defaults(), clock)) {
            RecordingTransport transport = new RecordingTransport();
            Probe probe = new Probe(transport, List.of("probe@conference.example", "lobby@conference.example"),
                    Duration.ofSeconds(5), metrics, clock);

            probe.sendOnce();
            clock.advanceMs(7);

            assertThat(transport.rooms).containsExactly("probe@conference.example", "lobby@conference.example");
            assertThat(probe.onReceived(transport.bodies.get(0), clock.nanoTime())).isTrue();
            assertThat(metrics.probeLatency.getSnapshot().getMax()).isBetween(6_990_000L, 7_010_000L);
            assertThat(metrics.probesSent.getCount()).isEqualTo(2);
            assertThat(metrics.probesReceived.getCount()).isEqualTo(1);
        }
    }

    @Test
    void onReceived_foreignOrMalformedBody_isIgnored() {
        ManualClock clock = new ManualClock();
        try (MucScaleMetrics metrics = new MucScaleMetrics(MetricsConfig.defaults(), clock)) {
            RecordingTransport transport = new RecordingTransport();
            Probe probe = new Probe(transport, List.of("probe@c"), Duration.ofSeconds(5), metrics, clock);
            probe.sendOnce();
            String own = transport.bodies.get(0);

            assertThat(probe.onReceived("hello", 1)).isFalse();
            assertThat(probe.onReceived(null, 1)).isFalse();
            assertThat(probe.onReceived("mucscale-probe 8000000000000000 1 123", 1)).isFalse();
            assertThat(probe.onReceived(own.substring(0, own.lastIndexOf(' ')) + " 12x", 1)).isFalse();
            assertThat(metrics.probesReceived.getCount()).isZero();
        }
    }

    @Test
    void constructor_withoutRooms_isRefused() {
        try (MucScaleMetrics metrics = new MucScaleMetrics(MetricsConfig.defaults(), new ManualClock())) {
            assertThatThrownBy(() -> new Probe(new RecordingTransport(), List.of(), Duration.ofSeconds(1), metrics,
                    new ManualClock())).hasMessageContaining("at least one room");
        }
    }
}
