package org.mucscale.engine.muc;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the {@code abuse} scenario's attacks make mucscale send, counted through real rooms on a manual clock, so the
 * figures are exact and independent of the machine: each attack kind as the load generator plays it (two accounts,
 * 25 stanzas/s each, against a room of 40), for 40 s. Every stanza counted here also crosses the XMPP server once
 * (behind Prosody, at about the cost of a delivery each). Compared: the defaults, and the defaults before the onset
 * was cut (join burst 10 per user and room, every refusal answered). Prints the table docs/benchmarks/abuse.md quotes.
 */
class MucAbuseFanOutTest extends MucTestBase {
    private static final int OCCUPANTS = 40;
    private static final int STEP_MS = 20; // two accounts at 25 stanzas/s each: one stanza every 20 ms
    private static final int SECONDS = 40;
    private static final List<String> KINDS = List.of("rejoin", "churn", "nick", "invite", "decline", "create");
    static final Map<String, String> BEFORE = Map.of("mucscale.muc.occupant-join-burst", "10",
            "mucscale.muc.user-error-burst", "1000000", "mucscale.muc.user-errors-per-minute", "6000000");

    /** Stanzas out per second of attack, and of them errors. */
    record Counts(long[] out, long[] errors) {
        long out(int fromS, int toS) {
            long n = 0;
            for (int s = fromS; s < toS; s++) {
                n += out[s];
            }
            return n;
        }

        long errors(int fromS, int toS) {
            long n = 0;
            for (int s = fromS; s < toS; s++) {
                n += errors[s];
            }
            return n;
        }
    }

    private Counts play(Map<String, String> settings, String kind) {
        start(settings, b -> { });
        createInstant(alice, "hall", "Alice");
        for (int i = 1; i < OCCUPANTS; i++) {
            join(Jid.parse("player" + i + "@example.org/game"), "hall", "P" + i);
        }
        out.clear();
        Jid[] attackers = {Jid.parse("mallory0@evil.example/bot"), Jid.parse("mallory1@evil.example/bot")};
        long[] step = new long[2];
        long[] perSecond = new long[SECONDS];
        long[] errorsPerSecond = new long[SECONDS];
        int stanzas = SECONDS * 1000 / STEP_MS;
        int seen = 0;
        for (int i = 0; i < stanzas; i++) {
            int a = i % 2;
            send(attack(kind, a, attackers[a], step[a]++));
            List<String> seq = out.sequence();
            int second = i * STEP_MS / 1000;
            for (int k = seen; k < seq.size(); k++) {
                perSecond[second]++;
                if (seq.get(k).endsWith(" error")) {
                    errorsPerSecond[second]++;
                }
            }
            seen = seq.size();
            clock.advanceMillis(STEP_MS);
        }
        return new Counts(perSecond, errorsPerSecond);
    }

    /** The stanza {@code AbuseAttack} sends as its {@code n}th of this kind. */
    private XmlElement attack(String kind, int a, Jid from, long n) {
        String nick = "ab" + a;
        return switch (kind) {
            case "rejoin" -> switch ((int) (n % 5)) {
                case 0 -> joinStanza(from, "hall", nick);
                case 4 -> unavailable(from, nick);
                default -> groupchat(from, "hall", "spam " + n);
            };
            case "churn" -> n % 2 == 0 ? joinStanza(from, "hall", nick) : unavailable(from, nick);
            case "nick" -> joinStanza(from, "hall", n == 0 ? nick : nick + "x" + n);
            case "invite" -> n == 0 ? joinStanza(from, "hall", nick) : XmlElement.builder("message")
                    .attribute("from", from.toString()).attribute("to", room("hall").toString())
                    .child(XmlElement.builder("x", NS_USER).child(XmlElement.builder("invite")
                            .attribute("to", "player" + (1 + n % (OCCUPANTS - 1)) + "@example.org").build())
                            .build()).build();
            case "decline" -> XmlElement.builder("message").attribute("from", from.toString())
                    .attribute("to", room("hall").toString())
                    .child(XmlElement.builder("x", NS_USER).child(XmlElement.builder("decline")
                            .attribute("to", "player" + (1 + n % (OCCUPANTS - 1)) + "@example.org").build())
                            .build()).build();
            case "create" -> joinStanza(from, "abuse" + a + "x" + n, nick);
            default -> throw new IllegalArgumentException(kind);
        };
    }

    private XmlElement unavailable(Jid from, String nick) {
        return XmlElement.builder("presence").attribute("from", from.toString())
                .attribute("to", occ("hall", nick).toString()).attribute("type", "unavailable").build();
    }

    @Test
    void attackFanOut_onsetCutByTheDefaults_table() {
        Map<String, Counts> before = new LinkedHashMap<>();
        Map<String, Counts> after = new LinkedHashMap<>();
        for (String kind : KINDS) {
            before.put(kind, play(BEFORE, kind));
            after.put(kind, play(Map.of(), kind));
        }
        StringBuilder t = new StringBuilder("| attack (2 accounts, 50 stanzas/s, room of 40) | stanzas out in the first"
                + " 2 s: before → after | first 5 s | all 40 s | of them errors (40 s) |\n|---|---|---|---|---|\n");
        long b5 = 0;
        long a5 = 0;
        long b40 = 0;
        long a40 = 0;
        for (String kind : KINDS) {
            Counts b = before.get(kind);
            Counts a = after.get(kind);
            t.append(String.format("| %s | %,d → %,d | %,d → %,d | %,d → %,d | %,d → %,d |%n", kind, b.out(0, 2),
                    a.out(0, 2), b.out(0, 5), a.out(0, 5), b.out(0, SECONDS), a.out(0, SECONDS),
                    b.errors(0, SECONDS), a.errors(0, SECONDS)));
            b5 += b.out(0, 5);
            a5 += a.out(0, 5);
            b40 += b.out(0, SECONDS);
            a40 += a.out(0, SECONDS);
        }
        t.append(String.format("| all | | %,d → %,d | %,d → %,d | |%n", b5, a5, b40, a40));
        System.out.println(t);
        // the onset: what the six accounts make the room send in their first 5 s is cut by more than half
        assertThat(a5).as(t.toString()).isLessThan(b5 / 2);
        // the rejoin flood, the costliest kind, in its first 2 s
        assertThat(after.get("rejoin").out(0, 2)).as(t.toString()).isLessThan(before.get("rejoin").out(0, 2) / 2);
        // and over the whole attack by more than 40 % (what is left is mostly the join rate's refill, 20 per minute)
        assertThat(a40).as(t.toString()).isLessThan(b40 * 6 / 10);
    }
}
