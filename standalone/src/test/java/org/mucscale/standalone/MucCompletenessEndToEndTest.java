package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.XmlElement;

/**
 * XEP-0045 voice requests (8.6), registration with a room (7.10, 7.12) and two sessions of one user under one
 * nickname, with real clients through a real Prosody. Absence is shown by order, never by waiting: after the event
 * that must not be seen, a later stanza is the next thing the client receives.
 */
class MucCompletenessEndToEndTest {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final String NS_DATA = "jabber:x:data";
    private static final String NS_USER = "http://jabber.org/protocol/muc#user";
    private static E2eFixture fx;

    @BeforeAll
    static void start() throws Exception {
        fx = new E2eFixture(3, Map.of());
    }

    @AfterAll
    static void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    private static String field(String var, String value) {
        return "<field var='" + var + "'><value>" + value + "</value></field>";
    }

    private static XmlElement join(RawXmppClient c, String room, String nick) throws Exception {
        c.write("<presence to='" + room + "/" + nick + "'><x xmlns='http://jabber.org/protocol/muc'/></presence>");
        return c.expect(e -> e.name().equals("presence") && (room + "/" + nick).equals(e.attribute("from"))
                && selfPresence(e), "self-presence in " + room, WAIT);
    }

    private static boolean selfPresence(XmlElement p) {
        XmlElement x = p.child("x", NS_USER);
        return x != null && x.elements("status").stream().anyMatch(s -> "110".equals(s.attribute("code")));
    }

    /** Creates {@code room} owned by {@code owner} with these configuration fields. */
    private static void create(RawXmppClient owner, String room, String nick, String... varValues) throws Exception {
        join(owner, room, nick);
        StringBuilder fields = new StringBuilder(field("FORM_TYPE", "http://jabber.org/protocol/muc#roomconfig"));
        for (int i = 0; i < varValues.length; i += 2) {
            fields.append(field(varValues[i], varValues[i + 1]));
        }
        owner.write("<iq type='set' to='" + room + "' id='cfg'><query xmlns='http://jabber.org/protocol/muc#owner'>"
                + "<x xmlns='jabber:x:data' type='submit'>" + fields + "</x></query></iq>");
        XmlElement r = owner.expect(e -> "cfg".equals(e.attribute("id")), "configuration result", WAIT);
        assertThat(r.attribute("type")).as(r.toXml()).isEqualTo("result");
    }

    private static XmlElement iq(RawXmppClient c, String to, String type, String id, String payload)
            throws Exception {
        c.write("<iq type='" + type + "' to='" + to + "' id='" + id + "'>" + payload + "</iq>");
        return c.expect(e -> e.name().equals("iq") && id.equals(e.attribute("id")), "reply to " + id, WAIT);
    }

    private static String errorCondition(XmlElement stanza) {
        assertThat(stanza.attribute("type")).as(stanza.toXml()).isEqualTo("error");
        return stanza.child("error").elements().stream().map(XmlElement::name).filter(n -> !n.equals("text"))
                .findFirst().orElseThrow();
    }

    private static String fieldValue(XmlElement form, String var) {
        return form.elements("field").stream().filter(f -> var.equals(f.attribute("var"))).findFirst()
                .map(f -> f.childText("value")).orElse(null);
    }

    private static XmlElement voiceForm(RawXmppClient moderator) throws Exception {
        XmlElement m = moderator.expect(e -> e.name().equals("message") && e.child("x", NS_DATA) != null,
                "voice request form", WAIT);
        return m.child("x", NS_DATA);
    }

    private static void answer(RawXmppClient moderator, String room, XmlElement form, boolean allow) throws Exception {
        moderator.write("<message to='" + room + "'><x xmlns='jabber:x:data' type='submit'>"
                + field("FORM_TYPE", "http://jabber.org/protocol/muc#request")
                + field("muc#role", "participant") + field("muc#jid", fieldValue(form, "muc#jid"))
                + field("muc#roomnick", fieldValue(form, "muc#roomnick"))
                + field("muc#request_allow", Boolean.toString(allow)) + "</x></message>");
    }

    private static final String VOICE_REQUEST = "<x xmlns='jabber:x:data' type='submit'>"
            + field("FORM_TYPE", "http://jabber.org/protocol/muc#request") + field("muc#role", "participant") + "</x>";

    @Test
    void voiceRequest_refusedThenApproved() throws Exception {
        String room = E2eFixture.room("voice");
        RawXmppClient mod = fx.raw(0);
        RawXmppClient visitor = fx.raw(1);
        create(mod, room, "mod", "muc#roomconfig_moderatedroom", "1");
        XmlElement self = join(visitor, room, "vis");
        assertThat(self.child("x", NS_USER).child("item").attribute("role")).isEqualTo("visitor");

        visitor.write("<message to='" + room + "' id='ask1'>" + VOICE_REQUEST + "</message>");
        XmlElement form = voiceForm(mod);
        assertThat(fieldValue(form, "muc#roomnick")).isEqualTo("vis");
        assertThat(fieldValue(form, "muc#jid")).isEqualTo(visitor.jid());
        answer(mod, room, form, false);
        visitor.write("<message to='" + room + "' type='groupchat' id='muted'><body>may I?</body></message>");
        XmlElement err = visitor.expect(e -> "muted".equals(e.attribute("id")), "refusal of a visitor's message",
                WAIT);
        assertThat(errorCondition(err)).isEqualTo("forbidden");

        visitor.write("<message to='" + room + "' id='ask2'>" + VOICE_REQUEST + "</message>");
        answer(mod, room, voiceForm(mod), true);
        XmlElement granted = visitor.expect(e -> e.name().equals("presence") && selfPresence(e), "voice", WAIT);
        assertThat(granted.child("x", NS_USER).child("item").attribute("role")).isEqualTo("participant");
        visitor.write("<message to='" + room + "' type='groupchat' id='speak'><body>thank you</body></message>");
        XmlElement heard = mod.expect(e -> e.name().equals("message") && e.childText("body") != null, "message",
                WAIT);
        assertThat(heard.childText("body")).isEqualTo("thank you");
    }

    @Test
    void registration_reservesNick_makesMember_conflictsForOthers() throws Exception {
        String room = E2eFixture.room("reg");
        RawXmppClient owner = fx.raw(0);
        RawXmppClient user = fx.raw(2);
        RawXmppClient other = fx.raw(1);
        create(owner, room, "owner", "x-muc#roomconfig_registration", "1", "muc#roomconfig_membersonly", "1");
        user.write("<presence to='" + room + "/cee'><x xmlns='http://jabber.org/protocol/muc'/></presence>");
        XmlElement refused = user.expect(e -> e.name().equals("presence") && "error".equals(e.attribute("type")),
                "join refused", WAIT);
        assertThat(errorCondition(refused)).isEqualTo("registration-required");

        XmlElement form = iq(user, room, "get", "reg1", "<query xmlns='jabber:iq:register'/>");
        assertThat(form.child("query", "jabber:iq:register").child("x", NS_DATA).elements("field"))
                .extracting(f -> f.attribute("var")).contains("muc#register_roomnick");
        String submit = "<query xmlns='jabber:iq:register'><x xmlns='jabber:x:data' type='submit'>"
                + field("FORM_TYPE", "http://jabber.org/protocol/muc#register") + field("muc#register_roomnick", "cee")
                + "</x></query>";
        assertThat(iq(user, room, "set", "reg2", submit).attribute("type")).isEqualTo("result");
        XmlElement nick = iq(user, room, "get", "reg3",
                "<query xmlns='http://jabber.org/protocol/disco#info' node='x-roomuser-item'/>");
        assertThat(nick.child("query", "http://jabber.org/protocol/disco#info").child("identity").attribute("name"))
                .isEqualTo("cee");
        XmlElement joined = join(user, room, "cee");
        assertThat(joined.child("x", NS_USER).child("item").attribute("affiliation")).isEqualTo("member");
        assertThat(errorCondition(iq(other, room, "set", "reg4", submit))).isEqualTo("conflict");
    }

    @Test
    void twoSessionsOfOneUser_shareOneNickname() throws Exception {
        String room = E2eFixture.room("multi");
        RawXmppClient a = fx.raw(0);
        RawXmppClient phone = fx.raw(1);
        create(a, room, "a");
        join(phone, room, "bee");
        a.expect(e -> e.name().equals("presence") && (room + "/bee").equals(e.attribute("from")), "bee joins", WAIT);
        try (RawXmppClient desktop = RawXmppClient.login(fx.prosody.c2sPort(), E2eFixture.DOMAIN, E2eFixture.user(1),
                E2eFixture.PASSWORD, "desktop")) {
            join(desktop, room, "bee");
            a.write("<message to='" + room + "' type='groupchat' id='m1'><body>to both</body></message>");
            XmlElement next = a.expect(e -> e.name().equals("message") || e.name().equals("presence"), "next", WAIT);
            assertThat(next.name()).as("the second session is not a new occupant: " + next.toXml())
                    .isEqualTo("message");
            for (RawXmppClient session : new RawXmppClient[] {phone, desktop}) {
                XmlElement got = session.expect(e -> e.name().equals("message") && e.childText("body") != null,
                        "message", WAIT);
                assertThat(got.childText("body")).isEqualTo("to both");
            }
            desktop.write("<presence to='" + room + "/bee' type='unavailable'/>");
            desktop.expect(e -> "unavailable".equals(e.attribute("type")) && selfPresence(e), "left", WAIT);
            a.write("<message to='" + room + "' type='groupchat' id='m2'><body>still there</body></message>");
            XmlElement after = a.expect(e -> e.name().equals("message") || e.name().equals("presence"), "next",
                    WAIT);
            assertThat(after.name()).as("bee stays while a session remains: " + after.toXml()).isEqualTo("message");
            XmlElement phoneGot = phone.expect(e -> e.name().equals("message") && e.childText("body") != null,
                    "message", WAIT);
            assertThat(phoneGot.childText("body")).isEqualTo("still there");
        }
    }
}
