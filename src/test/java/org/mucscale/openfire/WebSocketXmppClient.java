package org.mucscale.openfire;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * An XMPP client over WebSocket (RFC 7395) on the JDK's WebSocket client, as a browser game connects: each received
 * text frame is one complete element, kept whole so a test can check exactly what the server framed (a stanza must
 * carry {@code xmlns="jabber:client"} itself, since no stream header declares it). SASL PLAIN, bind, then raw stanzas.
 *
 * <p>Concurrency: frames arrive on the JDK client's thread and are queued; the test thread reads the queue.
 */
final class WebSocketXmppClient implements AutoCloseable {
    private final BlockingQueue<String> frames = new LinkedBlockingQueue<>();
    private final WebSocket socket;
    private final String domain;
    private String jid;

    private WebSocketXmppClient(WebSocket socket, String domain) {
        this.socket = socket;
        this.domain = domain;
    }

    static WebSocketXmppClient login(int port, String domain, String user, String password, String resource)
            throws Exception {
        BlockingQueue<String> queue = new LinkedBlockingQueue<>();
        WebSocket.Listener listener = new WebSocket.Listener() {
            private final StringBuilder partial = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
                partial.append(data);
                if (last) {
                    queue.add(partial.toString());
                    partial.setLength(0);
                }
                ws.request(1);
                return null;
            }
        };
        WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder().subprotocols("xmpp")
                .connectTimeout(Duration.ofSeconds(10))
                .buildAsync(URI.create("ws://127.0.0.1:" + port + "/ws/"), listener).get(20, TimeUnit.SECONDS);
        WebSocketXmppClient c = new WebSocketXmppClient(ws, domain);
        c.frames.addAll(queue);
        // the listener keeps adding to its own queue: drain it through this client's
        c.drainFrom(queue);
        c.open();
        c.await(f -> f.contains("<mechanisms"), "stream features with SASL mechanisms");
        String token = Base64.getEncoder().encodeToString(("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8));
        c.send("<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='PLAIN'>" + token + "</auth>");
        c.await(f -> f.startsWith("<success"), "SASL success");
        c.open();
        c.await(f -> f.contains("urn:ietf:params:xml:ns:xmpp-bind"), "stream features with bind");
        c.send("<iq xmlns='jabber:client' type='set' id='bind1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'>"
                + "<resource>" + resource + "</resource></bind></iq>");
        String bound = c.await(f -> f.contains("bind1"), "bind result");
        int start = bound.indexOf("<jid>") + 5;
        c.jid = bound.substring(start, bound.indexOf("</jid>"));
        c.send("<presence xmlns='jabber:client'/>");
        return c;
    }

    private final Thread[] pump = new Thread[1];

    private void drainFrom(BlockingQueue<String> source) {
        Thread t = new Thread(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    frames.add(source.take());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "ws-xmpp-frames");
        t.setDaemon(true);
        t.start();
        pump[0] = t;
    }

    private void open() {
        send("<open xmlns='urn:ietf:params:xml:ns:xmpp-framing' to='" + domain + "' version='1.0'/>");
    }

    String jid() {
        return jid;
    }

    void send(String frame) {
        socket.sendText(frame, true).join();
    }

    /** The next frame that {@code wanted} accepts, skipping others; fails after 20 s. */
    String await(Predicate<String> wanted, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < end) {
            String f = frames.poll(200, TimeUnit.MILLISECONDS);
            if (f != null && wanted.test(f)) {
                return f;
            }
        }
        throw new AssertionError("no " + what + " over WebSocket within 20 s");
    }

    /** The next frame, or null after {@code ms}. */
    String next(long ms) throws InterruptedException {
        return frames.poll(ms, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        try {
            send("<close xmlns='urn:ietf:params:xml:ns:xmpp-framing'/>");
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "").get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            socket.abort();
        }
        if (pump[0] != null) {
            pump[0].interrupt();
        }
    }
}
