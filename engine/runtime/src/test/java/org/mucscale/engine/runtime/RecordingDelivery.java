package org.mucscale.engine.runtime;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/** Our own Delivery port, recording what the engine sends as XML text addressed to each recipient. */
final class RecordingDelivery implements Delivery {
    record Sent(String to, String xml) {
    }

    final List<Sent> sent = new CopyOnWriteArrayList<>();
    final java.util.concurrent.atomic.AtomicInteger flushes = new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public void flush() {
        flushes.incrementAndGet();
    }

    @Override
    public void deliver(RenderedStanza stanza, Jid recipient) {
        sent.add(new Sent(recipient.toString(), stanza.forRecipient(recipient)));
    }

    @Override
    public void send(XmlElement stanza) {
        sent.add(new Sent(stanza.attribute("to"), stanza.toXml()));
    }

    List<String> to(String recipient) {
        return sent.stream().filter(s -> recipient.equals(s.to())).map(Sent::xml).toList();
    }
}
