package org.mucscale.standalone;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.mucscale.engine.stanza.XmlElement;

/**
 * A minimal c2s client over a plain socket for tests that need many connections or raw bytes: SASL PLAIN, resource
 * binding, then raw writes; every inbound stanza lands in a queue (parsed by {@link XmppStreamDecoder}). One reader
 * thread per client.
 */
final class RawXmppClient implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final BlockingQueue<XmlElement> inbox = new LinkedBlockingQueue<>();
    private final Thread reader;
    private final String domain;
    private volatile String fullJid;
    private volatile boolean streamOpen;
    private volatile Throwable readFailure;
    private final Object openLock = new Object();

    private RawXmppClient(int port, String domain) throws IOException {
        this.domain = domain;
        this.socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setTcpNoDelay(true);
        this.out = socket.getOutputStream();
        this.reader = new Thread(null, this::readLoop, "raw-client", 256 * 1024);
        reader.setDaemon(true);
        reader.start();
    }

    /** Connects, authenticates and binds {@code resource}. */
    static RawXmppClient login(int port, String domain, String user, String password, String resource)
            throws IOException, InterruptedException {
        RawXmppClient c = new RawXmppClient(port, domain);
        try {
            c.openStream();
            c.expect(e -> e.name().equals("features"), "stream features");
            String auth = Base64.getEncoder().encodeToString(("\0" + user + "\0" + password)
                    .getBytes(StandardCharsets.UTF_8));
            c.write("<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='PLAIN'>" + auth + "</auth>");
            XmlElement result = c.expect(e -> e.name().equals("success") || e.name().equals("failure"), "sasl result");
            if (!result.name().equals("success")) {
                throw new IOException("login of " + user + " failed: " + result);
            }
            c.openStream();
            c.expect(e -> e.name().equals("features"), "stream features after auth");
            c.write("<iq type='set' id='bind'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><resource>" + resource
                    + "</resource></bind></iq>");
            XmlElement bound = c.expect(e -> "bind".equals(e.attribute("id")), "bind result");
            c.fullJid = bound.child("bind").childText("jid");
            return c;
        } catch (IOException | InterruptedException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private void openStream() throws IOException, InterruptedException {
        streamOpen = false;
        synchronized (openLock) {
            restart = true;
        }
        write("<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams'"
                + " to='" + domain + "' version='1.0'>");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        synchronized (openLock) {
            while (!streamOpen) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || readFailure != null) {
                    throw new IOException("no stream header from the server", readFailure);
                }
                openLock.wait(TimeUnit.NANOSECONDS.toMillis(left) + 1);
            }
        }
    }

    private boolean restart;

    private void readLoop() {
        byte[] buf = new byte[16384];
        XmppStreamDecoder decoder = null;
        XmppStreamDecoder.Listener listener = new XmppStreamDecoder.Listener() {
            @Override
            public void streamOpened(Map<String, String> attributes) {
                synchronized (openLock) {
                    streamOpen = true;
                    openLock.notifyAll();
                }
            }

            @Override
            public void element(XmlElement element) {
                inbox.add(element);
            }

            @Override
            public void streamClosed() {
            }
        };
        try {
            InputStream in = socket.getInputStream();
            int n;
            while ((n = in.read(buf)) > 0) {
                // After SASL success the server says nothing until we open a new stream, so a restart flag set
                // before our new header is written always applies to the next bytes read.
                synchronized (openLock) {
                    if (restart) {
                        decoder = new XmppStreamDecoder(8 * 1024 * 1024);
                        restart = false;
                    }
                }
                decoder.feed(ByteBuffer.wrap(buf, 0, n), listener);
            }
        } catch (Exception e) {
            readFailure = e;
        }
    }

    String jid() {
        return fullJid;
    }

    void write(String xml) throws IOException {
        synchronized (out) {
            out.write(xml.getBytes(StandardCharsets.UTF_8));
            out.flush();
        }
    }

    void writeBytes(byte[] bytes) throws IOException {
        synchronized (out) {
            out.write(bytes);
            out.flush();
        }
    }

    /** Next stanza matching {@code p} within 10 s; stanzas that do not match are dropped. */
    XmlElement expect(Predicate<XmlElement> p, String what) throws InterruptedException, IOException {
        return expect(p, what, Duration.ofSeconds(10));
    }

    XmlElement expect(Predicate<XmlElement> p, String what, Duration timeout) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            XmlElement e = left <= 0 ? null : inbox.poll(left, TimeUnit.NANOSECONDS);
            if (e == null) {
                throw new IOException("timed out waiting for " + what + (readFailure == null ? ""
                        : " (reader failed: " + readFailure + ")"));
            }
            if (p.test(e)) {
                return e;
            }
        }
    }

    /** Next stanza of any kind, or null after the timeout. */
    XmlElement poll(Duration timeout) throws InterruptedException {
        return inbox.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Everything received so far. */
    List<XmlElement> drain() {
        List<XmlElement> all = new ArrayList<>();
        inbox.drainTo(all);
        return all;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a test client
        }
    }
}
