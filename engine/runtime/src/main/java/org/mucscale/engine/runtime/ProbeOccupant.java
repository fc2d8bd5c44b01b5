package org.mucscale.engine.runtime;

import java.util.List;
import java.util.function.Consumer;
import org.mucscale.engine.metrics.Probe;
import org.mucscale.engine.metrics.ProbeTransport;
import org.mucscale.engine.port.Clock;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/**
 * The end-to-end probe's internal occupant. It joins its rooms like any user (its real address is on a reserved
 * domain, {@value #DOMAIN}, that never leaves the engine), sends its stamped groupchat messages through the MUC
 * engine's real path (room queue, flood control, filter, log, render-once fan-out) and receives them back at the
 * {@link Delivery} boundary, where every other occupant's copy is written to the network at the same moment.
 *
 * <p>It is a {@link Delivery} decorator: stanzas for the probe's address are consumed here, everything else passes
 * to the host's delivery untouched. The check is one domain comparison per delivery.
 */
final class ProbeOccupant implements Delivery, ProbeTransport {
    static final String DOMAIN = "probe.mucscale.invalid";
    static final String NICK = "mucscale-probe";

    private final Delivery host;
    private final Jid serviceJid;
    private final Jid self;
    private final String nick;
    private final Clock clock;
    private volatile Consumer<XmlElement> engine;
    private volatile Probe probe;

    /** {@code node}: this cluster node's id (each node's probe is its own occupant), or null alone. */
    ProbeOccupant(Delivery host, Jid serviceJid, Clock clock, String node) {
        this.host = host;
        this.serviceJid = serviceJid;
        this.self = Jid.of("probe", DOMAIN, node == null ? "engine" : "engine-" + node);
        this.nick = node == null ? NICK : NICK + "-" + Integer.toHexString(node.hashCode());
        this.clock = clock;
    }

    /** The probe's real address, which the MUC engine treats as a service admin so it may create its rooms. */
    Jid address() {
        return self;
    }

    /** Joins every room (creating it as an instant, hidden room when new) and starts routing replies to the probe. */
    void attach(Consumer<XmlElement> engineInput, Probe attachedProbe, List<String> rooms) {
        this.engine = engineInput;
        this.probe = attachedProbe;
        for (String room : rooms) {
            Jid roomJid = roomJid(room);
            engineInput.accept(XmlElement.builder("presence")
                    .attribute("from", self.toString())
                    .attribute("to", roomJid.toString() + "/" + nick)
                    .child(XmlElement.builder("x", "http://jabber.org/protocol/muc")
                            .child(XmlElement.builder("history").attribute("maxstanzas", "0").build()).build())
                    .build());
            // Unlocks the room if the probe just created it; an existing room answers forbidden, which is dropped.
            engineInput.accept(XmlElement.builder("iq").attribute("type", "set").attribute("id", "probe-config")
                    .attribute("from", self.toString()).attribute("to", roomJid.toString())
                    .child(XmlElement.builder("query", "http://jabber.org/protocol/muc#owner")
                            .child(XmlElement.builder("x", "jabber:x:data").attribute("type", "submit")
                                    .child(field("FORM_TYPE", "http://jabber.org/protocol/muc#roomconfig"))
                                    .child(field("muc#roomconfig_publicroom", "0"))
                                    .build())
                            .build())
                    .build());
        }
    }

    void detach() {
        probe = null;
        engine = null;
    }

    @Override
    public void send(String room, String body) {
        Consumer<XmlElement> in = engine;
        if (in == null) {
            throw new IllegalStateException("the probe occupant is not attached");
        }
        in.accept(XmlElement.builder("message").attribute("type", "groupchat")
                .attribute("from", self.toString()).attribute("to", roomJid(room).toString())
                .textChild("body", body).build());
    }

    @Override
    public void deliver(RenderedStanza stanza, Jid recipient) {
        if (!DOMAIN.equals(recipient.domain())) {
            host.deliver(stanza, recipient);
            return;
        }
        Probe p = probe;
        if (p != null && stanza.prefix().startsWith("<message")) {
            long receivedNs = clock.nanoTime();
            String body = bodyOf(stanza.suffix());
            if (body != null) {
                p.onReceived(body, receivedNs);
            }
        }
    }

    @Override
    public void send(XmlElement stanza) {
        String to = stanza.attribute("to");
        if (to != null && to.contains(DOMAIN) && DOMAIN.equals(domainOf(to))) {
            return; // presence, subject and errors for the probe itself
        }
        host.send(stanza);
    }

    @Override
    public void flush() {
        host.flush();
    }

    Jid roomJid(String room) {
        return room.indexOf('@') >= 0 ? Jid.parse(room).bare() : Jid.of(room, serviceJid.domain(), null);
    }

    private static XmlElement field(String var, String value) {
        return XmlElement.builder("field").attribute("var", var).textChild("value", value).build();
    }

    private static String domainOf(String jid) {
        int at = jid.indexOf('@');
        int slash = jid.indexOf('/', at + 1);
        return jid.substring(at + 1, slash < 0 ? jid.length() : slash);
    }

    /** The probe's own bodies hold no characters that XML escapes, so the raw text between the tags is the body. */
    static String bodyOf(String renderedSuffix) {
        int start = renderedSuffix.indexOf("<body>");
        if (start < 0) {
            return null;
        }
        int end = renderedSuffix.indexOf("</body>", start);
        return end < 0 ? null : renderedSuffix.substring(start + 6, end);
    }
}
