package org.xmpp.packet;

import org.dom4j.Element;

/** Compile-only declaration of Tinder 2.1.0 {@code org.xmpp.packet.Packet} (members mucscale uses). */
public abstract class Packet {

    protected Element element;
    protected JID toJID;
    protected JID fromJID;

    protected Packet() {
    }

    public Packet(Element element) {
        throw new UnsupportedOperationException("compile-only declaration");
    }

    public Packet(Element element, boolean skipValidation) {
        throw new UnsupportedOperationException("compile-only declaration");
    }

    public String getID() { return null; }
    public void setID(String ID) { }
    public JID getTo() { return null; }
    public void setTo(String to) { }
    public void setTo(JID to) { }
    public JID getFrom() { return null; }
    public void setFrom(String from) { }
    public void setFrom(JID from) { }
    public PacketError getError() { return null; }
    public void setError(PacketError error) { }
    public void setError(PacketError.Condition condition) { }
    public void addExtension(PacketExtension extension) { }
    public PacketExtension getExtension(String name, String namespace) { return null; }
    public boolean deleteExtension(String name, String namespace) { return false; }
    public abstract Packet createCopy();
    public Element getElement() { return null; }
    public String toXML() { return null; }
    @Override
    public String toString() { return null; }
}
