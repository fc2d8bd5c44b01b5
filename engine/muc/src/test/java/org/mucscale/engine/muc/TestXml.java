package org.mucscale.engine.muc;

import java.io.StringReader;

import javax.xml.parsers.DocumentBuilderFactory;

import org.mucscale.engine.stanza.XmlElement;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;
import org.xml.sax.InputSource;

/** Parses what the engine rendered back into the engine's model, so tests check the bytes a client would get. */
final class TestXml {
    private TestXml() {
    }

    private static final ThreadLocal<javax.xml.parsers.DocumentBuilder> BUILDER = ThreadLocal.withInitial(() -> {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            return f.newDocumentBuilder();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    });

    static XmlElement parse(String xml) {
        try {
            Element root = BUILDER.get().parse(new InputSource(new StringReader(xml))).getDocumentElement();
            return convert(root, null);
        } catch (Exception e) {
            throw new AssertionError("not well-formed XML: " + xml, e);
        }
    }

    private static XmlElement convert(Element e, String parentNs) {
        String ns = e.getNamespaceURI();
        XmlElement.Builder b = XmlElement.builder(e.getLocalName(), ns == null || ns.equals(parentNs) ? null : ns);
        NamedNodeMap attrs = e.getAttributes();
        for (int i = 0; i < attrs.getLength(); i++) {
            Node a = attrs.item(i);
            if (a.getNodeName().startsWith("xmlns")) {
                continue;
            }
            b.attribute(a.getNodeName(), a.getNodeValue());
        }
        for (Node c = e.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element ce) {
                b.child(convert(ce, ns));
            } else if (c.getNodeType() == Node.TEXT_NODE || c.getNodeType() == Node.CDATA_SECTION_NODE) {
                b.text(c.getNodeValue());
            }
        }
        return b.build();
    }
}
