package org.mucscale.standalone;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.mucscale.engine.stanza.XmlElement;

/**
 * The server side of XEP-0114 on a real loopback socket, for input no real server would send: malformed XML,
 * oversized stanzas, invalid addresses. Accepts any handshake digest that is correct for {@code secret}; every
 * element the component sends lands in {@link #received}. One connection at a time (a reconnect replaces it).
 */
final class FakeComponentServer implements AutoCloseable {
    private final ServerSocket listener;
    private final String secret;
    private final Thread acceptor;
    final BlockingQueue<XmlElement> received = new LinkedBlockingQueue<>();
    final AtomicInteger handshakes = new AtomicInteger();
    /** Bytes received on all connections (whitespace keepalives included). */
    final java.util.concurrent.atomic.AtomicLong bytesReceived = new java.util.concurrent.atomic.AtomicLong();
    private volatile Socket current;
    private volatile boolean closed;
    /** While true the server reads nothing more, so the component's write queue fills (TCP back-pressure). */
    volatile boolean paused;
    /** Why the server stopped reading a connection (null while it reads, or when the component closed it). */
    volatile Exception failure;
    /** When set, only the elements it accepts are queued in {@link #received} (long runs would fill memory). */
    volatile Predicate<XmlElement> keep;

    FakeComponentServer(String secret) throws IOException {
        this.secret = secret;
        this.listener = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "fake-xmpp-server");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket s = listener.accept();
                current = s;
                Thread t = new Thread(() -> serve(s), "fake-xmpp-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        String streamId = "fake" + System.nanoTime();
        XmppStreamDecoder decoder = new XmppStreamDecoder(16 * 1024 * 1024);
        try {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            XmppStreamDecoder.Listener l = new XmppStreamDecoder.Listener() {
                @Override
                public void streamOpened(Map<String, String> attributes) {
                    write(out, "<?xml version='1.0'?><stream:stream xmlns='jabber:component:accept' "
                            + "xmlns:stream='http://etherx.jabber.org/streams' id='" + streamId + "' from='"
                            + attributes.get("to") + "'>");
                }

                @Override
                public void element(XmlElement element) {
                    if (element.name().equals("handshake")) {
                        if (ComponentConnection.sha1Hex(streamId + secret).equals(element.text())) {
                            handshakes.incrementAndGet();
                            write(out, "<handshake/>");
                        } else {
                            write(out, "<stream:error><not-authorized xmlns='urn:ietf:params:xml:ns:xmpp-streams'/>"
                                    + "</stream:error></stream:stream>");
                        }
                        return;
                    }
                    Predicate<XmlElement> k = keep;
                    if (k == null || k.test(element)) {
                        received.add(element);
                    }
                }

                @Override
                public void streamClosed() {
                }
            };
            byte[] buf = new byte[65536];
            int n;
            while ((n = in.read(buf)) > 0) {
                bytesReceived.addAndGet(n);
                decoder.feed(ByteBuffer.wrap(buf, 0, n), l);
                while (paused && !s.isClosed()) {
                    Thread.sleep(10);
                }
            }
        } catch (Exception e) {
            // the component closed the connection (or sent a stream error): a reconnect follows
            failure = e;
        }
    }

    private static void write(OutputStream out, String xml) {
        try {
            synchronized (out) {
                out.write(xml.getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        } catch (IOException e) {
            // connection gone
        }
    }

    /** Writes raw bytes on the current connection. */
    void send(String xml) throws IOException {
        Socket s = current;
        if (s == null) {
            throw new IOException("no component connected");
        }
        write(s.getOutputStream(), xml);
    }

    /** Next element from the component matching {@code p}, dropping others. */
    XmlElement expect(Predicate<XmlElement> p, String what, Duration timeout) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            XmlElement e = left <= 0 ? null : received.poll(left, TimeUnit.NANOSECONDS);
            if (e == null) {
                throw new IOException("timed out waiting for " + what);
            }
            if (p.test(e)) {
                return e;
            }
        }
    }

    /** Waits until the component has completed {@code count} handshakes in total. */
    void awaitHandshakes(int count, Duration timeout) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (handshakes.get() < count) {
            if (System.nanoTime() > deadline) {
                throw new IOException("only " + handshakes.get() + " handshakes, wanted " + count);
            }
            Thread.sleep(10);
        }
        Thread.sleep(50); // let the component mark the stream ready
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        Socket s = current;
        if (s != null) {
            s.close();
        }
    }
}
