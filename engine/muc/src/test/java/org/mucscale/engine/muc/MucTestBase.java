package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.mucscale.engine.config.Settings;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Drives a real MucService through its public entry with a recording Delivery. After every test the room invariants
 * are checked on the room threads, the service is stopped and its threads must be gone.
 */
abstract class MucTestBase {
    static final String SERVICE = "muc.example.org";
    static final String NS_MUC = "http://jabber.org/protocol/muc";
    static final String NS_USER = "http://jabber.org/protocol/muc#user";
    static final String NS_ADMIN = "http://jabber.org/protocol/muc#admin";
    static final String NS_OWNER = "http://jabber.org/protocol/muc#owner";
    static final String NS_DATA = "jabber:x:data";

    RecordingDelivery out;
    ManualClock clock;
    MucService muc;
    private final AtomicInteger ids = new AtomicInteger();

    final Jid alice = Jid.parse("alice@example.org/laptop");
    final Jid bob = Jid.parse("bob@example.org/phone");
    final Jid carol = Jid.parse("carol@example.org/desk");
    final Jid dave = Jid.parse("dave@example.org/tab");

    @BeforeEach
    void startService() {
        start(Map.of(), b -> { });
    }

    @AfterEach
    void stopService() {
        if (muc != null && muc.isRunning()) {
            List<Thread> threads = muc.threads();
            try {
                muc.checkInvariants();
            } finally {
                muc.stop();
            }
            for (Thread t : threads) {
                assertThat(t.isAlive()).as(t.getName() + " still alive after stop").isFalse();
            }
        }
    }

    /** Restarts the service with these settings and ports. */
    void start(Map<String, String> settings, Consumer<MucService.Builder> ports) {
        stopService();
        Map<String, String> s = new HashMap<>(Map.of("mucscale.muc.shard-threads", "2"));
        s.putAll(settings);
        out = new RecordingDelivery();
        clock = new ManualClock();
        MucService.Builder b = MucService.builder(SERVICE, MucConfig.from(Settings.fromText(MucSettings.ALL, s)), out)
                .clock(clock);
        ports.accept(b);
        muc = b.build();
        muc.start();
    }

    static Jid room(String local) {
        return Jid.parse(local + "@" + SERVICE);
    }

    static Jid occ(String room, String nick) {
        return Jid.parse(room + "@" + SERVICE + "/" + nick);
    }

    /** Sends and waits until the room threads are done with it. */
    void send(XmlElement stanza) {
        muc.process(stanza);
        muc.awaitIdle();
    }

    XmlElement joinStanza(Jid user, String room, String nick, XmlElement... mucChildren) {
        XmlElement.Builder x = XmlElement.builder("x", NS_MUC);
        for (XmlElement c : mucChildren) {
            x.child(c);
        }
        return XmlElement.builder("presence").attribute("from", user.toString())
                .attribute("to", occ(room, nick).toString()).child(x.build()).build();
    }

    List<XmlElement> join(Jid user, String room, String nick, XmlElement... mucChildren) {
        send(joinStanza(user, room, nick, mucChildren));
        return out.take(user);
    }

    void leave(Jid user, String room, String nick) {
        send(XmlElement.builder("presence").attribute("from", user.toString())
                .attribute("to", occ(room, nick).toString()).attribute("type", "unavailable").build());
    }

    /** Creates an instant room owned by {@code owner} and drains everything it got. */
    void createInstant(Jid owner, String room, String nick) {
        List<XmlElement> got = join(owner, room, nick);
        assertThat(statusCodes(selfPresence(got))).contains(110, 201);
        XmlElement result = iq(owner, room(room), "set", XmlElement.builder("query", NS_OWNER)
                .child(XmlElement.builder("x", NS_DATA).attribute("type", "submit").build()).build());
        assertThat(result.attribute("type")).isEqualTo("result");
        out.clear();
    }

    /** Creates a room and applies config fields (var, values...) in one submit. */
    void createConfigured(Jid owner, String room, String nick, String... varValuePairs) {
        join(owner, room, nick);
        XmlElement r = configure(owner, room, varValuePairs);
        assertThat(r.attribute("type")).as(r.toXml()).isEqualTo("result");
        out.clear();
    }

    XmlElement configure(Jid owner, String room, String... varValuePairs) {
        XmlElement.Builder x = XmlElement.builder("x", NS_DATA).attribute("type", "submit")
                .child(field("FORM_TYPE", "http://jabber.org/protocol/muc#roomconfig"));
        for (int i = 0; i < varValuePairs.length; i += 2) {
            x.child(field(varValuePairs[i], varValuePairs[i + 1]));
        }
        return iq(owner, room(room), "set", XmlElement.builder("query", NS_OWNER).child(x.build()).build());
    }

    static XmlElement field(String var, String... values) {
        XmlElement.Builder f = XmlElement.builder("field").attribute("var", var);
        for (String v : values) {
            f.child(XmlElement.builder("value").text(v).build());
        }
        return f.build();
    }

    /** Sends an IQ and returns the reply addressed to {@code from} with the same id. */
    XmlElement iq(Jid from, Jid to, String type, XmlElement payload) {
        String id = "iq" + ids.incrementAndGet();
        XmlElement.Builder b = XmlElement.builder("iq").attribute("from", from.toString())
                .attribute("to", to.toString()).attribute("type", type).attribute("id", id);
        if (payload != null) {
            b.child(payload);
        }
        send(b.build());
        List<XmlElement> got = out.take(from);
        XmlElement reply = null;
        List<XmlElement> rest = new ArrayList<>();
        for (XmlElement e : got) {
            if (e.name().equals("iq") && id.equals(e.attribute("id"))) {
                reply = e;
            } else {
                rest.add(e);
            }
        }
        // keep what else the sender got for the test to inspect
        for (XmlElement e : rest) {
            out.send(e);
        }
        assertThat(reply).as("reply to " + id + " among " + got).isNotNull();
        return reply;
    }

    XmlElement message(Jid from, Jid to, String type, String body) {
        XmlElement.Builder b = XmlElement.builder("message").attribute("from", from.toString())
                .attribute("to", to.toString()).attribute("id", "m" + ids.incrementAndGet());
        if (type != null) {
            b.attribute("type", type);
        }
        if (body != null) {
            b.textChild("body", body);
        }
        return b.build();
    }

    XmlElement groupchat(Jid from, String room, String body) {
        return message(from, room(room), "groupchat", body);
    }

    static XmlElement admin(String... attrs) {
        XmlElement.Builder item = XmlElement.builder("item");
        for (int i = 0; i < attrs.length; i += 2) {
            item.attribute(attrs[i], attrs[i + 1]);
        }
        return XmlElement.builder("query", NS_ADMIN).child(item.build()).build();
    }

    // ---------------------------------------------------------------------------------------------- reading

    static String errorCondition(XmlElement stanza) {
        assertThat(stanza.attribute("type")).as(stanza.toXml()).isEqualTo("error");
        XmlElement err = stanza.child("error");
        for (XmlElement c : err.elements()) {
            if (!c.name().equals("text")) {
                return c.name();
            }
        }
        return null;
    }

    static String errorType(XmlElement stanza) {
        return stanza.child("error").attribute("type");
    }

    static XmlElement only(List<XmlElement> got) {
        assertThat(got).hasSize(1);
        return got.get(0);
    }

    static XmlElement mucUser(XmlElement stanza) {
        return stanza.child("x", NS_USER);
    }

    static XmlElement item(XmlElement presence) {
        return mucUser(presence).child("item");
    }

    static List<Integer> statusCodes(XmlElement stanza) {
        List<Integer> codes = new ArrayList<>();
        XmlElement x = mucUser(stanza);
        if (x != null) {
            for (XmlElement s : x.elements("status")) {
                codes.add(Integer.parseInt(s.attribute("code")));
            }
        }
        return codes;
    }

    static XmlElement selfPresence(List<XmlElement> got) {
        for (XmlElement e : got) {
            if (e.name().equals("presence") && statusCodes(e).contains(110)) {
                return e;
            }
        }
        throw new AssertionError("no self-presence in " + got);
    }

    static List<XmlElement> named(List<XmlElement> got, String name) {
        List<XmlElement> l = new ArrayList<>();
        for (XmlElement e : got) {
            if (e.name().equals(name)) {
                l.add(e);
            }
        }
        return l;
    }
}
