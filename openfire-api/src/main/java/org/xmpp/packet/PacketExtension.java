package org.xmpp.packet;

import org.dom4j.Element;

/** Compile-only declaration of Tinder 2.1.0 {@code org.xmpp.packet.PacketExtension} (members mucscale uses). */
public class PacketExtension {

    public PacketExtension(Element element) {
        throw new UnsupportedOperationException("compile-only declaration");
    }

    public Element getElement() { return null; }
}
