package org.mucscale.openfire;

import java.util.List;
import org.dom4j.Attribute;
import org.dom4j.CDATA;
import org.dom4j.DocumentHelper;
import org.dom4j.Element;
import org.dom4j.Entity;
import org.dom4j.Namespace;
import org.dom4j.Node;
import org.dom4j.QName;
import org.dom4j.Text;
import org.mucscale.engine.stanza.XmlElement;
import org.xmpp.packet.IQ;
import org.xmpp.packet.Message;
import org.xmpp.packet.Packet;
import org.xmpp.packet.Presence;

/**
 * Converts between Openfire's stanzas (Tinder packets over dom4j) and the engine's {@link XmlElement}, at the edge of
 * the adapter: the engine never sees dom4j or Tinder.
 *
 * <p>Namespaces: the stanza's own stream namespace ({@code jabber:client}, {@code jabber:server},
 * {@code jabber:component:accept} or none) becomes "inherited" (null) in the engine, and a child whose namespace
 * equals its parent's is "inherited" too, so the engine sees the same shape whichever stream a stanza came from.
 * Going back, an inherited namespace is made explicit again as the parent's.
 *
 * <p>Depth: Openfire hands over whatever a client sent, nested as deep as it likes, and a recursive walk over it
 * would overflow the stack of Openfire's thread. The conversion builds at most {@link XmlElement#MAX_DEPTH} + 1
 * levels and skips what lies deeper, so the engine sees a stanza too deep to accept and answers its sender with a
 * policy-violation error.
 */
public final class StanzaConversion {
    private StanzaConversion() {
    }

    /** The engine's form of a Tinder packet. */
    public static XmlElement fromPacket(Packet packet) {
        return fromElement(packet.getElement());
    }

    /** The engine's form of a dom4j stanza element. */
    public static XmlElement fromElement(Element stanza) {
        return convert(stanza, null, 1);
    }

    private static XmlElement convert(Element e, String parentNamespace, int level) {
        boolean top = level == 1;
        String ns = e.getNamespaceURI() == null ? "" : e.getNamespaceURI();
        boolean inherited = ns.isEmpty() || ns.equals(parentNamespace) || (top && isStreamNamespace(ns));
        XmlElement.Builder b = XmlElement.builder(e.getName(), inherited ? null : ns);
        for (int i = 0, n = e.attributeCount(); i < n; i++) {
            Attribute a = e.attribute(i);
            b.attribute(a.getQualifiedName(), a.getValue());
        }
        List<Node> content = e.content();
        for (Node node : content) {
            if (node instanceof Element child) {
                // one level past the limit is enough for the engine to refuse it; deeper is never walked
                if (level <= XmlElement.MAX_DEPTH) {
                    b.child(convert(child, ns, level + 1));
                }
            } else if (node instanceof Text || node instanceof CDATA || node instanceof Entity) {
                String text = node.getText();
                if (text != null && !text.isEmpty()) {
                    b.text(text);
                }
            }
        }
        return b.build();
    }

    static boolean isStreamNamespace(String ns) {
        return ns.equals("jabber:client") || ns.equals("jabber:server") || ns.equals("jabber:component:accept");
    }

    /** A dom4j element for an engine stanza; the stanza itself gets no namespace (Openfire's own packets have none). */
    public static Element toElement(XmlElement stanza) {
        Element root = DocumentHelper.createElement(new QName(stanza.name(), Namespace.NO_NAMESPACE));
        fill(root, stanza, null);
        return root;
    }

    private static void fill(Element target, XmlElement source, String inScope) {
        for (int i = 0, n = source.attributeCount(); i < n; i++) {
            String name = source.attributeName(i);
            if (name.startsWith("xmlns")) {
                continue; // namespaces are carried by QNames
            }
            if (name.startsWith("xml:")) {
                target.addAttribute(new QName(name.substring(4), Namespace.XML_NAMESPACE), source.attributeValue(i));
            } else {
                target.addAttribute(name, source.attributeValue(i));
            }
        }
        for (Object c : source.children()) {
            if (c instanceof XmlElement child) {
                String ns = child.namespace() != null ? child.namespace() : inScope;
                Element el = target.addElement(new QName(child.name(), ns == null ? Namespace.NO_NAMESPACE
                        : Namespace.get(ns)));
                fill(el, child, ns);
            } else if (c instanceof String text) {
                target.addText(text);
            }
        }
    }

    /** A Tinder packet for an engine stanza ({@code message}, {@code presence} or {@code iq}). */
    public static Packet toPacket(XmlElement stanza) {
        return wrap(toElement(stanza));
    }

    static Packet wrap(Element e) {
        return switch (e.getName()) {
            case "message" -> new Message(e, true);
            case "presence" -> new Presence(e, true);
            case "iq" -> new IQ(e, true);
            default -> throw new IllegalArgumentException("not a stanza: <" + e.getName() + ">");
        };
    }
}
