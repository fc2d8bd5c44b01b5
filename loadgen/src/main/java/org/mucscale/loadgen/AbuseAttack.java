package org.mucscale.loadgen;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The attacks of the {@code abuse} scenario, played by extra accounts (not room members, never senders of measured
 * messages) against the run's largest room while the normal occupants keep chatting: rejoin floods (join, a burst of
 * messages, leave, again), join/leave churn, nickname-change spam, invitation spam, forged declines, and room-creation
 * spam (a new room per stanza, all kept). One thread ({@code loadgen-abuse}) sends; each attacker plays one kind, in turn, at {@code abuse.ratePerSec}
 * stanzas per second over all attackers. Every attack stanza carries the id {@code ab-<kind>-<n>}, so the error
 * replies (counted on the processor threads by {@link #received}) say which attack was refused and how.
 */
final class AbuseAttack implements Runnable {
    static final List<String> KINDS = List.of("rejoin", "churn", "nick", "invite", "decline", "create");

    private final LoadRun run;
    private final Client[] attackers;
    private final String victimRoom;
    private final double ratePerSec;
    private final String domain;
    private final String mucDomain;
    private final String userPrefix;
    private final int firstUser;
    private final int users;
    private final long[] step;
    private volatile boolean stop;
    private final Map<String, LongAdder> sent = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> refused = new ConcurrentHashMap<>();
    private final Map<String, String> sampleText = new ConcurrentHashMap<>();
    private long total;
    private double seconds;

    AbuseAttack(LoadRun run, Client[] attackers, String victimRoom) {
        this.run = run;
        this.attackers = attackers;
        this.victimRoom = victimRoom;
        Scenario s = run.scenario;
        this.ratePerSec = s.abuse().ratePerSec();
        this.domain = s.server().domain();
        this.mucDomain = s.server().mucDomain();
        this.userPrefix = s.accounts().prefix();
        this.firstUser = s.accounts().firstIndex();
        this.users = s.users();
        this.step = new long[attackers.length];
    }

    /** The kind attacker {@code i} plays: the scenario's kinds in turn. */
    String kindOf(int i) {
        List<String> kinds = run.scenario.abuse().kinds();
        return kinds.get(i % kinds.size());
    }

    void stop() {
        stop = true;
    }

    @Override
    public void run() {
        long start = System.nanoTime();
        long gap = (long) (1e9 / ratePerSec);
        long next = start;
        int a = 0;
        while (!stop) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
                continue;
            }
            next += gap;
            Client c = attackers[a];
            if (c.state == Client.JOINED) { // logged in and in its home room: alive
                String xml = nextStanza(a, kindOf(a));
                c.write(xml.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                total++;
            }
            a = (a + 1) % attackers.length;
        }
        seconds = (System.nanoTime() - start) / 1e9;
    }

    private String nextStanza(int a, String kind) {
        long n = step[a]++;
        String nick = "ab" + a;
        String id = "ab-" + kind + "-" + n;
        count(sent, kind);
        return switch (kind) {
            // join, three messages, leave; again: budgets must survive the rejoin
            case "rejoin" -> switch ((int) (n % 5)) {
                case 0 -> join(victimRoom, nick, id);
                case 4 -> leave(victimRoom, nick, id);
                default -> "<message id='" + id + "' to='" + victimRoom + "' type='groupchat'><body>spam " + n
                        + "</body></message>";
            };
            case "churn" -> n % 2 == 0 ? join(victimRoom, nick, id) : leave(victimRoom, nick, id);
            // the first stanza joins, every later one changes the nickname
            case "nick" -> n == 0 ? join(victimRoom, nick, id) : join(victimRoom, nick + "x" + n, id);
            case "invite" -> n == 0 ? join(victimRoom, nick, id)
                    : "<message id='" + id + "' to='" + victimRoom + "'><x xmlns='http://jabber.org/protocol/muc#user'>"
                    + "<invite to='" + randomUser(n) + "'><reason>free gold</reason></invite></x></message>";
            case "decline" -> "<message id='" + id + "' to='" + victimRoom + "'><x xmlns='http://jabber.org/protocol/"
                    + "muc#user'><decline to='" + randomUser(n) + "'><reason>reflected</reason></decline></x></message>";
            // a new room each time, kept (the attacker stays in every one)
            case "create" -> join("lgabuse" + a + "x" + n + "@" + mucDomain, nick, id);
            default -> throw new IllegalStateException(kind);
        };
    }

    private String randomUser(long n) {
        return userPrefix + (firstUser + (int) Math.floorMod(n * 7919, users)) + "@" + domain;
    }

    private static String join(String room, String nick, String id) {
        return "<presence id='" + id + "' to='" + room + "/" + nick + "'><x xmlns='http://jabber.org/protocol/muc'>"
                + "<history maxstanzas='0'/></x></presence>";
    }

    private static String leave(String room, String nick, String id) {
        return "<presence id='" + id + "' type='unavailable' to='" + room + "/" + nick + "'/>";
    }

    /** An attacker's stanza while the attack runs (processor thread): counts refusals by attack and condition. */
    void received(byte[] b, int start, int end, int nameStart, int nameEnd, int startTagEnd) {
        String type = Bytes.attributeString(b, start, startTagEnd, "type");
        if (!"error".equals(type)) {
            return;
        }
        String id = Bytes.attributeString(b, start, startTagEnd, "id");
        String kind = id != null && id.startsWith("ab-") && id.indexOf('-', 3) > 0 ? id.substring(3, id.indexOf('-', 3))
                : "other";
        String condition = Bytes.firstChildNameAfter(b, start, end, Bytes.ascii("<error"));
        String key = kind + " " + Bytes.text(b, nameStart, nameEnd) + " " + condition;
        count(refused, key);
        if (!sampleText.containsKey(key)) {
            String text = Bytes.elementText(b, start, end, "text");
            sampleText.putIfAbsent(key, text == null ? "" : text);
        }
    }

    private static void count(Map<String, LongAdder> m, String key) {
        m.computeIfAbsent(key, k -> new LongAdder()).increment();
    }

    /** What was sent and refused, for the results file. */
    ObjectNode report(com.fasterxml.jackson.databind.ObjectMapper mapper) {
        ObjectNode o = mapper.createObjectNode();
        o.put("attackers", attackers.length);
        o.put("targetRoom", victimRoom);
        o.put("ratePerSecConfigured", ratePerSec);
        o.put("stanzasSent", total);
        o.put("ratePerSecAchieved", seconds > 0 ? Sampler.round(total / seconds) : 0);
        ObjectNode s = o.putObject("sentByKind");
        new TreeMap<>(sent).forEach((k, v) -> s.put(k, v.sum()));
        ObjectNode r = o.putObject("refusedByKindStanzaCondition");
        new TreeMap<>(refused).forEach((k, v) -> r.put(k, v.sum()));
        ObjectNode t = o.putObject("refusalTexts");
        new TreeMap<>(sampleText).forEach(t::put);
        long refusals = 0;
        for (LongAdder v : refused.values()) {
            refusals += v.sum();
        }
        o.put("refused", refusals);
        return o;
    }
}
