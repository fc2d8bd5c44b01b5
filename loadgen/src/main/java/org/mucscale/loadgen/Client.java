package org.mucscale.loadgen;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.filter.ssl.SslFilter;

/**
 * One simulated XMPP user: login (STARTTLS, in-band registration, SASL PLAIN or SCRAM-SHA-1, bind), one room join,
 * and the receive side of the measurement. The login and join paths may build Strings; the groupchat delivery path
 * does not allocate: it finds the stamp in the message bytes, records the latency and the sequence.
 *
 * <p>Concurrency: every receive callback runs on this session's MINA processor thread, which alone touches the
 * scanner, the SCRAM state and the {@link SeqTracker}. {@code state} is volatile because the timer sweep reads it
 * (for timeouts and join resends) and the pacer reads {@link #isJoined()}. {@code nextSeq} is written by the pacer
 * thread only.
 */
final class Client implements XmlScanner.Sink {
    static final int NEW = 0;
    static final int STREAM = 1;
    static final int TLS = 2;
    static final int REGISTERING = 3;
    static final int AUTH = 4;
    static final int BINDING = 5;
    static final int SESSION = 6;
    static final int READY = 7;
    static final int JOINING = 8;
    static final int JOINED = 9;
    static final int LEAVING = 10;
    static final int CLOSED = 11;
    static final int FAILED = 12;

    private static final byte[] ERROR_MARK = Bytes.ascii("<error");
    private static final byte[] PING_NS = Bytes.ascii("urn:xmpp:ping");
    private static final byte[] STATUS_201_SQ = Bytes.ascii("code='201'");
    private static final byte[] STATUS_201_DQ = Bytes.ascii("code=\"201\"");

    final LoadRun run;
    final int index;
    final String username;
    final RoomState room;
    final int slot;
    private final byte[] occupantJid;
    private final String occupantJidText;
    private final XmlScanner scanner;
    /** Scratch for {@link Delivery}'s number parsing (processor thread only). */
    final int[] parseEnd = new int[1];
    /** Set by {@link ClientProfiles#assign} before this client connects; sm and csi are null when not in the profile. */
    ClientProfile profile;
    StreamManagement sm;
    ClientStateIndication csi;

    volatile int state = NEW;
    volatile IoSession session;
    private boolean tlsDone;
    private boolean authenticated;
    private boolean registerTried;
    private boolean sessionNeeded;
    private Scram scram;

    volatile long connectStartNs;
    volatile long joinSentNs;
    volatile long firstJoinSentNs;
    private volatile boolean wantJoin;
    /** Set on the abuse scenario's attackers when the attack starts; their stanzas then go there. */
    volatile AbuseAttack attack;
    private SeqTracker tracker;

    /** Joined occupants of this client's room minus itself, fixed when messaging starts; -1 when not in the run. */
    volatile int recipients = -1;
    /** The room's planned members minus itself (every process's, when sharded); set with {@link #recipients}. */
    volatile int plannedRecipients = -1;
    private final java.util.concurrent.atomic.AtomicBoolean loginSettled = new java.util.concurrent.atomic.AtomicBoolean();

    /** Next sequence number to send; pacer thread only. */
    int nextSeq = 1;
    /** Messages this client sent and how many recipients each expected; pacer thread only. */
    long sent;

    Client(LoadRun run, int index, String username, RoomState room, int slot) {
        this.run = run;
        this.index = index;
        this.username = username;
        this.room = room;
        this.slot = slot;
        this.occupantJidText = room.jid + "/" + username;
        this.occupantJid = Bytes.ascii(occupantJidText);
        this.scanner = new XmlScanner(this, 1024);
    }

    /** True exactly once: when this client's login has succeeded or failed for good. */
    boolean settleLogin() {
        return loginSettled.compareAndSet(false, true);
    }

    boolean isJoined() {
        return state == JOINED;
    }

    SeqTracker tracker() {
        return tracker;
    }

    // ---- connection events (processor thread) ----

    void opened(IoSession s) {
        if (session != null) {
            scanner.startOver(); // connected again after a resumption cut: a new stream from its first byte
        }
        session = s;
        run.stats.connected.increment();
        if (state >= CLOSED) {
            s.closeNow(); // gave up on it (timeout, shutdown) before the TCP connect completed
            return;
        }
        state = STREAM;
        openStream();
    }

    void received(IoBuffer buf) {
        run.stats.bytesReceived.add(buf.remaining());
        run.stats.reads.increment();
        try {
            scanner.feed(buf.buf());
        } catch (RuntimeException e) {
            fail("protocol:" + e.getClass().getSimpleName());
        } finally {
            buf.free();
        }
    }

    void secured() {
        tlsDone = true;
        openStream();
    }

    void closed() {
        if (sm != null && sm.closedByCut()) {
            run.stats.disconnected.increment();
            return; // the resumption cut: connecting again
        }
        int s = state;
        if (s != CLOSED && s != FAILED && s != LEAVING) {
            run.stats.error("disconnected-by-server");
            if (s < READY) {
                run.stats.loginFailed.increment();
                profile.loginFailed.increment();
            } else if (s == JOINING) {
                run.stats.joinFailed.increment();
            }
            state = FAILED;
        }
        run.stats.disconnected.increment();
        run.clientDone(this);
    }

    /** Stops this client after an error of the given kind (counted once). */
    void fail(String kind) {
        int s = state;
        if (s == FAILED || s == CLOSED) {
            return;
        }
        run.stats.error(kind);
        if (s < READY && !(sm != null && sm.resuming())) {
            run.stats.loginFailed.increment();
            profile.loginFailed.increment();
        } else if (s == JOINING) {
            run.stats.joinFailed.increment();
        }
        state = FAILED;
        IoSession ss = session;
        if (ss != null) {
            ss.closeNow();
        } else {
            run.clientDone(this);
        }
    }

    void write(String xml) {
        if (TRACE && index == 0) {
            System.err.println("SEND " + xml);
        }
        write(xml.getBytes(StandardCharsets.UTF_8));
    }

    void write(byte[] xml) {
        IoSession s = session;
        if (s != null) {
            if (sm != null) {
                sm.write(s, xml); // counts the stanzas XEP-0198's h counts
            } else {
                s.write(IoBuffer.wrap(xml));
            }
        }
    }

    private void openStream() {
        write(profile.websocket
                ? "<open xmlns='" + WebSocketFraming.OPEN_NS + "' to='" + run.scenario.server().domain() + "' version='1.0'/>"
                : "<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' to='"
                + run.scenario.server().domain() + "' version='1.0'>");
    }

    ClientProfiles profiles() {
        return run.profiles;
    }

    /** The resumption cut (timer thread): a fresh login on a new connection follows, ending in {@code <resume/>}. */
    void beginReconnect() {
        tlsDone = false;
        authenticated = false;
        registerTried = true;
        connectStartNs = System.nanoTime();
        state = NEW;
    }

    /** {@code <resumed/>}: back in the room with the session the server kept. */
    void resumedJoined() {
        state = JOINED;
    }

    // ---- scanner callbacks ----

    @Override
    public void streamOpened(byte[] buf, int start, int end) {
        // nothing to check: the features that follow tell what to do
    }

    @Override
    public void streamClosed() {
        if (state != LEAVING) {
            run.stats.error("stream-closed-by-server");
        }
        IoSession s = session;
        if (s != null) {
            s.closeNow();
        }
    }

    /** Set {@code -Dmucscale.loadgen.trace=true} to print the first client's traffic (for debugging a server). */
    private static final boolean TRACE = Boolean.getBoolean("mucscale.loadgen.trace");

    @Override
    public void stanza(byte[] b, int start, int end, int nameStart, int nameEnd, int startTagEnd) {
        if (TRACE && index == 0) {
            System.err.println("RECV " + Bytes.text(b, start, end));
        }
        if (state >= CLOSED) {
            return;
        }
        int nameLen = nameEnd - nameStart;
        if (sm != null && (Bytes.equalsAscii(b, nameStart, nameEnd, "message")
                || Bytes.equalsAscii(b, nameStart, nameEnd, "presence") || Bytes.equalsAscii(b, nameStart, nameEnd, "iq"))) {
            sm.handled(); // XEP-0198 counts stanzas, not nonzas
        }
        AbuseAttack atk = attack;
        if (atk != null && (Bytes.equalsAscii(b, nameStart, nameEnd, "message")
                || Bytes.equalsAscii(b, nameStart, nameEnd, "presence"))) {
            atk.received(b, start, end, nameStart, nameEnd, startTagEnd); // an attacker counts its refusals
            return;
        }
        // fast path: groupchat deliveries
        if (nameLen == 7 && b[nameStart] == 'm' && Bytes.equalsAscii(b, nameStart, nameEnd, "message")) {
            Delivery.received(this, b, start, end, startTagEnd);
            return;
        }
        if (nameLen == 8 && Bytes.equalsAscii(b, nameStart, nameEnd, "presence")) {
            onPresence(b, start, end, startTagEnd);
            return;
        }
        if (nameLen == 2 && b[nameStart] == 'i' && b[nameStart + 1] == 'q') {
            onIq(b, start, end, startTagEnd);
            return;
        }
        String name = Bytes.text(b, nameStart, nameEnd);
        switch (name) {
            case "stream:features" -> onFeatures(Bytes.text(b, start, end));
            case "proceed" -> startTls();
            case "challenge" -> onChallenge(Bytes.rootText(b, startTagEnd, end));
            case "success" -> onSuccess(Bytes.rootText(b, startTagEnd, end));
            case "failure" -> fail("sasl-failure:" + Bytes.firstChildNameAfter(b, start, end, null));
            case "stream:error" -> fail("stream-error:" + Bytes.firstChildNameAfter(b, start, end, null));
            case "enabled", "r", "a", "resumed", "failed" -> {
                if (sm != null) {
                    sm.nonza(name, b, start, end, startTagEnd);
                } else {
                    run.stats.error("unexpected-element:" + name);
                }
            }
            case "close" -> streamClosed(); // RFC 7395's end of stream
            default -> run.stats.error("unexpected-element:" + name);
        }
    }

    private void onPresence(byte[] b, int start, int end, int startTagEnd) {
        if (state != JOINING) {
            return; // other occupants coming and going
        }
        long from = Bytes.attribute(b, start, startTagEnd, "from");
        if (from < 0) {
            return;
        }
        int fs = (int) (from >>> 32);
        int fe = (int) from;
        boolean mine = fe - fs == occupantJid.length && Bytes.indexOf(b, fs, fe, occupantJid) == fs;
        if (!mine) {
            if (Delivery.isErrorType(b, start, startTagEnd) && Bytes.equalsAscii(b, fs, Math.min(fe, fs + room.jid.length()), room.jid)) {
                onJoinError(Bytes.firstChildNameAfter(b, start, end, ERROR_MARK));
            }
            return;
        }
        if (Delivery.isErrorType(b, start, startTagEnd)) {
            onJoinError(Bytes.firstChildNameAfter(b, start, end, ERROR_MARK));
            return;
        }
        long now = System.nanoTime();
        run.stats.joinUs.recordValue(Math.max(0, (now - firstJoinSentNs) / 1000));
        run.stats.lastJoinAnsweredNs.accumulate(now);
        run.stats.joined.increment();
        tracker = new SeqTracker(room.members.length);
        state = JOINED;
        if (room.isCreator(this)) {
            boolean created = Bytes.contains(b, startTagEnd, end, STATUS_201_SQ) || Bytes.contains(b, startTagEnd, end, STATUS_201_DQ);
            if (created && run.scenario.rooms().instantRoomForm()) {
                run.stats.roomsCreated.increment();
                write("<iq type='set' id='inst' to='" + room.jid + "'><query xmlns='http://jabber.org/protocol/muc#owner'>"
                        + "<x xmlns='jabber:x:data' type='submit'/></query></iq>");
            } else {
                if (created) {
                    run.stats.roomsCreated.increment();
                }
                room.markReady();
            }
        }
        run.joinDone(this);
    }

    private void onJoinError(String condition) {
        run.stats.error("join-error:" + condition);
        // a room still locked by its owner answers item-not-found; the timer sweep re-sends after resendAfterMs
    }

    private void onIq(byte[] b, int start, int end, int startTagEnd) {
        String type = Bytes.attributeString(b, start, startTagEnd, "type");
        String id = Bytes.attributeString(b, start, startTagEnd, "id");
        if ("get".equals(type) || "set".equals(type)) {
            String from = Bytes.attributeString(b, start, startTagEnd, "from");
            boolean ping = Bytes.contains(b, startTagEnd, end, PING_NS);
            String to = from == null ? "" : " to='" + from + "'";
            write(ping ? "<iq type='result' id='" + id + "'" + to + "/>"
                    : "<iq type='error' id='" + id + "'" + to + "><error type='cancel'><service-unavailable "
                    + "xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>");
            return;
        }
        boolean ok = "result".equals(type);
        String condition = ok ? null : Bytes.firstChildNameAfter(b, start, end, ERROR_MARK);
        if ("reg".equals(id)) {
            if (ok) {
                run.stats.registered.increment();
            } else if (!"conflict".equals(condition)) {
                run.stats.error("register-error:" + condition);
            }
            startAuth(lastFeatures);
        } else if ("bind".equals(id)) {
            if (!ok) {
                fail("bind-error:" + condition);
            } else if (sessionNeeded) {
                state = SESSION;
                write("<iq type='set' id='sess'><session xmlns='urn:ietf:params:xml:ns:xmpp-session'/></iq>");
            } else {
                loggedIn();
            }
        } else if ("sess".equals(id)) {
            if (ok) {
                loggedIn();
            } else {
                fail("session-error:" + condition);
            }
        } else if ("inst".equals(id)) {
            if (!ok) {
                run.stats.error("instant-room-error:" + condition);
            }
            room.markReady();
        } else if ("leave".equals(id)) {
            return;
        } else if (!ok) {
            run.stats.error("iq-error:" + condition);
        }
    }

    private String lastFeatures;

    private void onFeatures(String features) {
        lastFeatures = features;
        String tls = run.scenario.server().tls();
        if (!authenticated) {
            boolean tcp = !profile.websocket; // plain ws: no STARTTLS inside a WebSocket
            if (tcp && !tlsDone && !"none".equals(tls) && features.contains("urn:ietf:params:xml:ns:xmpp-tls")) {
                state = TLS;
                write("<starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>");
                return;
            }
            if (tcp && !tlsDone && "required".equals(tls)) {
                fail("starttls-not-offered");
                return;
            }
            if (run.scenario.accounts().register() && !registerTried) {
                registerTried = true;
                state = REGISTERING;
                write("<iq type='set' id='reg'><query xmlns='jabber:iq:register'><username>" + username
                        + "</username><password>" + run.scenario.accounts().password() + "</password></query></iq>");
                return;
            }
            startAuth(features);
            return;
        }
        if (sm != null && sm.resumeInstead(features)) {
            return;
        }
        sessionNeeded = features.contains("urn:ietf:params:xml:ns:xmpp-session") && !features.contains("<optional");
        state = BINDING;
        write("<iq type='set' id='bind'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><resource>lg</resource></bind></iq>");
    }

    private void startAuth(String features) {
        String mech = run.scenario.server().sasl();
        if (features == null || !features.contains(">" + mech + "<")) {
            fail("sasl-mechanism-not-offered:" + mech);
            return;
        }
        state = AUTH;
        String password = run.scenario.accounts().password();
        String initial;
        if ("PLAIN".equals(mech)) {
            initial = "\0" + username + "\0" + password;
        } else {
            scram = new Scram(username, password);
            initial = scram.clientFirst();
        }
        write("<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='" + mech + "'>"
                + Base64.getEncoder().encodeToString(initial.getBytes(StandardCharsets.UTF_8)) + "</auth>");
    }

    private void onChallenge(String base64) {
        if (scram == null || base64 == null) {
            fail("sasl-unexpected-challenge");
            return;
        }
        String serverFirst = new String(Base64.getDecoder().decode(base64.trim()), StandardCharsets.UTF_8);
        String reply;
        try {
            reply = scram.clientFinal(serverFirst);
        } catch (IllegalStateException e) {
            fail("sasl-bad-challenge");
            return;
        }
        write("<response xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>"
                + Base64.getEncoder().encodeToString(reply.getBytes(StandardCharsets.UTF_8)) + "</response>");
    }

    private void onSuccess(String base64) {
        if (scram != null) {
            String fin = base64 == null || base64.isBlank() ? ""
                    : new String(Base64.getDecoder().decode(base64.trim()), StandardCharsets.UTF_8);
            if (!scram.verifyServerFinal(fin)) {
                fail("sasl-server-signature-mismatch");
                return;
            }
            scram = null;
        }
        authenticated = true;
        scanner.reset();
        openStream();
    }

    private void startTls() {
        IoSession s = session;
        scanner.reset();
        try {
            SslFilter filter = run.sslFilter();
            s.getFilterChain().addFirst("tls", filter);
        } catch (RuntimeException e) {
            fail("starttls-failed:" + e.getClass().getSimpleName());
        }
    }

    private void loggedIn() {
        if (sm != null) {
            sm.enableIfOffered(lastFeatures);
        }
        if (csi != null) {
            csi.loggedIn(lastFeatures);
        }
        state = READY;
        run.stats.connectUs.recordValue(Math.max(0, (System.nanoTime() - connectStartNs) / 1000));
        run.stats.loggedIn.increment();
        run.loginDone(this);
    }

    // ---- join and leave (processor thread, the run's thread, or the timer) ----

    void requestJoin() {
        wantJoin = true;
        room.requestJoin(this);
    }

    boolean wantsJoin() {
        return wantJoin;
    }

    /** Sends the join presence; {@code resend} marks a repeat after no answer (counted by the caller). */
    void sendJoin(boolean resend) {
        int s = state;
        if (s != READY && s != JOINING) {
            return;
        }
        long now = System.nanoTime();
        if (!resend) {
            firstJoinSentNs = now;
            run.stats.firstJoinSentNs.accumulate(now);
        }
        joinSentNs = now;
        state = JOINING;
        write("<presence to='" + occupantJidText + "'><x xmlns='http://jabber.org/protocol/muc'>"
                + "<history maxstanzas='0'/></x></presence>");
    }

    /** Polite exit: leave the room, close the stream; the session closes when the server answers or on timeout. */
    void leave() {
        int s = state;
        if (s == CLOSED || s == FAILED || s == LEAVING) {
            return;
        }
        state = LEAVING;
        IoSession ss = session;
        if (ss == null) {
            run.clientDone(this);
            return;
        }
        if (s == JOINED) {
            write("<presence type='unavailable' to='" + occupantJidText + "'/>");
        }
        if (profile.websocket) {
            // RFC 7395: the server answers <close/> and ends the WebSocket; closing first races Openfire's own close
            write("<close xmlns='" + WebSocketFraming.OPEN_NS + "'/>");
            return;
        }
        write("</stream:stream>");
        ss.closeOnFlush();
    }

    void closeNow() {
        int s = state;
        if (s != FAILED) {
            state = s == LEAVING || s == CLOSED ? s : CLOSED;
        }
        IoSession ss = session;
        if (ss != null) {
            ss.closeNow();
        }
    }

    /** Builds and sends one groupchat message stamped with its scheduled time; pacer thread only. */
    boolean sendMessage(long scheduledUs, String word, int bodyBytes, long maxQueuedBytes) {
        IoSession s = session;
        if (s == null || state != JOINED) {
            return false;
        }
        if (s.getScheduledWriteBytes() > maxQueuedBytes) {
            return false;
        }
        StringBuilder sb = new StringBuilder(bodyBytes + 120);
        sb.append("<message to='").append(room.jid).append("' type='groupchat'><body>~lg~")
                .append(slot).append('.').append(nextSeq).append('.').append(scheduledUs).append('~');
        if (word != null) {
            sb.append(' ').append(word).append(' ');
        }
        int bodyStart = sb.indexOf("~lg~");
        while (sb.length() - bodyStart < bodyBytes) {
            sb.append('x');
        }
        sb.append("</body></message>");
        nextSeq++;
        sent++;
        write(sb.toString().getBytes(StandardCharsets.US_ASCII));
        return true;
    }
}
