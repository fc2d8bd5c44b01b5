package org.mucscale.openfire;

import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.Reader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A bare XMPP client over plain TCP for checks no library client can make: it can stop reading its socket (so the
 * server's writes back up, as with a slow phone), and enable stream management (XEP-0198) whenever the test says,
 * not only right after binding as Smack does. Once {@code <enabled/>} arrives it counts every stanza it receives and
 * answers each {@code <r/>} with that count, as a conforming client does. Every top-level element is queued whole.
 *
 * <p>Concurrency: one reader thread splits, counts and answers; the test thread sends, pauses and reads the queue.
 */
final class TcpXmppClient implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final BlockingQueue<String> elements = new LinkedBlockingQueue<>();
    private final Object gate = new Object();
    private final Thread reader;
    private boolean paused; // guarded by gate
    /** Stanzas received since {@code <enabled/>}, or -1 before it; written by the reader thread only. */
    private volatile long handled = -1;

    private TcpXmppClient(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.reader = new Thread(this::read, "tcp-xmpp-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Connects with a small receive buffer ({@code receiveBuffer} bytes), logs in with SASL PLAIN and binds. */
    static TcpXmppClient login(int port, String domain, String user, String password, String resource,
                               int receiveBuffer) throws Exception {
        Socket s = new Socket();
        s.setReceiveBufferSize(receiveBuffer); // before connect, so the TCP window is small from the start
        s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        TcpXmppClient c = new TcpXmppClient(s);
        String header = "<stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' to='"
                + domain + "' version='1.0'>";
        c.send(header);
        c.await(e -> e.contains("<mechanisms"), "stream features with SASL mechanisms");
        String token = Base64.getEncoder().encodeToString(("\0" + user + "\0" + password)
                .getBytes(StandardCharsets.UTF_8));
        c.send("<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='PLAIN'>" + token + "</auth>");
        c.await(e -> e.startsWith("<success"), "SASL success");
        c.send(header);
        c.await(e -> e.contains("urn:ietf:params:xml:ns:xmpp-bind"), "stream features with bind");
        c.send("<iq type='set' id='bind1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><resource>" + resource
                + "</resource></bind></iq>");
        c.await(e -> e.contains("bind1") && e.contains("<jid>"), "bind result");
        return c;
    }

    synchronized void send(String xml) throws IOException {
        out.write(xml.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** Stops reading the socket: what the server writes stays in the kernel's buffers, then in Openfire's. */
    void pause() {
        synchronized (gate) {
            paused = true;
        }
    }

    void resume() {
        synchronized (gate) {
            paused = false;
            gate.notifyAll();
        }
    }

    /** Stanzas counted since {@code <enabled/>} (what this client would acknowledge), or -1 before it. */
    long handled() {
        return handled;
    }

    /** The next element that {@code wanted} accepts, skipping others; fails after 30 s. */
    String await(Predicate<String> wanted, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < end) {
            String e = elements.poll(200, TimeUnit.MILLISECONDS);
            if (e != null && wanted.test(e)) {
                return e;
            }
            if (e != null && e.startsWith("<stream:error")) {
                throw new AssertionError("the server closed the stream waiting for " + what + ": " + e);
            }
        }
        throw new AssertionError("no " + what + " within 30 s");
    }

    /** The next element, or null after {@code ms}. */
    String next(long ms) throws InterruptedException {
        return elements.poll(ms, TimeUnit.MILLISECONDS);
    }

    private void read() {
        StringBuilder element = new StringBuilder();
        int depth = 0;
        int tagStart = -1;
        char quote = 0;
        char[] buf = new char[8192];
        try (Reader in = new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8)) {
            while (true) {
                synchronized (gate) {
                    while (paused) {
                        gate.wait();
                    }
                }
                int n = in.read(buf);
                if (n < 0) {
                    elements.add("</stream:stream>");
                    return;
                }
                for (int i = 0; i < n; i++) {
                    char c = buf[i];
                    if (tagStart < 0) {
                        if (c == '<') {
                            tagStart = element.length();
                            element.append(c);
                        } else if (depth >= 2) {
                            element.append(c); // text inside a stanza; whitespace between stanzas is dropped
                        }
                        continue;
                    }
                    element.append(c);
                    if (quote != 0) {
                        quote = c == quote ? 0 : quote;
                        continue;
                    }
                    if (c == '"' || c == '\'') {
                        quote = c;
                        continue;
                    }
                    if (c != '>') {
                        continue;
                    }
                    String tag = element.substring(tagStart);
                    tagStart = -1;
                    if (tag.startsWith("<stream:stream")) {
                        depth = 1; // a stream header (a restarted stream after SASL replaces the first)
                        take(element);
                    } else if (tag.startsWith("<?")) {
                        element.setLength(element.length() - tag.length());
                    } else if (tag.startsWith("</")) {
                        depth--;
                        if (depth <= 1) {
                            take(element);
                        }
                    } else if (tag.endsWith("/>")) {
                        if (depth == 1) {
                            take(element);
                        }
                    } else {
                        depth++;
                    }
                }
            }
        } catch (IOException | InterruptedException e) {
            elements.add("</stream:stream>");
        }
    }

    private void take(StringBuilder element) throws IOException {
        String e = element.toString();
        element.setLength(0);
        if (e.startsWith("<enabled")) {
            handled = 0;
        } else if (handled >= 0 && (e.startsWith("<message") || e.startsWith("<presence") || e.startsWith("<iq"))) {
            handled++;
        } else if (handled >= 0 && (e.startsWith("<r ") || e.startsWith("<r/"))) {
            send("<a xmlns='urn:xmpp:sm:3' h='" + handled + "'/>");
        }
        elements.add(e);
    }

    @Override
    public void close() {
        try {
            send("</stream:stream>");
        } catch (IOException ignored) {
            // closing anyway
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing to do
        }
        resume();
    }
}
