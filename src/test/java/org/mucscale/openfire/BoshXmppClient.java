package org.mucscale.openfire;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * An XMPP client over BOSH (XEP-0124 with XEP-0206, Openfire's /http-bind/ endpoint) on the JDK's HttpClient, as a
 * browser game without WebSocket connects. Each response body is parsed with a namespace-aware XML parser, so a test
 * sees every stanza as a client would: a stanza that does not declare {@code jabber:client} itself lands in the BOSH
 * body's namespace ({@code http://jabber.org/protocol/httpbind}) and is not a stanza at all. SASL PLAIN, a stream
 * restart, bind, then raw stanzas; one empty request is always held at the server for it to answer with what comes.
 *
 * <p>Concurrency: requests are sent from the test thread and from the JDK client's threads (the next poll when a
 * response has come); {@link #lock} orders the request ids and hands the responses' stanzas over in request-id order,
 * which is the order the server answered them in (XEP-0124 section 14). The test thread reads {@link #stanzas}.
 */
final class BoshXmppClient implements AutoCloseable {
    static final String NS_BOSH = "http://jabber.org/protocol/httpbind";
    static final String NS_CLIENT = "jabber:client";
    private static final Duration WAIT = Duration.ofSeconds(10);

    /** A stanza (or nonza) as received: its element and the namespace the client's parser put it in. */
    record Received(Element element, String namespace) {
        String name() {
            return element.getLocalName();
        }

        String attribute(String name) {
            return element.hasAttribute(name) ? element.getAttribute(name) : null;
        }

        /** The text of the first child element named {@code name}, or null. */
        String childText(String name) {
            for (Node n = element.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element e && name.equals(e.getLocalName())) {
                    return e.getTextContent();
                }
            }
            return null;
        }

        boolean hasStatus(String code) {
            var statuses = element.getElementsByTagNameNS("http://jabber.org/protocol/muc#user", "status");
            for (int i = 0; i < statuses.getLength(); i++) {
                if (code.equals(((Element) statuses.item(i)).getAttribute("code"))) {
                    return true;
                }
            }
            return false;
        }
    }

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private final URI endpoint;
    private final String domain;
    private final BlockingQueue<Received> stanzas = new LinkedBlockingQueue<>();
    private final Object lock = new Object();
    /** Guarded by {@link #lock}: the next request id, the responses waiting for an earlier one, and what is out. */
    private long nextRid = 1_000_000L + (long) (Math.random() * 1_000_000);
    private long nextToHandOver;
    private final TreeMap<Long, String> answered = new TreeMap<>();
    private int outstanding;
    private volatile boolean polling;
    private volatile boolean closed;
    private volatile Throwable failure;
    private String sid;
    private String jid;

    private BoshXmppClient(int port, String domain) {
        this.endpoint = URI.create("http://127.0.0.1:" + port + "/http-bind/");
        this.domain = domain;
    }

    static BoshXmppClient login(int port, String domain, String user, String password, String resource)
            throws Exception {
        BoshXmppClient c = new BoshXmppClient(port, domain);
        String created = c.exchange("<body xmlns='" + NS_BOSH + "' xmlns:xmpp='urn:xmpp:xbosh' content='text/xml; "
                + "charset=utf-8' hold='1' rid='" + c.takeRid() + "' to='" + domain + "' ver='1.6' wait='"
                + WAIT.toSeconds() + "' xml:lang='en' xmpp:version='1.0'/>");
        Element body = parse(created);
        c.sid = body.getAttribute("sid");
        if (c.sid.isEmpty()) {
            throw new AssertionError("no BOSH session: " + created);
        }
        c.handOver(body);
        c.await(r -> "features".equals(r.name()) && r.element.getTextContent().contains("PLAIN"),
                "stream features with SASL PLAIN");
        String token = Base64.getEncoder().encodeToString(("\0" + user + "\0" + password)
                .getBytes(StandardCharsets.UTF_8));
        c.handOver(parse(c.exchange(c.body("<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='PLAIN'>"
                + token + "</auth>", ""))));
        c.await(r -> "success".equals(r.name()), "SASL success");
        c.handOver(parse(c.exchange(c.body("", " to='" + domain + "' xml:lang='en' xmpp:restart='true'"
                + " xmlns:xmpp='urn:xmpp:xbosh'"))));
        c.await(r -> "features".equals(r.name()) && r.element.getElementsByTagNameNS(
                "urn:ietf:params:xml:ns:xmpp-bind", "bind").getLength() > 0, "stream features with bind");
        c.handOver(parse(c.exchange(c.body("<iq xmlns='jabber:client' type='set' id='bind1'><bind "
                + "xmlns='urn:ietf:params:xml:ns:xmpp-bind'><resource>" + resource + "</resource></bind></iq>", ""))));
        Received bound = c.await(r -> "bind1".equals(r.attribute("id")), "bind result");
        c.jid = bound.element.getElementsByTagNameNS("urn:ietf:params:xml:ns:xmpp-bind", "jid").item(0)
                .getTextContent();
        c.startPolling();
        c.send("<presence xmlns='jabber:client'/>");
        return c;
    }

    String jid() {
        return jid;
    }

    /** Sends {@code stanzas} in one request; what the server answers it with is handed over like any response. */
    void send(String stanzas) {
        synchronized (lock) { // the id and the sending in one step, so requests leave in id order
            outstanding++;
            sendAsync(body(stanzas, ""));
        }
    }

    /** The next stanza that {@code wanted} accepts, skipping others; fails after 20 s. */
    Received await(Predicate<Received> wanted, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < end) {
            Received r = stanzas.poll(200, TimeUnit.MILLISECONDS);
            if (r != null && wanted.test(r)) {
                return r;
            }
            if (failure != null) {
                throw new AssertionError("BOSH request failed while waiting for " + what, failure);
            }
        }
        throw new AssertionError("no " + what + " over BOSH within 20 s");
    }

    /** The next stanza, or null after {@code ms}. */
    Received next(long ms) throws InterruptedException {
        return stanzas.poll(ms, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        closed = true;
        polling = false;
        try {
            exchange(body("<presence xmlns='jabber:client' type='unavailable'/>", " type='terminate'"));
        } catch (Exception e) {
            // the session times out at the server instead
        }
    }

    // ---------------------------------------------------------------------------------------------------------------

    private long takeRid() {
        synchronized (lock) {
            if (nextToHandOver == 0) {
                nextToHandOver = nextRid;
            }
            return nextRid++;
        }
    }

    /** A request body with the next request id; the id is taken here, so bodies are built in sending order. */
    private String body(String payload, String attributes) {
        long rid = takeRid();
        return "<body xmlns='" + NS_BOSH + "' rid='" + rid + "' sid='" + sid + "'" + attributes + ">" + payload
                + "</body>";
    }

    /** One request answered before the next is sent (log-in). */
    private String exchange(String body) throws Exception {
        HttpResponse<String> r = http.send(request(body), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new AssertionError("BOSH request answered " + r.statusCode() + ": " + r.body());
        }
        synchronized (lock) {
            nextToHandOver = rid(body) + 1;
        }
        return r.body();
    }

    private void startPolling() {
        polling = true;
        poll();
    }

    private void poll() {
        String body;
        synchronized (lock) {
            if (!polling || outstanding > 0) {
                return;
            }
            body = body("", "");
            outstanding++;
            sendAsync(body);
        }
    }

    /** Called under {@link #lock}, so requests leave in request-id order. */
    private void sendAsync(String body) {
        long rid = rid(body);
        http.sendAsync(request(body), HttpResponse.BodyHandlers.ofString()).whenComplete((r, t) -> {
            if (t == null && r.statusCode() != 200) {
                t = new AssertionError("BOSH request " + rid + " answered " + r.statusCode() + ": " + r.body());
            }
            if (t != null) {
                if (!closed) {
                    failure = t;
                }
                return;
            }
            answered(rid, r.body());
            poll();
        });
    }

    private void answered(long rid, String response) {
        List<String> ready = new ArrayList<>();
        synchronized (lock) {
            outstanding--;
            answered.put(rid, response);
            while (!answered.isEmpty() && answered.firstKey() == nextToHandOver) {
                ready.add(answered.pollFirstEntry().getValue());
                nextToHandOver++;
            }
            // hand over under the lock too, so two responses' stanzas keep their order
            for (String text : ready) {
                try {
                    handOver(parse(text));
                } catch (Exception e) {
                    failure = e;
                }
            }
        }
    }

    private void handOver(Element body) {
        if (!NS_BOSH.equals(body.getNamespaceURI()) || !"body".equals(body.getLocalName())) {
            throw new AssertionError("not a BOSH body: " + body.getTagName());
        }
        if ("terminate".equals(body.getAttribute("type")) && !closed) {
            failure = new AssertionError("the server ended the BOSH session: " + body.getAttribute("condition"));
        }
        for (Node n = body.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e) {
                stanzas.add(new Received(e, e.getNamespaceURI()));
            }
        }
    }

    private HttpRequest request(String body) {
        return HttpRequest.newBuilder(endpoint).timeout(WAIT.plusSeconds(20))
                .header("Content-Type", "text/xml; charset=utf-8")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build();
    }

    private static long rid(String body) {
        int at = body.indexOf(" rid='") + 6;
        return Long.parseLong(body.substring(at, body.indexOf('\'', at)));
    }

    private static Element parse(String xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)))
                .getDocumentElement();
    }
}
