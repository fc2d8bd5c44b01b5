package org.mucscale.openfire;

import java.util.concurrent.atomic.LongAdder;
import org.jivesoftware.openfire.PacketRouter;
import org.jivesoftware.openfire.RoutingTable;
import org.jivesoftware.openfire.XMPPServer;
import org.jivesoftware.openfire.session.ClientSession;
import org.jivesoftware.openfire.session.LocalClientSession;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xmpp.packet.IQ;
import org.xmpp.packet.JID;
import org.xmpp.packet.Packet;

/**
 * The engine's outbound stanzas into Openfire.
 *
 * <p><b>Direct local delivery</b> (setting {@code mucscale.openfire.direct-local-delivery}, on by default): a message
 * or presence for a full JID whose session is a {@link LocalClientSession} on this node goes straight to
 * {@code session.process(packet)}. That is the same call Openfire's routing table ends in, so the recipient's privacy
 * and block lists ({@code canDeliver}), outgoing interceptors ({@code incoming=false}), client state indication and
 * stream management (XEP-0198 acks and resumption) all still apply. What it skips is {@code MessageRouter}/
 * {@code PresenceRouter}: interceptors are not invoked a second time as "incoming, session null" for each occupant
 * copy (other plugins' interceptors still see the copy once, outgoing, on the recipient's session), and the routing
 * table lookup is done once here instead of inside the router. Everything else (bare JIDs, IQs, users on other
 * cluster nodes, remote servers, sessions not yet available) is routed through Openfire's {@link PacketRouter}.
 *
 * <p><b>Serialize once</b>: a broadcast arrives as one {@link RenderedStanza} with many recipients. It is parsed once
 * ({@link ParsedStanzaCache}: keyed by the rendered stanza's identity, so an occupant's cached presence is parsed once
 * for all joiners too, and room threads do not evict each other's broadcasts) and copied per recipient with only
 * {@code to} changed; Openfire then writes each copy to its socket.
 *
 * <p>Concurrency: called from any engine room thread; the parse cache is lock-free (see its note). Counters are
 * {@link LongAdder}s.
 */
public final class OpenfireDelivery implements Delivery {

    private static final Logger LOG = LoggerFactory.getLogger(OpenfireDelivery.class);

    private final RoutingTable routingTable;
    private final PacketRouter router;
    private volatile boolean directLocal;
    private final ParsedStanzaCache parsed = new ParsedStanzaCache();
    private final LongAdder direct = new LongAdder();
    private final LongAdder routed = new LongAdder();
    private final LongAdder failed = new LongAdder();

    public OpenfireDelivery(XMPPServer server, boolean directLocal) {
        this.routingTable = server.getRoutingTable();
        this.router = server.getPacketRouter();
        this.directLocal = directLocal;
    }

    /** Turns direct local delivery on or off (dynamic setting). */
    public void directLocal(boolean on) {
        this.directLocal = on;
    }

    @Override
    public void deliver(RenderedStanza stanza, Jid recipient) {
        Packet packet;
        try {
            packet = StanzaConversion.wrap(parsed.copyFor(stanza, recipient));
        } catch (RuntimeException e) {
            failed.increment();
            LOG.error("MUC Scale could not deliver a stanza to {}: {}", recipient, e.getMessage());
            return;
        }
        route(packet);
    }

    @Override
    public void send(XmlElement stanza) {
        Packet packet;
        try {
            packet = StanzaConversion.toPacket(stanza);
        } catch (RuntimeException e) {
            failed.increment();
            LOG.error("MUC Scale could not convert an outbound <{}>: {}", stanza.name(), e.getMessage());
            return;
        }
        route(packet);
    }

    private void route(Packet packet) {
        JID to = packet.getTo();
        if (directLocal && to != null && to.getResource() != null && !(packet instanceof IQ)) {
            ClientSession session = routingTable.getClientRoute(to);
            if (session instanceof LocalClientSession local && !local.isDetached()) {
                local.process(packet);
                direct.increment();
                return;
            }
        }
        router.route(packet);
        routed.increment();
    }

    /** Stanzas written straight to local sessions. */
    public long directCount() {
        return direct.sum();
    }

    /** Stanzas handed to Openfire's router. */
    public long routedCount() {
        return routed.sum();
    }

    /** Rendered stanzas parsed into dom4j (each broadcast and each cached presence once, unless evicted). */
    public long parseCount() {
        return parsed.parseCount();
    }

    /** Stanzas that could not be converted (each logged). */
    public long failedCount() {
        return failed.sum();
    }
}
