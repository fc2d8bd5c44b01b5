package org.mucscale.engine.muc;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/**
 * A recording implementation of our own Delivery port: every outbound stanza, as the recipient would parse it, in
 * order per recipient. Spliced deliveries are rendered to text and parsed back, so the splice itself is tested.
 */
final class RecordingDelivery implements Delivery {
    private final Map<Jid, List<XmlElement>> byRecipient = new HashMap<>();
    private final boolean parse;
    private long deliveries;
    /** Every stanza in global order, as "recipient name type". */
    private final List<String> sequence = new ArrayList<>();

    RecordingDelivery() {
        this(true);
    }

    RecordingDelivery(boolean parse) {
        this.parse = parse;
    }

    @Override
    public synchronized void deliver(RenderedStanza stanza, Jid recipient) {
        deliveries++;
        XmlElement e = parse ? TestXml.parse(stanza.forRecipient(recipient))
                : XmlElement.builder("raw").attribute("to", recipient.toString()).text(stanza.suffix()).build();
        byRecipient.computeIfAbsent(recipient, k -> new ArrayList<>()).add(e);
        sequence.add(recipient + " " + e.name() + " " + e.attribute("type"));
    }

    @Override
    public synchronized void send(XmlElement stanza) {
        deliveries++;
        Jid to = Jid.parse(stanza.attribute("to"));
        XmlElement e = parse ? TestXml.parse(stanza.toXml()) : stanza;
        byRecipient.computeIfAbsent(to, k -> new ArrayList<>()).add(e);
        sequence.add(to + " " + e.name() + " " + e.attribute("type"));
    }

    /** The global order of everything sent so far. */
    synchronized List<String> sequence() {
        return new ArrayList<>(sequence);
    }

    /** Everything sent to {@code recipient} since the last call, in order. */
    synchronized List<XmlElement> take(Jid recipient) {
        List<XmlElement> l = byRecipient.remove(recipient);
        return l == null ? List.of() : l;
    }

    synchronized List<XmlElement> peek(Jid recipient) {
        List<XmlElement> l = byRecipient.get(recipient);
        return l == null ? List.of() : new ArrayList<>(l);
    }

    synchronized long deliveries() {
        return deliveries;
    }

    synchronized void clear() {
        byRecipient.clear();
        sequence.clear();
    }
}
