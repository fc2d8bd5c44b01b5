package org.mucscale.loadgen;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.AttributeKey;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.transport.socket.nio.NioSocketAcceptor;

/**
 * A deliberately trivial XMPP server for measuring the generator itself: accepts any PLAIN login and any in-band
 * registration, binds, lets clients join rooms (own presence only, no occupant broadcast) and fans every groupchat
 * message out to the room's occupants. No TLS, no storage, no checks. It exists because a real server on this
 * machine runs out of CPU long before the generator does, which would hide the generator's own cost per delivery.
 *
 * <p>Runs in its own process ({@code main}) so the generator's process CPU counts only the generator.
 * Threads: one MINA processor thread owns all room state (no locks needed).
 */
public final class FakeMucServer {
    private static final AttributeKey CONN = new AttributeKey(FakeMucServer.class, "conn");
    private final Map<String, List<Conn>> rooms = new HashMap<>();
    private final NioSocketAcceptor acceptor = new NioSocketAcceptor(1);
    /** Rooms whose first join was already swallowed (see {@link #dropFirstJoinPerRoom}). */
    private final java.util.Set<String> joinDropped = new java.util.HashSet<>();
    /** Ignore the first join presence of every room, as Openfire 5.1.1 sometimes does when rooms are created at once. */
    volatile boolean dropFirstJoinPerRoom;
    /** When set, offers STARTTLS (required) with this server context before authentication. */
    volatile javax.net.ssl.SSLContext tls;
    /** Offers XEP-0198 after authentication (resumable; {@code <r/>} every smRequestEvery stanzas). */
    volatile boolean streamManagement;
    volatile int smRequestEvery = 5;
    /** On resumption, also resends this many stanzas the client's h says it already has (a server bug). */
    volatile int resumeResendsHandled;
    /** On resumption, drops what it kept for the client instead of resending it (a server bug); counts them. */
    volatile boolean resumeDropsQueue;
    final java.util.concurrent.atomic.AtomicLong droppedOnResume = new java.util.concurrent.atomic.AtomicLong();
    final java.util.concurrent.atomic.AtomicLong resumptions = new java.util.concurrent.atomic.AtomicLong();
    /** Advertises XEP-0352 and counts the toggles it receives. */
    volatile boolean csi;
    final java.util.concurrent.atomic.AtomicLong csiInactive = new java.util.concurrent.atomic.AtomicLong();
    final java.util.concurrent.atomic.AtomicLong csiActive = new java.util.concurrent.atomic.AtomicLong();
    private final Map<String, Conn> detachedSessions = new HashMap<>();
    private int nextSmId;

    /** Usage: FakeMucServer port [sm] (sm: offer stream management); prints "READY port" when accepting; stops on stdin EOF. */
    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(args[0]);
        FakeMucServer server = new FakeMucServer();
        server.streamManagement = args.length > 1 && args[1].equals("sm");
        server.start(port);
        System.out.println("READY " + port);
        System.out.flush();
        while (System.in.read() >= 0) {
            // wait for the parent to close our stdin
        }
        server.acceptor.dispose(false);
        System.exit(0);
    }

    void stop() {
        acceptor.dispose(false);
    }

    void start(int port) throws IOException {
        acceptor.setReuseAddress(true);
        acceptor.setBacklog(4096);
        acceptor.getSessionConfig().setTcpNoDelay(true);
        acceptor.setHandler(new IoHandlerAdapter() {
            @Override
            public void sessionCreated(IoSession session) {
                session.setAttribute(CONN, new Conn(session));
            }

            @Override
            public void messageReceived(IoSession session, Object message) {
                Conn c = (Conn) session.getAttribute(CONN);
                try {
                    c.scanner.feed(((IoBuffer) message).buf());
                } catch (RuntimeException e) {
                    session.closeNow();
                }
            }

            @Override
            public void sessionClosed(IoSession session) {
                Conn c = (Conn) session.getAttribute(CONN);
                if (c != null && c.sm != null && !c.streamEnded) {
                    c.sm.detached = true; // stays in its room; what it is sent is kept for a resumption
                    detachedSessions.put(c.sm.id, c);
                    return;
                }
                if (c != null && c.room != null) {
                    List<Conn> occupants = rooms.get(c.room);
                    if (occupants != null) {
                        occupants.remove(c);
                    }
                }
            }

            @Override
            public void exceptionCaught(IoSession session, Throwable cause) {
                session.closeNow();
            }
        });
        acceptor.bind(new InetSocketAddress("127.0.0.1", port));
    }

    private final class Conn implements XmlScanner.Sink {
        final IoSession session;
        final XmlScanner scanner = new XmlScanner(this, 512);
        boolean authenticated;
        boolean secured;
        String user = "u";
        String room;
        String nick;
        byte[] fromPrefix;
        FakeSmState sm;
        boolean streamEnded;

        Conn(IoSession session) {
            this.session = session;
        }

        void send(String s) {
            deliver(s.getBytes(StandardCharsets.UTF_8));
        }

        /** A stanza to this client: counted and kept when stream management is on, only kept while detached. */
        void deliver(byte[] out) {
            FakeSmState st = sm;
            if (st == null) {
                session.write(IoBuffer.wrap(out));
                return;
            }
            boolean request = st.sent(out, smRequestEvery);
            if (!st.detached) {
                session.write(IoBuffer.wrap(out));
                if (request) {
                    nonza("<r xmlns='urn:xmpp:sm:3'/>");
                }
            }
        }

        void nonza(String s) {
            session.write(IoBuffer.wrap(s.getBytes(StandardCharsets.UTF_8)));
        }

        /** {@code <resume previd h/>}: takes over the detached session, its room place and what it kept. */
        void resume(String previd, int h) {
            Conn old = previd == null ? null : detachedSessions.remove(previd);
            if (old == null) {
                nonza("<failed xmlns='urn:xmpp:sm:3'><item-not-found xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></failed>");
                return;
            }
            resumptions.incrementAndGet();
            sm = old.sm;
            sm.detached = false;
            user = old.user;
            room = old.room;
            nick = old.nick;
            fromPrefix = old.fromPrefix;
            List<Conn> occupants = room == null ? null : rooms.get(room);
            if (occupants != null) {
                occupants.set(occupants.indexOf(old), this);
            }
            List<byte[]> handledAgain = new ArrayList<>();
            int handled = h - sm.acked;
            int k = 0;
            for (byte[] x : sm.unacked) {
                if (k >= handled) {
                    break;
                }
                if (k++ >= handled - resumeResendsHandled) {
                    handledAgain.add(x);
                }
            }
            sm.ack(h);
            nonza("<resumed xmlns='urn:xmpp:sm:3' previd='" + previd + "' h='" + sm.inbound + "'/>");
            for (byte[] x : handledAgain) {
                session.write(IoBuffer.wrap(FakeSmState.withDelay(x)));
            }
            if (resumeDropsQueue) {
                droppedOnResume.addAndGet(sm.unacked.size());
                return;
            }
            for (byte[] x : sm.unacked) {
                session.write(IoBuffer.wrap(FakeSmState.withDelay(x)));
            }
        }

        @Override
        public void streamOpened(byte[] buf, int start, int end) {
            send("<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' "
                    + "id='s' from='localhost' version='1.0'>");
            if (tls != null && !secured) {
                send("<stream:features><starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'><required/></starttls></stream:features>");
                return;
            }
            send(authenticated
                    ? "<stream:features><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/>"
                    + (streamManagement ? "<sm xmlns='urn:xmpp:sm:3'/>" : "") + (csi ? "<csi xmlns='urn:xmpp:csi:0'/>" : "")
                    + "</stream:features>"
                    : "<stream:features><mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>PLAIN</mechanism>"
                    + "</mechanisms><register xmlns='http://jabber.org/features/iq-register'/></stream:features>");
        }

        @Override
        public void streamClosed() {
            streamEnded = true;
            nonza("</stream:stream>");
            session.closeOnFlush();
        }

        @Override
        public void stanza(byte[] b, int start, int end, int nameStart, int nameEnd, int startTagEnd) {
            String name = Bytes.text(b, nameStart, nameEnd);
            if (sm != null && (name.equals("message") || name.equals("presence") || name.equals("iq"))) {
                sm.inbound++;
            }
            switch (name) {
                case "enable" -> {
                    sm = new FakeSmState("sm" + nextSmId++);
                    nonza("<enabled xmlns='urn:xmpp:sm:3' id='" + sm.id + "' resume='true'/>");
                }
                case "r" -> nonza("<a xmlns='urn:xmpp:sm:3' h='" + (sm == null ? 0 : sm.inbound) + "'/>");
                case "a" -> {
                    if (sm != null) {
                        sm.ack(Integer.parseInt(Bytes.attributeString(b, start, startTagEnd, "h")));
                    }
                }
                case "resume" -> resume(Bytes.attributeString(b, start, startTagEnd, "previd"),
                        Integer.parseInt(Bytes.attributeString(b, start, startTagEnd, "h")));
                case "inactive" -> csiInactive.incrementAndGet();
                case "active" -> csiActive.incrementAndGet();
                case "message" -> {
                    List<Conn> occupants = room == null ? null : rooms.get(room);
                    if (occupants == null) {
                        return;
                    }
                    int bodyAt = Bytes.indexOf(b, startTagEnd, end, Bytes.ascii("<body>"));
                    if (bodyAt < 0) {
                        return;
                    }
                    byte[] head = fromPrefix;
                    byte[] out = new byte[head.length + (end - bodyAt)];
                    System.arraycopy(head, 0, out, 0, head.length);
                    System.arraycopy(b, bodyAt, out, head.length, end - bodyAt);
                    for (int i = 0, n = occupants.size(); i < n; i++) {
                        occupants.get(i).deliver(out);
                    }
                }
                case "starttls" -> {
                    secured = true;
                    scanner.reset();
                    // TLS starts after <proceed/> left in the clear; the client sends nothing before it reads it
                    session.write(IoBuffer.wrap("<proceed xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>".getBytes(StandardCharsets.UTF_8)))
                            .addListener(f -> session.getFilterChain().addFirst("tls", new InlineTaskSslFilter(tls)));
                }
                case "auth" -> {
                    authenticated = true;
                    scanner.reset();
                    send("<success xmlns='urn:ietf:params:xml:ns:xmpp-sasl'/>");
                }
                case "iq" -> {
                    String id = Bytes.attributeString(b, start, startTagEnd, "id");
                    String text = Bytes.text(b, start, end);
                    if (text.contains("jabber:iq:register")) {
                        String u = Bytes.elementText(b, start, end, "username");
                        user = u == null ? user : u;
                        send("<iq type='result' id='" + id + "'/>");
                    } else if (text.contains("xmpp-bind")) {
                        send("<iq type='result' id='" + id + "'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><jid>"
                                + user + "@localhost/lg</jid></bind></iq>");
                    } else {
                        send("<iq type='result' id='" + id + "'/>");
                    }
                }
                case "presence" -> {
                    String to = Bytes.attributeString(b, start, startTagEnd, "to");
                    String type = Bytes.attributeString(b, start, startTagEnd, "type");
                    if (to == null) {
                        return;
                    }
                    int slash = to.indexOf('/');
                    String r = slash < 0 ? to : to.substring(0, slash);
                    if ("unavailable".equals(type)) {
                        List<Conn> occupants = rooms.get(r);
                        if (occupants != null) {
                            occupants.remove(this);
                        }
                        room = null;
                        send("<presence type='unavailable' from='" + to + "'/>");
                        return;
                    }
                    if (dropFirstJoinPerRoom && joinDropped.add(r)) {
                        return;
                    }
                    boolean created = !rooms.containsKey(r);
                    List<Conn> occupants = rooms.computeIfAbsent(r, k -> new ArrayList<>());
                    if (!occupants.contains(this)) {
                        occupants.add(this);
                    }
                    room = r;
                    nick = slash < 0 ? user : to.substring(slash + 1);
                    fromPrefix = ("<message type='groupchat' from='" + r + "/" + nick + "'>").getBytes(StandardCharsets.UTF_8);
                    send("<presence from='" + to + "'><x xmlns='http://jabber.org/protocol/muc#user'>"
                            + "<item affiliation='" + (created ? "owner" : "none") + "' role='participant'/>"
                            + (created ? "<status code='201'/>" : "") + "<status code='110'/></x></presence>");
                }
                default -> {
                }
            }
        }
    }
}
