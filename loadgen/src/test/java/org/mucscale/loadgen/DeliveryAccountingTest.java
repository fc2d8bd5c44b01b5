package org.mucscale.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.apache.mina.core.buffer.IoBuffer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The receive side of the measurement, fed real stanza bytes as a server would send them: latency against the
 * scheduled send time, and exact duplicate / reordering / loss detection per sender.
 */
class DeliveryAccountingTest {
    private LoadRun run;
    private Client receiver;

    @BeforeEach
    void joinedReceiver() {
        Scenario s = ScenarioLoader.load("smoke", List.of("users=4", "rooms.count=1"));
        run = new LoadRun(s, null, "test", null);
        RoomState room = new RoomState(0, "lgroom1@conference.localhost", 4);
        receiver = new Client(run, 1, "lg2", room, 1);
        room.members[1] = receiver;
        run.profiles.assign(new Client[] {receiver}, 0); // the plain TCP profile (no clients.* options set)
        receiver.state = Client.JOINING;
        receiver.firstJoinSentNs = System.nanoTime();
        feed("<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>");
        feed("<presence from='lgroom1@conference.localhost/lg2' to='lg2@localhost/lg'><x xmlns='http://jabber.org/protocol/muc#user'>"
                + "<item affiliation='none' role='participant'/><status code='110'/></x></presence>");
        assertThat(receiver.isJoined()).isTrue();
    }

    private void feed(String xml) {
        receiver.received(IoBuffer.wrap(xml.getBytes(StandardCharsets.UTF_8)));
    }

    private void deliver(int senderSlot, int seq, long scheduledUs) {
        feed("<message from='lgroom1@conference.localhost/lg" + (senderSlot + 1) + "' to='lg2@localhost/lg' type='groupchat' id='m'>"
                + "<body>~lg~" + senderSlot + "." + seq + "." + scheduledUs + "~ ketchup xxxxxxxx</body></message>");
    }

    @Test
    void latency_isMeasuredFromTheScheduledSendTime_notFromArrivalOfEarlierTraffic() throws InterruptedException {
        long scheduled = run.nowUs();
        Thread.sleep(250); // the pacer (or the server) stalled: this message was due 250 ms before it arrives
        deliver(0, 1, scheduled);
        Histogram h = run.stats.deliveryUs.getIntervalHistogram();
        assertThat(h.getTotalCount()).isEqualTo(1);
        assertThat(h.getMaxValue()).isBetween(250_000L, 250_000L + 5_000_000L);
    }

    @Test
    void delivery_duplicateAndReordered_areCountedApartFromDistinctDeliveries() {
        long now = run.nowUs();
        deliver(0, 1, now);
        deliver(0, 3, now);   // 2 skipped so far
        deliver(0, 2, now);   // arrives late: reordered, not lost
        deliver(0, 2, now);   // again: duplicate
        deliver(2, 1, now);   // another sender's own sequence
        assertThat(run.stats.distinctDeliveries.sum()).isEqualTo(4);
        assertThat(run.stats.duplicates.sum()).isEqualTo(1);
        assertThat(run.stats.reordered.sum()).isEqualTo(1);
        assertThat(receiver.tracker().distinct(0)).isEqualTo(3);
        assertThat(receiver.tracker().distinct(2)).isEqualTo(1);
        assertThat(run.stats.deliveryUs.getIntervalHistogram().getTotalCount()).isEqualTo(4);
    }

    @Test
    void delivery_ownEchoAndRoomSubject_areNotDeliveries() {
        deliver(1, 1, run.nowUs()); // slot 1 is the receiver itself: the room reflects its own message
        feed("<message from='lgroom1@conference.localhost' type='groupchat'><subject/></message>");
        assertThat(run.stats.distinctDeliveries.sum()).isZero();
        assertThat(run.stats.echoes.sum()).isEqualTo(1);
        assertThat(run.stats.errorCount()).isZero();
    }

    @Test
    void delivery_errorBounce_isCountedByConditionNotAsDelivery() {
        feed("<message from='lgroom1@conference.localhost' type='error'><body>~lg~1.1.5~</body>"
                + "<error type='modify'><not-acceptable xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></message>");
        assertThat(run.stats.distinctDeliveries.sum()).isZero();
        assertThat(run.stats.errors()).containsEntry("message-error:not-acceptable", 1L);
    }

    @Test
    void seqTracker_gapsFarBehind_areDistinctButCannotBeCheckedForDuplicates() {
        SeqTracker t = new SeqTracker(2);
        assertThat(t.record(1, 1)).isEqualTo(SeqTracker.IN_ORDER);
        assertThat(t.record(1, 2)).isEqualTo(SeqTracker.IN_ORDER);
        assertThat(t.record(1, 100)).isEqualTo(SeqTracker.AHEAD);
        assertThat(t.record(1, 50)).isEqualTo(SeqTracker.REORDERED);
        assertThat(t.record(1, 50)).isEqualTo(SeqTracker.DUPLICATE);
        assertThat(t.record(1, 3)).isEqualTo(SeqTracker.LATE_BEYOND_WINDOW);
        assertThat(t.distinct(1)).isEqualTo(5);
        assertThat(t.highest(1)).isEqualTo(100);
        // loss per pair is sent - distinct: a sender that sent 100 lost 95 to this receiver
        assertThat(100 - t.distinct(1)).isEqualTo(95);
    }
}
