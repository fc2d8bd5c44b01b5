package org.mucscale.engine.muc;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

class MucFloodControlTest extends MucTestBase {
    private final List<MucListener.FloodLimit> floods = new CopyOnWriteArrayList<>();

    private void startWith(Map<String, String> settings) {
        start(settings, b -> b.listener(new MucListener() {
            @Override
            public void floodRejected(org.mucscale.engine.stanza.Jid room, FloodLimit limit) {
                floods.add(limit);
            }
        }));
    }

    @Test
    void occupantRate_overBurst_resourceConstraintWithText_thenRefills() {
        startWith(Map.of("mucscale.muc.occupant-burst", "3", "mucscale.muc.occupant-messages-per-second", "2"));
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        for (int i = 0; i < 4; i++) {
            send(groupchat(bob, "r1", "m" + i));
        }
        List<XmlElement> toBob = out.take(bob);
        assertThat(named(toBob, "message")).hasSize(4);
        XmlElement err = toBob.get(3);
        assertThat(errorCondition(err)).isEqualTo("resource-constraint");
        assertThat(err.child("error").childText("text")).contains("too fast").contains("2 messages per second");
        assertThat(out.take(alice)).hasSize(3);
        assertThat(floods).containsExactly(MucListener.FloodLimit.OCCUPANT_RATE);
        clock.advanceMillis(500); // one token at 2/s
        send(groupchat(bob, "r1", "again"));
        assertThat(only(out.take(alice)).childText("body")).isEqualTo("again");
    }

    @Test
    void moderators_areExempt_unlessConfigured() {
        startWith(Map.of("mucscale.muc.occupant-burst", "1"));
        createInstant(alice, "r1", "Alice");
        for (int i = 0; i < 5; i++) {
            send(groupchat(alice, "r1", "m" + i));
        }
        assertThat(out.take(alice)).hasSize(5);
        startWith(Map.of("mucscale.muc.occupant-burst", "1", "mucscale.muc.moderators-exempt", "false"));
        createInstant(alice, "r1", "Alice");
        send(groupchat(alice, "r1", "a"));
        send(groupchat(alice, "r1", "b"));
        List<XmlElement> got = out.take(alice);
        assertThat(errorCondition(got.get(1))).isEqualTo("resource-constraint");
    }

    @Test
    void roomRate_limitsAllOccupantsTogether() {
        startWith(Map.of("mucscale.muc.room-burst", "2", "mucscale.muc.room-messages-per-second", "1"));
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        join(carol, "r1", "Carol");
        out.clear();
        send(groupchat(bob, "r1", "1"));
        send(groupchat(carol, "r1", "2"));
        send(groupchat(bob, "r1", "3"));
        XmlElement err = out.take(bob).get(2);
        assertThat(errorCondition(err)).isEqualTo("resource-constraint");
        assertThat(err.child("error").childText("text")).contains("room");
        assertThat(floods).containsExactly(MucListener.FloodLimit.ROOM_RATE);
    }

    @Test
    void messageSizeAndLines_policyViolation() {
        startWith(Map.of("mucscale.muc.max-message-bytes", "100", "mucscale.muc.max-message-lines", "3"));
        createInstant(alice, "r1", "Alice");
        send(groupchat(alice, "r1", "\u00e9".repeat(51))); // 102 bytes in UTF-8
        XmlElement err = only(out.take(alice));
        assertThat(errorCondition(err)).isEqualTo("policy-violation");
        assertThat(errorType(err)).isEqualTo("modify");
        assertThat(err.child("error").childText("text")).contains("102 bytes").contains("100");
        send(groupchat(alice, "r1", "a\nb\nc\nd"));
        err = only(out.take(alice));
        assertThat(errorCondition(err)).isEqualTo("policy-violation");
        assertThat(err.child("error").childText("text")).contains("4").contains("lines");
        send(groupchat(alice, "r1", "a\nb\nc"));
        assertThat(only(out.take(alice)).childText("body")).isEqualTo("a\nb\nc");
        assertThat(floods).containsExactly(MucListener.FloodLimit.MESSAGE_SIZE, MucListener.FloodLimit.MESSAGE_LINES);
    }

    @Test
    void oversizedStanza_refusedBeforeQueueing() {
        startWith(Map.of("mucscale.muc.max-stanza-chars", "1000"));
        createInstant(alice, "r1", "Alice");
        send(groupchat(alice, "r1", "x".repeat(2000)));
        XmlElement err = only(out.take(alice));
        assertThat(errorCondition(err)).isEqualTo("policy-violation");
        assertThat(floods).containsExactly(MucListener.FloodLimit.STANZA_SIZE);
    }

    @Test
    void presenceUpdates_overRate_areNotBroadcastButKeptForJoiners() {
        startWith(Map.of("mucscale.muc.occupant-burst", "2", "mucscale.muc.occupant-messages-per-second", "1"));
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        for (int i = 0; i < 4; i++) {
            send(XmlElement.builder("presence").attribute("from", bob.toString())
                    .attribute("to", occ("r1", "Bob").toString()).textChild("status", "s" + i).build());
        }
        assertThat(out.take(alice)).extracting(p -> p.childText("status")).containsExactly("s0", "s1");
        assertThat(floods).containsExactly(MucListener.FloodLimit.OCCUPANT_RATE, MucListener.FloodLimit.OCCUPANT_RATE);
        List<XmlElement> carolGot = join(carol, "r1", "Carol");
        XmlElement bobSeen = carolGot.stream().filter(p -> occ("r1", "Bob").toString().equals(p.attribute("from")))
                .findFirst().orElseThrow();
        assertThat(bobSeen.childText("status")).isEqualTo("s3");
    }

    @Test
    void reconfigure_dynamicLimitsApplyAtOnce_staticOnesReported() {
        startWith(Map.of("mucscale.muc.occupant-burst", "1", "mucscale.muc.occupant-messages-per-second", "1"));
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        send(groupchat(bob, "r1", "a"));
        send(groupchat(bob, "r1", "b"));
        assertThat(errorCondition(out.take(bob).get(1))).isEqualTo("resource-constraint");
        List<String> restart = muc.reconfigure(MucConfig.from(org.mucscale.engine.config.Settings.fromText(
                MucSettings.ALL, Map.of("mucscale.muc.shard-threads", "2", "mucscale.muc.max-message-lines", "1",
                        "mucscale.muc.occupant-burst", "1", "mucscale.muc.occupant-messages-per-second", "1",
                        "mucscale.muc.history-size", "5"))));
        assertThat(restart).containsExactly("mucscale.muc.history-size");
        clock.advanceMillis(1000);
        send(groupchat(bob, "r1", "two\nlines"));
        XmlElement err = only(out.take(bob));
        assertThat(errorCondition(err)).isEqualTo("policy-violation");
    }

    @Test
    void chatStates_withoutBody_shareTheOccupantRate() {
        startWith(Map.of("mucscale.muc.occupant-burst", "2", "mucscale.muc.occupant-messages-per-second", "1"));
        createInstant(alice, "r1", "Alice");
        join(bob, "r1", "Bob");
        out.clear();
        for (int i = 0; i < 3; i++) {
            send(XmlElement.builder("message").attribute("from", bob.toString()).attribute("to", room("r1").toString())
                    .attribute("type", "groupchat").child(XmlElement.builder("composing",
                            "http://jabber.org/protocol/chatstates").build()).build());
        }
        assertThat(out.take(alice)).hasSize(2);
        assertThat(errorCondition(out.take(bob).get(2))).isEqualTo("resource-constraint");
    }
}
