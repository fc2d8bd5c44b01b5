package org.mucscale.engine.store;

import java.io.StringReader;
import java.io.StringWriter;
import java.util.Locale;
import java.util.Set;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerException;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;

/**
 * The message XML Openfire stored with a logged room message ({@code ofMucConversationLog.stanza}, dom4j's
 * {@code Message.toXML()} as the room broadcast it): read for its XEP-0359 stanza-id and the sender's nickname, and
 * re-addressed to the room's new JID. Re-addressing keeps the stored XML true to where the archive now lives: a reader
 * that replays it (the column exists for exact history replay) must not hand clients a message from the old room's
 * address, which clients drop as coming from a room they are not in. Nothing else in the XML changes.
 * One instance per import thread (the JDK's parser and serializer are not thread-safe).
 */
final class OpenfireLogStanza {
    static final String SID_NAMESPACE = "urn:xmpp:sid:0";
    /** Attributes holding addresses in a message and its extensions (stanza-id's by, MUC user items' jid). */
    private static final Set<String> ADDRESS_ATTRIBUTES = Set.of("from", "to", "by", "jid");

    private final DocumentBuilder parser;
    private final Transformer serializer;

    OpenfireLogStanza() {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            // A stanza from a database is still untrusted input: no DTDs, no external entities.
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setXIncludeAware(false);
            f.setExpandEntityReferences(false);
            parser = f.newDocumentBuilder();
            parser.setErrorHandler(null);
            TransformerFactory tf = TransformerFactory.newInstance();
            tf.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            tf.setAttribute(XMLConstants.ACCESS_EXTERNAL_STYLESHEET, "");
            serializer = tf.newTransformer();
            serializer.setOutputProperty(OutputKeys.OMIT_XML_DECLARATION, "yes");
            serializer.setOutputProperty(OutputKeys.ENCODING, "UTF-8");
        } catch (ParserConfigurationException | javax.xml.transform.TransformerConfigurationException e) {
            throw new IllegalStateException("the JDK's XML parser cannot be configured securely", e);
        }
    }

    /** What the stored XML says, and the XML re-addressed to the new room. */
    record Parsed(String stanzaId, String fromNick, String rewritten) {
    }

    /**
     * Parses {@code xml}; the stanza-id is the one the old room assigned ({@code by} is the room's bare JID, from the
     * stanza's own {@code from} or {@code oldRoomJid}), null when there is none.
     *
     * @throws IllegalArgumentException when the XML cannot be parsed
     */
    Parsed parse(String xml, String oldRoomJid, String newRoomJid) {
        Document doc;
        try {
            doc = parser.parse(new InputSource(new StringReader(xml)));
        } catch (SAXException | java.io.IOException e) {
            throw new IllegalArgumentException("stanza XML not parseable: " + e.getMessage(), e);
        } finally {
            parser.reset();
        }
        Element root = doc.getDocumentElement();
        String from = root.getAttribute("from");
        String fromBare = bare(from);
        String fromNick = from.indexOf('/') >= 0 ? from.substring(from.indexOf('/') + 1) : null;
        String stanzaId = null;
        NodeList children = root.getChildNodes();
        for (int i = 0; i < children.getLength() && stanzaId == null; i++) {
            if (children.item(i) instanceof Element e && "stanza-id".equals(e.getLocalName())
                    && SID_NAMESPACE.equals(e.getNamespaceURI())) {
                String by = bare(e.getAttribute("by"));
                String id = e.getAttribute("id");
                if (!id.isEmpty() && id.length() <= 255 && (sameJid(by, fromBare) || sameJid(by, oldRoomJid))) {
                    stanzaId = id;
                }
            }
        }
        readdress(root, fromBare.isEmpty() ? oldRoomJid : fromBare, oldRoomJid, newRoomJid);
        StringWriter out = new StringWriter(xml.length() + 32);
        try {
            serializer.transform(new DOMSource(root), new StreamResult(out));
        } catch (TransformerException e) {
            throw new IllegalArgumentException("stanza XML not serializable: " + e.getMessage(), e);
        }
        return new Parsed(stanzaId, fromNick == null || fromNick.isEmpty() ? null : fromNick, out.toString());
    }

    private static void readdress(Element element, String oldA, String oldB, String newRoomJid) {
        var attributes = element.getAttributes();
        for (int i = 0; i < attributes.getLength(); i++) {
            Node a = attributes.item(i);
            String name = a.getLocalName() != null ? a.getLocalName() : a.getNodeName();
            if (a.getNamespaceURI() == null && ADDRESS_ATTRIBUTES.contains(name)) {
                String value = a.getNodeValue();
                String bare = bare(value);
                if (sameJid(bare, oldA) || sameJid(bare, oldB)) {
                    a.setNodeValue(newRoomJid + value.substring(bare.length()));
                }
            }
        }
        NodeList children = element.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (children.item(i) instanceof Element e) {
                readdress(e, oldA, oldB, newRoomJid);
            }
        }
    }

    static String bare(String jid) {
        int slash = jid.indexOf('/');
        return slash < 0 ? jid : jid.substring(0, slash);
    }

    /** Bare JIDs compared as XMPP does after normalisation of ASCII case (rooms and domains are case-insensitive). */
    static boolean sameJid(String a, String b) {
        return a != null && b != null && !a.isEmpty() && a.toLowerCase(Locale.ROOT).equals(b.toLowerCase(Locale.ROOT));
    }
}
