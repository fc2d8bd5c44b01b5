package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mucscale.openfire.RealOpenfireIT.DOMAIN;
import static org.mucscale.openfire.RealOpenfireIT.USER_PASSWORD;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jivesoftware.smack.tcp.XMPPTCPConnection;
import org.jivesoftware.smackx.muc.MultiUserChat;

/**
 * A client that enables stream management (XEP-0198) after it already gets a room's stanzas (issue 41; XEP-0198 allows
 * {@code <enable/>} at any time after binding). Stanzas mucscale decided to write uncounted before the enable, but
 * that reach the client after Openfire's {@code <enabled/>}, are counted by the client; unless the server counts them
 * too, Openfire closes the stream at the client's next acknowledgement ("Client acknowledges stanzas that we didn't
 * send"). The check makes that certain rather than a race: the client stops reading, so the room's stanzas back up
 * and mucscale holds them for the slow recipient; it enables stream management while they wait (Openfire's
 * {@code <enabled/>} goes into the channel ahead of them); then it reads everything, answering each {@code <r/>} with
 * its count, acknowledges all at the end and pings. Fails without {@link LateCounts}: the stream is closed.
 */
final class LateStreamManagementCheck {
    private static final Pattern BODY = Pattern.compile("<body>late(\\d+) ");

    private LateStreamManagementCheck() {
    }

    static void heldStanzasCountedWhenEnabledLate() throws Exception {
        // raised for the burst, then put back to their defaults (key -> {raised, default})
        Map<String, String[]> limits = new LinkedHashMap<>();
        limits.put("mucscale.muc.occupant-messages-per-second", new String[] {"100000", "5"});
        limits.put("mucscale.muc.occupant-burst", new String[] {"100000", "20"});
        limits.put("mucscale.muc.room-messages-per-second", new String[] {"100000", "500"});
        limits.put("mucscale.muc.room-burst", new String[] {"100000", "1000"});
        limits.put("mucscale.openfire.recipient-max-queued-bytes",
                new String[] {String.valueOf(256L * 1024 * 1024), String.valueOf(1024L * 1024)});
        for (Map.Entry<String, String[]> e : limits.entrySet()) {
            ModernClientChecks.setOpenfireProperty(e.getKey(), e.getValue()[0]);
        }
        XMPPTCPConnection alice = RealOpenfireIT.connect("alice", false);
        String room = "sm-late@mucscale." + DOMAIN;
        MultiUserChat a = ModernClientChecks.createRoom(alice, room);
        List<String> aliceGot = Collections.synchronizedList(new ArrayList<>());
        a.addMessageListener(m -> {
            if (m.getBody() != null) {
                aliceGot.add(m.getBody());
            }
        });
        String resource = "it-raw-" + RealOpenfireIT.RESOURCES.incrementAndGet();
        try (TcpXmppClient dave = TcpXmppClient.login(RealOpenfireIT.c2sPort, DOMAIN, "dave", USER_PASSWORD,
                resource, 4096)) {
            dave.send("<presence to='" + room + "/dave'><x xmlns='http://jabber.org/protocol/muc'/></presence>");
            dave.await(e -> e.startsWith("<presence") && (e.contains("code=\"110\"") || e.contains("code='110'")),
                    "dave's self-presence");
            double lateBefore = ModernClientChecks.gauge("mucscale_openfire_delivered_counted_at_write");

            dave.pause();
            String filler = "abcdefghij ".repeat(550); // about 6 kB a copy: 1,000 of them outgrow every buffer
            int held = 1_000;
            for (int i = 0; i < held; i++) {
                a.sendMessage("late" + i + " " + filler);
            }
            RealOpenfireIT.waitUntil("the room broadcast the first messages", Duration.ofSeconds(30),
                    () -> aliceGot.size() >= held);
            dave.send("<enable xmlns='urn:xmpp:sm:3'/>");
            Thread.sleep(1_000); // Openfire enables and writes <enabled/> into the channel, ahead of what waits
            int counted = 20;
            for (int i = held; i < held + counted; i++) {
                a.sendMessage("late" + i + " counted");
            }
            RealOpenfireIT.waitUntil("the room broadcast the rest", Duration.ofSeconds(30),
                    () -> aliceGot.size() >= held + counted);
            dave.resume();

            List<Integer> got = new ArrayList<>();
            boolean enabled = false;
            long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (got.size() < held + counted && System.nanoTime() < end) {
                String e = dave.next(200);
                if (e == null) {
                    continue;
                }
                assertThat(e).as("the stream stays open (dave has %d of %d)", got.size(), held + counted)
                        .doesNotStartWith("<stream:error").isNotEqualTo("</stream:stream>");
                enabled |= e.startsWith("<enabled");
                Matcher m = BODY.matcher(e);
                if (e.startsWith("<message") && m.find()) {
                    got.add(Integer.parseInt(m.group(1)));
                }
            }
            assertThat(enabled).as("Openfire enabled stream management").isTrue();
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < held + counted; i++) {
                expected.add(i);
            }
            assertThat(got).as("dave: each message once, in order").isEqualTo(expected);

            // acknowledge everything received, then ping: Openfire answers only if it agreed with the count
            dave.send("<a xmlns='urn:xmpp:sm:3' h='" + dave.handled() + "'/>");
            dave.send("<iq type='get' id='late-ping' to='" + DOMAIN + "'><ping xmlns='urn:xmpp:ping'/></iq>");
            dave.await(e -> e.startsWith("<iq") && e.contains("late-ping") && e.contains("result"),
                    "the ping's answer after dave acknowledged " + dave.handled() + " stanzas");
            assertThat(ModernClientChecks.gauge("mucscale_openfire_delivered_counted_at_write") - lateBefore)
                    .as("stanzas held from before the enable were counted at their write").isGreaterThanOrEqualTo(1);
        } finally {
            a.leave();
            for (Map.Entry<String, String[]> e : limits.entrySet()) {
                ModernClientChecks.setOpenfireProperty(e.getKey(), e.getValue()[1]);
            }
        }
    }
}
