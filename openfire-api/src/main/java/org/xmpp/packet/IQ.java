package org.xmpp.packet;

import org.dom4j.Element;

/** Compile-only declaration of Tinder 2.1.0 {@code org.xmpp.packet.IQ} (members mucscale uses). */
public class IQ extends Packet {

    public IQ() {
    }

    public IQ(Element element) {
        super(element);
    }

    public IQ(Element element, boolean skipValidation) {
        super(element, skipValidation);
    }

    public Type getType() { return null; }
    public boolean isRequest() { return false; }

    @Override
    public IQ createCopy() { return null; }

    public static IQ createResultIQ(IQ iq) { return null; }

    public enum Type { get, set, result, error }
}
