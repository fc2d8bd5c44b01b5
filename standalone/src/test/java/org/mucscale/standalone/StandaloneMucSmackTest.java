package org.mucscale.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jivesoftware.smack.XMPPException;
import org.jivesoftware.smack.packet.IQ;
import org.jivesoftware.smack.packet.Message;
import org.jivesoftware.smack.packet.Presence;
import org.jivesoftware.smack.packet.StanzaError;
import org.jivesoftware.smack.tcp.XMPPTCPConnection;
import org.jivesoftware.smackx.disco.ServiceDiscoveryManager;
import org.jivesoftware.smackx.disco.packet.DiscoverInfo;
import org.jivesoftware.smackx.muc.MultiUserChat;
import org.jivesoftware.smackx.muc.MultiUserChatManager;
import org.jivesoftware.smackx.muc.packet.MUCUser;
import org.jivesoftware.smackx.ping.packet.Ping;
import org.jivesoftware.smackx.sid.element.StanzaIdElement;
import org.jivesoftware.smackx.xdata.form.FillableForm;
import org.jivesoftware.smackx.xdata.form.Form;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.jxmpp.jid.EntityBareJid;
import org.jxmpp.jid.EntityFullJid;
import org.jxmpp.jid.impl.JidCreate;
import org.jxmpp.jid.parts.Resourcepart;
import org.mucscale.testkit.SmackQuirks;

/**
 * XEP-0045 end to end: real Prosody (own MUC off), mucscale standalone as {@code muc.example.test}, real Smack
 * clients. Every test uses its own room.
 */
class StandaloneMucSmackTest {
    static {
        SmackQuirks.disableSmackParserAssertions();
    }

    private static E2eFixture fx;
    private static XMPPTCPConnection[] c;

    @BeforeAll
    static void start() throws Exception {
        fx = new E2eFixture(5, Map.of());
        c = fx.smackAll();
    }

    @AfterAll
    static void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    private static EntityBareJid room(String name) throws Exception {
        return JidCreate.entityBareFrom(E2eFixture.room(name));
    }

    private static MultiUserChat muc(int user, String room) throws Exception {
        return MultiUserChatManager.getInstanceFor(c[user]).getMultiUserChat(room(room));
    }

    private static Resourcepart nick(String n) throws Exception {
        return Resourcepart.from(n);
    }

    /** User {@code owner} creates an instant room; users in {@code others} join it. */
    private static MultiUserChat[] roomWith(String name, int owner, int... others) throws Exception {
        MultiUserChat[] m = new MultiUserChat[c.length];
        m[owner] = muc(owner, name);
        m[owner].create(nick("n" + owner)).makeInstant();
        for (int o : others) {
            m[o] = muc(o, name);
            m[o].join(nick("n" + o));
        }
        return m;
    }

    /** Next message with a body (the subject message every joiner gets has none). */
    private static Message nextChat(MultiUserChat m) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            Message msg = m.nextMessage(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (msg != null && msg.getBody() != null) {
                return msg;
            }
        }
        return null;
    }

    private static StanzaError.Condition condition(Throwable t) {
        assertThat(t).isInstanceOf(XMPPException.XMPPErrorException.class);
        return ((XMPPException.XMPPErrorException) t).getStanzaError().getCondition();
    }

    private static void configure(MultiUserChat owner, Map<String, Object> answers) throws Exception {
        Form form = owner.getConfigurationForm();
        FillableForm fill = form.getFillableForm();
        for (Map.Entry<String, Object> a : answers.entrySet()) {
            if (a.getValue() instanceof Boolean b) {
                fill.setAnswer(a.getKey(), b);
            } else if (a.getValue() instanceof Integer i) {
                fill.setAnswer(a.getKey(), i);
            } else {
                fill.setAnswer(a.getKey(), (String) a.getValue());
            }
        }
        owner.sendConfigurationForm(fill);
    }

    @Test
    void disco_service_advertisesMucFeature() throws Exception {
        DiscoverInfo info = ServiceDiscoveryManager.getInstanceFor(c[0]).discoverInfo(JidCreate.from(E2eFixture.MUC));
        assertThat(info.containsFeature("http://jabber.org/protocol/muc")).isTrue();
        assertThat(MultiUserChatManager.getInstanceFor(c[0]).getMucServiceDomains())
                .extracting(Object::toString).contains(E2eFixture.MUC);
    }

    @Test
    void join_newRoom_ownerThenOccupantSeeEachOther() throws Exception {
        MultiUserChat[] m = roomWith("joinroom", 0, 1);
        assertThat(m[1].isJoined()).isTrue();
        // Smack's occupant list is filled by an asynchronous listener: wait for it to catch up
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (m[1].getOccupants().size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(m[1].getOccupants()).extracting(Object::toString)
                .contains("joinroom@" + E2eFixture.MUC + "/n0", "joinroom@" + E2eFixture.MUC + "/n1");
        assertThat(m[0].getOwners()).extracting(a -> a.getJid().toString()).containsExactly("user0@example.test");
        m[1].leave();
        m[0].leave();
    }

    @Test
    void groupchat_message_reflectedToEveryoneWithStanzaIdOfRoom() throws Exception {
        MultiUserChat[] m = roomWith("chatroom", 0, 1, 2);
        m[0].sendMessage("hello room");
        for (int i = 0; i < 3; i++) {
            Message msg = nextChat(m[i]);
            assertThat(msg).as("user %d got the message", i).isNotNull();
            assertThat(msg.getBody()).isEqualTo("hello room");
            assertThat(msg.getFrom().toString()).isEqualTo("chatroom@" + E2eFixture.MUC + "/n0");
            StanzaIdElement sid = StanzaIdElement.getStanzaId(msg);
            assertThat(sid).as("XEP-0359 stanza-id").isNotNull();
            assertThat(sid.getBy()).isEqualTo("chatroom@" + E2eFixture.MUC);
        }
        for (int i = 0; i < 3; i++) {
            m[i].leave();
        }
    }

    @Test
    void privateMessage_toOccupant_deliveredFromSendersRoomJid() throws Exception {
        MultiUserChat[] m = roomWith("pmroom", 0, 1);
        BlockingQueue<Message> got = new LinkedBlockingQueue<>();
        c[1].addAsyncStanzaListener(s -> got.add((Message) s),
                s -> s instanceof Message msg && msg.getType() == Message.Type.chat);
        c[0].sendStanza(c[0].getStanzaFactory().buildMessageStanza()
                .to(JidCreate.from("pmroom@" + E2eFixture.MUC + "/n1")).ofType(Message.Type.chat)
                .addExtension(new MUCUser()).setBody("psst").build());
        Message pm = got.poll(10, TimeUnit.SECONDS);
        assertThat(pm).isNotNull();
        assertThat(pm.getBody()).isEqualTo("psst");
        assertThat(pm.getFrom().toString()).isEqualTo("pmroom@" + E2eFixture.MUC + "/n0");
        m[1].leave();
        m[0].leave();
    }

    @Test
    void subject_setByOwner_seenByOccupantsAndLateJoiners() throws Exception {
        MultiUserChat[] m = roomWith("subjroom", 0, 1);
        BlockingQueue<String> seen = new LinkedBlockingQueue<>();
        m[1].addSubjectUpdatedListener((subject, from) -> {
            if (!subject.isEmpty()) {
                seen.add(subject); // the empty subject every joiner gets may arrive after join() returned
            }
        });
        m[0].changeSubject("today: tests");
        assertThat(seen.poll(10, TimeUnit.SECONDS)).isEqualTo("today: tests");
        MultiUserChat late = muc(2, "subjroom");
        late.join(nick("n2"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!"today: tests".equals(late.getSubject()) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(late.getSubject()).isEqualTo("today: tests");
        late.leave();
        m[1].leave();
        m[0].leave();
    }

    @Test
    void kick_byModerator_removesOccupantWithStatus307() throws Exception {
        MultiUserChat[] m = roomWith("kickroom", 0, 1);
        BlockingQueue<Presence> kicked = new LinkedBlockingQueue<>();
        c[1].addAsyncStanzaListener(s -> kicked.add((Presence) s), s -> s instanceof Presence p
                && p.getType() == Presence.Type.unavailable && p.getFrom().toString().endsWith("/n1"));
        m[0].kickParticipant(nick("n1"), "bye");
        Presence p = kicked.poll(10, TimeUnit.SECONDS);
        assertThat(p).isNotNull();
        assertThat(MUCUser.from(p).getStatus()).contains(MUCUser.Status.KICKED_307, MUCUser.Status.PRESENCE_TO_SELF_110);
        m[0].leave();
    }

    @Test
    void kick_byParticipant_isForbidden() throws Exception {
        MultiUserChat[] m = roomWith("kickforbidden", 0, 1);
        assertThatThrownBy(() -> m[1].kickParticipant(nick("n0"), "no"))
                .satisfies(t -> assertThat(condition(t)).isEqualTo(StanzaError.Condition.forbidden));
        m[1].leave();
        m[0].leave();
    }

    @Test
    void ban_byOwner_bannedUserCannotRejoin() throws Exception {
        MultiUserChat[] m = roomWith("banroom", 0, 1);
        m[0].banUser(JidCreate.bareFrom("user1@example.test"), "spam");
        assertThat(m[0].getOutcasts()).extracting(a -> a.getJid().toString()).contains("user1@example.test");
        MultiUserChat again = muc(1, "banroom");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (again.isJoined() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThatThrownBy(() -> again.join(nick("n1b")))
                .satisfies(t -> assertThat(condition(t)).isEqualTo(StanzaError.Condition.forbidden));
        m[0].leave();
    }

    @Test
    void voice_revokedInModeratedRoom_messageRefusedThenGrantedAccepted() throws Exception {
        MultiUserChat[] m = roomWith("modroom", 0);
        configure(m[0], Map.of("muc#roomconfig_moderatedroom", true));
        m[1] = muc(1, "modroom");
        m[1].join(nick("n1"));
        BlockingQueue<Message> errors = new LinkedBlockingQueue<>();
        c[1].addAsyncStanzaListener(s -> errors.add((Message) s),
                s -> s instanceof Message msg && msg.getType() == Message.Type.error);
        m[1].sendMessage("may I?");
        Message err = errors.poll(10, TimeUnit.SECONDS);
        assertThat(err).as("visitor's message is refused").isNotNull();
        assertThat(err.getError().getCondition()).isEqualTo(StanzaError.Condition.forbidden);
        m[0].grantVoice(nick("n1"));
        m[1].sendMessage("thanks");
        Message ok = nextChat(m[0]);
        assertThat(ok).isNotNull();
        assertThat(ok.getBody()).isEqualTo("thanks");
        m[0].revokeVoice(nick("n1"));
        m[1].leave();
        m[0].leave();
    }

    @Test
    void membersOnly_nonMember_registrationRequired_thenMemberJoins() throws Exception {
        MultiUserChat[] m = roomWith("membersroom", 0);
        configure(m[0], Map.of("muc#roomconfig_membersonly", true));
        MultiUserChat outsider = muc(1, "membersroom");
        assertThatThrownBy(() -> outsider.join(nick("n1")))
                .satisfies(t -> assertThat(condition(t)).isEqualTo(StanzaError.Condition.registration_required));
        m[0].grantMembership(JidCreate.bareFrom("user1@example.test"));
        outsider.join(nick("n1"));
        assertThat(outsider.isJoined()).isTrue();
        assertThat(m[0].getMembers()).extracting(a -> a.getJid().toString()).contains("user1@example.test");
        outsider.leave();
        m[0].leave();
    }

    @Test
    void passwordRoom_wrongPassword_notAuthorized_rightPasswordJoins() throws Exception {
        MultiUserChat[] m = roomWith("pwroom", 0);
        configure(m[0], Map.of("muc#roomconfig_passwordprotectedroom", true, "muc#roomconfig_roomsecret", "s3"));
        MultiUserChat guest = muc(1, "pwroom");
        assertThatThrownBy(() -> guest.join(nick("n1"), "wrong"))
                .satisfies(t -> assertThat(condition(t)).isEqualTo(StanzaError.Condition.not_authorized));
        guest.join(nick("n1"), "s3");
        assertThat(guest.isJoined()).isTrue();
        guest.leave();
        m[0].leave();
    }

    @Test
    void maxOccupants_full_nextJoinServiceUnavailable() throws Exception {
        MultiUserChat[] m = roomWith("fullroom", 0);
        configure(m[0], Map.of("muc#roomconfig_maxusers", "2"));
        m[1] = muc(1, "fullroom");
        m[1].join(nick("n1"));
        MultiUserChat third = muc(2, "fullroom");
        assertThatThrownBy(() -> third.join(nick("n2")))
                .satisfies(t -> assertThat(condition(t)).isEqualTo(StanzaError.Condition.service_unavailable));
        m[1].leave();
        m[0].leave();
    }

    @Test
    void join_nicknameInUse_conflict() throws Exception {
        MultiUserChat[] m = roomWith("nickroom", 0);
        MultiUserChat other = muc(1, "nickroom");
        assertThatThrownBy(() -> other.join(nick("n0")))
                .satisfies(t -> assertThat(condition(t)).isEqualTo(StanzaError.Condition.conflict));
        m[0].leave();
    }

    @Test
    void nicknameChange_seenByOthersWithStatus303() throws Exception {
        MultiUserChat[] m = roomWith("renameroom", 0, 1);
        m[1].changeNickname(nick("renamed"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!m[0].getOccupants().toString().contains("/renamed") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(m[0].getOccupants()).extracting(Object::toString)
                .contains("renameroom@" + E2eFixture.MUC + "/renamed")
                .doesNotContain("renameroom@" + E2eFixture.MUC + "/n1");
        m[1].leave();
        m[0].leave();
    }

    @Test
    void configForm_owner_getsStandardFields_participantForbidden() throws Exception {
        MultiUserChat[] m = roomWith("formroom", 0, 1);
        Form form = m[0].getConfigurationForm();
        assertThat(form.getDataForm().getFields()).extracting(f -> f.getFieldName())
                .contains("muc#roomconfig_roomname", "muc#roomconfig_membersonly", "muc#roomconfig_moderatedroom",
                        "muc#roomconfig_passwordprotectedroom", "muc#roomconfig_maxusers",
                        "muc#roomconfig_persistentroom");
        assertThatThrownBy(() -> m[1].getConfigurationForm())
                .satisfies(t -> assertThat(condition(t)).isEqualTo(StanzaError.Condition.forbidden));
        m[1].leave();
        m[0].leave();
    }

    @Test
    void destroy_byOwner_occupantsToldAndRoomGone() throws Exception {
        MultiUserChat[] m = roomWith("doomed", 0, 1);
        BlockingQueue<Presence> gone = new LinkedBlockingQueue<>();
        c[1].addAsyncStanzaListener(s -> gone.add((Presence) s), s -> s instanceof Presence p
                && p.getType() == Presence.Type.unavailable && p.getFrom().toString().startsWith("doomed@"));
        m[0].destroy("done", null);
        Presence p = gone.poll(10, TimeUnit.SECONDS);
        assertThat(p).isNotNull();
        assertThat(MUCUser.from(p).getDestroy()).isNotNull();
        assertThatThrownBy(() -> ServiceDiscoveryManager.getInstanceFor(c[2]).discoverInfo(room("doomed")))
                .satisfies(t -> assertThat(condition(t)).isEqualTo(StanzaError.Condition.item_not_found));
    }

    @Test
    void destroy_byParticipant_isForbidden() throws Exception {
        MultiUserChat[] m = roomWith("keepme", 0, 1);
        assertThatThrownBy(() -> m[1].destroy("no", null))
                .satisfies(t -> assertThat(condition(t)).isEqualTo(StanzaError.Condition.forbidden));
        m[1].leave();
        m[0].leave();
    }

    @Test
    void selfPing_joined_result_notJoined_notAcceptable() throws Exception {
        MultiUserChat[] m = roomWith("pingroom", 0);
        EntityFullJid me = JidCreate.entityFullFrom("pingroom@" + E2eFixture.MUC + "/n0");
        IQ reply = c[0].sendIqRequestAndWaitForResponse(new Ping(me));
        assertThat(reply.getType()).isEqualTo(IQ.Type.result);
        assertThatThrownBy(() -> c[1].sendIqRequestAndWaitForResponse(new Ping(me)))
                .satisfies(t -> assertThat(condition(t)).isEqualTo(StanzaError.Condition.not_acceptable));
        m[0].leave();
    }

    @Test
    void history_lateJoiner_getsRecentMessagesWithDelay() throws Exception {
        MultiUserChat[] m = roomWith("histroom", 0);
        for (int i = 0; i < 3; i++) {
            m[0].sendMessage("h" + i);
            assertThat(nextChat(m[0])).isNotNull();
        }
        MultiUserChat late = muc(1, "histroom");
        late.join(late.getEnterConfigurationBuilder(nick("n1")).requestMaxStanzasHistory(2).build());
        Message a = nextChat(late);
        Message b = nextChat(late);
        assertThat(List.of(a.getBody(), b.getBody())).containsExactly("h1", "h2");
        assertThat(a.hasExtension("delay", "urn:xmpp:delay")).isTrue();
        late.leave();
        m[0].leave();
    }

    @Test
    void adminIq_grantAdminAndOwner_listsReflectIt() throws Exception {
        MultiUserChat[] m = roomWith("affroom", 0, 1);
        m[0].grantAdmin(JidCreate.bareFrom("user1@example.test"));
        assertThat(m[0].getAdmins()).extracting(a -> a.getJid().toString()).contains("user1@example.test");
        m[0].grantOwnership(JidCreate.bareFrom("user2@example.test"));
        assertThat(m[0].getOwners()).extracting(a -> a.getJid().toString())
                .contains("user0@example.test", "user2@example.test");
        m[0].grantModerator(nick("n1"));
        assertThat(m[0].getModerators()).extracting(o -> o.getNick().toString()).contains("n0", "n1");
        m[1].leave();
        m[0].leave();
    }
}
