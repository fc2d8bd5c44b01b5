package org.mucscale.engine.muc;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

import static org.assertj.core.api.Assertions.assertThat;

/** XEP-0045 8.6: a visitor's voice request goes to the moderators; a moderator's answer grants or refuses voice. */
class MucVoiceRequestTest extends MucTestBase {
    static final String NS_REQUEST = "http://jabber.org/protocol/muc#request";

    /** Alice owns a moderated room; Bob (visitor) and Carol (visitor, later a moderator when needed) are in it. */
    private void moderatedRoom() {
        createConfigured(alice, "r1", "Alice", "muc#roomconfig_moderatedroom", "1");
        join(bob, "r1", "Bob");
        join(carol, "r1", "Carol");
        out.clear();
    }

    private XmlElement requestMessage(Jid from, XmlElement form) {
        return XmlElement.builder("message").attribute("from", from.toString()).attribute("to", room("r1").toString())
                .attribute("id", "vr1").child(form).build();
    }

    static XmlElement form(String type, String... varValuePairs) {
        XmlElement.Builder x = XmlElement.builder("x", NS_DATA).attribute("type", type)
                .child(field("FORM_TYPE", NS_REQUEST));
        for (int i = 0; i < varValuePairs.length; i += 2) {
            x.child(field(varValuePairs[i], varValuePairs[i + 1]));
        }
        return x.build();
    }

    private XmlElement askForVoice(Jid visitor) {
        send(requestMessage(visitor, form("submit", "muc#role", "participant")));
        assertThat(out.peek(visitor)).as("no error to the visitor").isEmpty();
        XmlElement toModerator = only(out.take(alice));
        XmlElement approval = toModerator.child("x", NS_DATA);
        assertThat(approval.attribute("type")).isEqualTo("form");
        assertThat(toModerator.attribute("from")).isEqualTo(room("r1").toString());
        return approval;
    }

    private static Map<String, String> values(XmlElement form) {
        Map<String, String> m = new java.util.HashMap<>();
        for (XmlElement f : form.elements("field")) {
            m.put(f.attribute("var"), f.childText("value"));
        }
        return m;
    }

    /** The moderator's client sends back the approval form as submitted, with request_allow set. */
    private XmlElement answer(XmlElement approval, String allow) {
        XmlElement.Builder x = XmlElement.builder("x", NS_DATA).attribute("type", "submit");
        for (XmlElement f : approval.elements("field")) {
            String v = "muc#request_allow".equals(f.attribute("var")) ? allow : f.childText("value");
            if (v != null) {
                x.child(field(f.attribute("var"), v));
            }
        }
        return x.build();
    }

    @Test
    void approvedRequest_grantsVoice_broadcastAsRoleChange() {
        moderatedRoom();
        XmlElement approval = askForVoice(bob);
        Map<String, String> v = values(approval);
        assertThat(v).containsEntry("FORM_TYPE", NS_REQUEST).containsEntry("muc#role", "participant")
                .containsEntry("muc#jid", bob.toString()).containsEntry("muc#roomnick", "Bob")
                .containsEntry("muc#request_allow", "false");
        assertThat(out.peek(carol)).as("only moderators get the request").isEmpty();

        send(requestMessage(alice, answer(approval, "true")));
        XmlElement toBob = only(out.take(bob));
        assertThat(item(toBob).attribute("role")).isEqualTo("participant");
        assertThat(statusCodes(toBob)).contains(110);
        assertThat(item(only(out.take(carol))).attribute("role")).isEqualTo("participant");
        out.clear();
        send(groupchat(bob, "r1", "now I can speak"));
        assertThat(only(out.take(carol)).childText("body")).isEqualTo("now I can speak");
    }

    @Test
    void refusedRequest_keepsVisitor_andAllowsANewRequest() {
        moderatedRoom();
        XmlElement approval = askForVoice(bob);
        send(requestMessage(alice, answer(approval, "false")));
        assertThat(out.peek(bob)).isEmpty();
        assertThat(out.peek(carol)).isEmpty();
        send(groupchat(bob, "r1", "still muted?"));
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("forbidden");
        out.clear();
        askForVoice(bob); // answered, so Bob may ask again
    }

    @Test
    void discoAdvertisesVoiceRequests() {
        moderatedRoom();
        XmlElement info = iq(bob, room("r1"), "get",
                XmlElement.builder("query", "http://jabber.org/protocol/disco#info").build());
        assertThat(info.child("query", "http://jabber.org/protocol/disco#info").elements("feature"))
                .extracting(f -> f.attribute("var")).contains(NS_REQUEST);
    }

    @Test
    void oneRequestPendingPerVisitor() {
        moderatedRoom();
        askForVoice(bob);
        send(requestMessage(bob, form("submit", "muc#role", "participant")));
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("resource-constraint");
        assertThat(out.peek(alice)).isEmpty();
        askForVoice(carol); // another visitor is not held up
    }

    @Test
    void pendingRequestForgottenWhenTheVisitorLeaves() throws Exception {
        moderatedRoom();
        askForVoice(bob);
        leave(bob, "r1", "Bob");
        join(bob, "r1", "Bob");
        out.clear();
        askForVoice(bob);
    }

    @Test
    void badForms_badRequest() {
        moderatedRoom();
        send(requestMessage(bob, form("submit", "muc#role", "moderator")));
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("bad-request");
        send(requestMessage(bob, form("submit")));
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("bad-request");
        send(requestMessage(bob, form("form", "muc#role", "participant")));
        assertThat(errorCondition(only(out.take(bob)))).isEqualTo("bad-request");
        assertThat(out.peek(alice)).isEmpty();
        XmlElement approval = askForVoice(bob);
        send(requestMessage(alice, answer(approval, "maybe")));
        assertThat(errorCondition(only(out.take(alice)))).isEqualTo("bad-request");
        assertThat(out.peek(bob)).as("Bob is still a visitor, nothing broadcast").isEmpty();
    }

    @Test
    void nonVisitorsAndNonOccupants() {
        moderatedRoom();
        iq(alice, room("r1"), "set", admin("nick", "Bob", "role", "participant"));
        out.clear();
        send(requestMessage(bob, form("submit", "muc#role", "participant")));
        assertThat(out.peek(alice)).as("a participant already has voice: nothing to forward").isEmpty();
        assertThat(out.peek(bob)).isEmpty();
        send(requestMessage(dave, form("submit", "muc#role", "participant")));
        assertThat(errorCondition(only(out.take(dave)))).isEqualTo("not-acceptable");
        assertThat(out.peek(alice)).isEmpty();
    }

    @Test
    void approvalForAnOccupantWhoLeft_itemNotFound() {
        moderatedRoom();
        XmlElement approval = askForVoice(bob);
        leave(bob, "r1", "Bob");
        out.clear();
        send(requestMessage(alice, answer(approval, "true")));
        assertThat(errorCondition(only(out.take(alice)))).isEqualTo("item-not-found");
    }

    @Test
    void requestsSpendTheRoomsRelayBudget() {
        start(Map.of("mucscale.muc.room-invites-per-minute", "1", "mucscale.muc.room-invite-burst", "1"), b -> { });
        moderatedRoom();
        askForVoice(bob);
        send(requestMessage(carol, form("submit", "muc#role", "participant")));
        assertThat(errorCondition(only(out.take(carol)))).isEqualTo("resource-constraint");
        assertThat(out.peek(alice)).isEmpty();
        List<XmlElement> none = out.take(alice);
        assertThat(none).isEmpty();
    }
}
