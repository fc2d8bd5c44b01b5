package org.xmpp.packet;

import org.dom4j.Element;

/** Compile-only declaration of Tinder 2.1.0 {@code org.xmpp.packet.Presence} (members mucscale uses). */
public class Presence extends Packet {

    public Presence() {
    }

    public Presence(Element element) {
        super(element);
    }

    public Presence(Element element, boolean skipValidation) {
        super(element, skipValidation);
    }

    public Type getType() { return null; }

    @Override
    public Presence createCopy() { return null; }

    public enum Type { unavailable, subscribe, subscribed, unsubscribe, unsubscribed, probe, error }
}
