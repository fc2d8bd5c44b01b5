package org.xmpp.packet;

import org.dom4j.Element;

/** Compile-only declaration of Tinder 2.1.0 {@code org.xmpp.packet.Message} (members mucscale uses). */
public class Message extends Packet {

    public Message() {
    }

    public Message(Element element) {
        super(element);
    }

    public Message(Element element, boolean skipValidation) {
        super(element, skipValidation);
    }

    public Type getType() { return null; }
    public void setType(Type type) { }
    public String getSubject() { return null; }
    public void setSubject(String subject) { }
    public String getBody() { return null; }
    public void setBody(String body) { }
    public String getThread() { return null; }
    public void setThread(String thread) { }
    public Element getChildElement(String name, String namespace) { return null; }
    public Element addChildElement(String name, String namespace) { return null; }

    @Override
    public Message createCopy() { return null; }

    public enum Type { normal, chat, groupchat, headline, error }
}
