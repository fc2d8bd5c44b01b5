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

    /** Usage: FakeMucServer port [domain]; prints "READY port" when accepting; stops on stdin EOF. */
    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(args[0]);
        FakeMucServer server = new FakeMucServer();
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

        Conn(IoSession session) {
            this.session = session;
        }

        void send(String s) {
            session.write(IoBuffer.wrap(s.getBytes(StandardCharsets.UTF_8)));
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
                    ? "<stream:features><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></stream:features>"
                    : "<stream:features><mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>PLAIN</mechanism>"
                    + "</mechanisms><register xmlns='http://jabber.org/features/iq-register'/></stream:features>");
        }

        @Override
        public void streamClosed() {
            send("</stream:stream>");
            session.closeOnFlush();
        }

        @Override
        public void stanza(byte[] b, int start, int end, int nameStart, int nameEnd, int startTagEnd) {
            String name = Bytes.text(b, nameStart, nameEnd);
            switch (name) {
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
                        occupants.get(i).session.write(IoBuffer.wrap(out));
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
