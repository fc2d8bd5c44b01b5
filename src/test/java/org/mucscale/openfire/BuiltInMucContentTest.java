package org.mucscale.openfire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.dom4j.DocumentHelper;
import org.dom4j.Element;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mucscale.engine.filter.Action;
import org.mucscale.engine.filter.ContentFilter;
import org.mucscale.engine.filter.FilterConfig;
import org.mucscale.engine.filter.FilterListener;

/**
 * Issue 18, item 1 for Openfire's own MUC: what the interceptor checks, on real dom4j stanzas as Openfire's parser
 * builds them and the real content filter with its shipped English list. One test per former bypass (the interceptor
 * used to read only {@code Message.getBody()} and {@code getSubject()} of group messages); each fails with its
 * handling in {@link BuiltInMucContent} removed.
 */
class BuiltInMucContentTest {
    static final String ROOM = "general@conference.mucscale.test";
    static final String REJECT_TEXT = "Not in here, please.";

    private ContentFilter filter;

    private ContentFilter filter(Action action, boolean nicknames) {
        filter = ContentFilter.start(FilterConfig.builder().languages("en").defaultAction(action)
                .rejectMessage(REJECT_TEXT).nicknames(nicknames).build(), FilterListener.NONE);
        return filter;
    }

    @AfterEach
    void closeFilter() {
        if (filter != null) {
            filter.close();
        }
    }

    static Element parse(String xml) throws Exception {
        return DocumentHelper.parseText(xml).getRootElement();
    }

    static Element groupchat(String children) throws Exception {
        return parse("<message xmlns='jabber:client' to='" + ROOM + "' type='groupchat' id='m1'>" + children
                + "</message>");
    }

    private static BuiltInMucContent.Refusal check(ContentFilter f, Element stanza) {
        String to = stanza.attributeValue("to");
        int slash = to.indexOf('/');
        return BuiltInMucContent.check(f, stanza, slash < 0 ? to : to.substring(0, slash),
                slash < 0 ? null : to.substring(slash + 1));
    }

    private static List<String> texts(Element parent, String name) {
        return parent.elements(name).stream().map(Element::getText).toList();
    }

    @Test
    void cleanGroupchat_passesUntouched() throws Exception {
        Element m = groupchat("<body>hello everyone</body>");
        String before = m.asXML();
        assertThat(check(filter(Action.REJECT, true), m)).isNull();
        assertThat(m.asXML()).isEqualTo(before);
    }

    @Test
    void secondBodyWithXmlLang_rejectedOrMasked() throws Exception {
        String bodies = "<body>hello</body><body xml:lang='de'>this is shit</body>";
        assertThat(check(filter(Action.REJECT, true), groupchat(bodies)).errorText()).isEqualTo(REJECT_TEXT);
        filter.close();

        Element m = groupchat(bodies);
        assertThat(check(filter(Action.MASK, true), m)).isNull();
        assertThat(texts(m, "body")).containsExactly("hello", "this is ****");
        assertThat(m.elements("body").get(1).attributeValue("lang")).isEqualTo("de");
    }

    @Test
    void xhtmlImBody_wordSplitByMarkup_rejected() throws Exception {
        Element m = groupchat("<body>hello</body><html xmlns='http://jabber.org/protocol/xhtml-im'>"
                + "<body xmlns='http://www.w3.org/1999/xhtml'><p>this is sh<b>i</b>t</p></body></html>");
        assertThat(check(filter(Action.REJECT, true), m).errorText()).isEqualTo(REJECT_TEXT);
    }

    @Test
    void xhtmlImBody_removedWhenThePlainBodyIsMasked() throws Exception {
        Element m = groupchat("<body>this is shit</body><html xmlns='http://jabber.org/protocol/xhtml-im'>"
                + "<body xmlns='http://www.w3.org/1999/xhtml'><p>this is <b>shit</b></p></body></html>");
        assertThat(check(filter(Action.MASK, true), m)).isNull();
        assertThat(m.elementText("body")).isEqualTo("this is ****");
        assertThat(m.element("html")).isNull();
    }

    @Test
    void realBodyAfterForeignNamespaceBody_rejected() throws Exception {
        Element m = groupchat("<body xmlns='urn:example:decoy'>hello</body><body>this is shit</body>");
        assertThat(check(filter(Action.REJECT, true), m).errorText()).isEqualTo(REJECT_TEXT);
    }

    @Test
    void secondSubjectWithXmlLang_masked() throws Exception {
        Element m = groupchat("<subject>Welcome</subject><subject xml:lang='fr'>shit happens</subject>");
        assertThat(check(filter(Action.MASK, true), m)).isNull();
        assertThat(texts(m, "subject")).containsExactly("Welcome", "**** happens");
    }

    @Test
    void privateMessage_rejectedAndDroppedSilently() throws Exception {
        String pm = "<message xmlns='jabber:client' to='" + ROOM + "/bob' type='chat'><body>you shit</body></message>";
        assertThat(check(filter(Action.REJECT, true), parse(pm)).errorText()).isEqualTo(REJECT_TEXT);
        filter.close();
        BuiltInMucContent.Refusal dropped = check(filter(Action.DROP, true), parse(pm));
        assertThat(dropped).isNotNull();
        assertThat(dropped.errorText()).as("DROP tells nobody").isNull();
    }

    @Test
    void invitationReason_maskedAndRejected() throws Exception {
        String invite = "<message xmlns='jabber:client' to='" + ROOM + "'><x xmlns='http://jabber.org/protocol/muc#user'>"
                + "<invite to='carol@mucscale.test'><reason>come, this shit is fun</reason></invite></x></message>";
        Element m = parse(invite);
        assertThat(check(filter(Action.MASK, true), m)).isNull();
        assertThat(m.element("x").element("invite").elementText("reason")).isEqualTo("come, this **** is fun");
        filter.close();
        assertThat(check(filter(Action.REJECT, true), parse(invite)).errorText()).isEqualTo(REJECT_TEXT);
    }

    @Test
    void declineReason_rejected() throws Exception {
        Element m = parse("<message xmlns='jabber:client' to='" + ROOM + "'><x xmlns='http://jabber.org/protocol/muc#user'>"
                + "<decline to='alice@mucscale.test'><reason>shit no</reason></decline></x></message>");
        assertThat(check(filter(Action.REJECT, true), m).errorText()).isEqualTo(REJECT_TEXT);
    }

    static Element configForm(String name, String description) throws Exception {
        return parse("<iq xmlns='jabber:client' to='" + ROOM + "' type='set' id='c1'>"
                + "<query xmlns='http://jabber.org/protocol/muc#owner'><x xmlns='jabber:x:data' type='submit'>"
                + "<field var='FORM_TYPE'><value>http://jabber.org/protocol/muc#roomconfig</value></field>"
                + "<field var='muc#roomconfig_roomname'><value>" + name + "</value></field>"
                + "<field var='muc#roomconfig_roomdesc'><value>" + description + "</value></field>"
                + "</x></query></iq>");
    }

    @Test
    void roomNameAndDescription_maskedOrRefused() throws Exception {
        Element iq = configForm("shit room", "a shit place");
        assertThat(check(filter(Action.MASK, true), iq)).isNull();
        assertThat(iq.asXML()).contains("<value>**** room</value>").contains("<value>a **** place</value>");
        filter.close();

        assertThat(check(filter(Action.REJECT, true), configForm("nice room", "a shit place")).errorText())
                .as("issue 40: not the policy's 'your message' text").isEqualTo(
                        "the room description was not accepted: it contains text that is not allowed in this room");
        filter.close();
        assertThat(check(filter(Action.DROP, true), configForm("shit room", "nice")).errorText())
                .as("a refused form always says so").isEqualTo(
                        "the room name was not accepted: it contains text that is not allowed in this room");
    }

    @Test
    void nickname_refusedOnJoin_unlessSwitchedOff() throws Exception {
        String join = "<presence xmlns='jabber:client' to='" + ROOM + "/shithead'>"
                + "<x xmlns='http://jabber.org/protocol/muc'/></presence>";
        assertThat(check(filter(Action.MASK, true), parse(join)).errorText())
                .isEqualTo("the nickname is not allowed in this room");
        filter.close();
        assertThat(check(filter(Action.MASK, false), parse(join))).isNull();
        filter.close();
        String leave = "<presence xmlns='jabber:client' to='" + ROOM + "/shithead' type='unavailable'/>";
        assertThat(check(filter(Action.MASK, true), parse(leave))).as("leaving is never refused").isNull();
    }

    @Test
    void presenceStatus_maskedOrRefused_evenWithNicknamesOff() throws Exception {
        String join = "<presence xmlns='jabber:client' to='" + ROOM + "/bob'><x xmlns='http://jabber.org/protocol/muc'/>"
                + "<status>hi</status><status xml:lang='de'>shit happens</status></presence>";
        Element p = parse(join);
        assertThat(check(filter(Action.MASK, false), p)).isNull();
        assertThat(texts(p, "status")).containsExactly("hi", "**** happens");
        filter.close();
        assertThat(check(filter(Action.REJECT, false), parse(join)).errorText()).isEqualTo(
                "the presence status was not accepted: it contains text that is not allowed in this room");
        filter.close();
        assertThat(check(filter(Action.DROP, true), parse(join)).errorText()).as("a refused join always says so")
                .isEqualTo("the presence status was not accepted: it contains text that is not allowed in this room");
    }

    @Test
    void presenceUserNick_maskedOrRefused() throws Exception {
        String join = "<presence xmlns='jabber:client' to='" + ROOM + "/bob'><x xmlns='http://jabber.org/protocol/muc'/>"
                + "<nick xmlns='http://jabber.org/protocol/nick'>shit bob</nick></presence>";
        Element p = parse(join);
        assertThat(check(filter(Action.MASK, false), p)).isNull();
        assertThat(p.element(org.dom4j.QName.get("nick", BuiltInMucContent.NS_NICK)).getText()).isEqualTo("**** bob");
        filter.close();
        assertThat(check(filter(Action.REJECT, false), parse(join)).errorText())
                .startsWith("the nickname in the presence (XEP-0172) was not accepted");
    }

    @Test
    void threadAndMessageUserNick_maskedOrRejected() throws Exception {
        Element m = groupchat("<body>hi</body><thread>shit thread</thread>"
                + "<nick xmlns='http://jabber.org/protocol/nick'>shit bob</nick>");
        assertThat(check(filter(Action.MASK, true), m)).isNull();
        assertThat(texts(m, "thread")).containsExactly("**** thread");
        assertThat(m.element(org.dom4j.QName.get("nick", BuiltInMucContent.NS_NICK)).getText()).isEqualTo("**** bob");
        filter.close();
        assertThat(check(filter(Action.REJECT, true), groupchat("<body>hi</body><thread>shit</thread>")).errorText())
                .isEqualTo(REJECT_TEXT);
    }

    @Test
    void roomAddress_refusedAtJoin_withItsOwnText() throws Exception {
        String join = "<presence xmlns='jabber:client' to='shit-r-1@conference.mucscale.test/bob'>"
                + "<x xmlns='http://jabber.org/protocol/muc'/></presence>";
        assertThat(check(filter(Action.MASK, false), parse(join)).errorText()).isEqualTo("the room address 'shit-r-1'"
                + " contains words that are not allowed on this service; choose another address");
        filter.close();
        assertThat(check(filter(Action.FLAG, false), parse(join))).as("FLAG counts only").isNull();
    }

    @Test
    void renderedText_deepNesting_doesNotOverflowTheStack() {
        Element html = DocumentHelper.createElement("html");
        Element e = html;
        for (int i = 0; i < 100_000; i++) {
            e = e.addElement("span");
        }
        e.setText("deep");
        assertThat(BuiltInMucContent.renderedText(html)).isEqualTo("deep");
    }
}
