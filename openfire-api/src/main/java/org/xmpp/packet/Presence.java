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

    public boolean isAvailable() { return false; }
    public Type getType() { return null; }
    public void setType(Type type) { }
    public Show getShow() { return null; }
    public void setShow(Show show) { }
    public String getStatus() { return null; }
    public void setStatus(String status) { }
    public int getPriority() { return 0; }
    public void setPriority(int priority) { }
    public Element getChildElement(String name, String namespace) { return null; }
    public Element addChildElement(String name, String namespace) { return null; }

    @Override
    public Presence createCopy() { return null; }

    public enum Show { chat, away, xa, dnd }

    public enum Type { unavailable, subscribe, subscribed, unsubscribe, unsubscribed, probe, error }
}
