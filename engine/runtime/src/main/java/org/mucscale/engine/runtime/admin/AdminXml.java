package org.mucscale.engine.runtime.admin;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXParseException;

/**
 * XML bodies and answers of the HTTP API, in the element names of Openfire's REST API plugin (its JAXB entities:
 * {@code <chatRoom><roomName>…</roomName><owners><owner>…</owner></owners>…</chatRoom>}, {@code <chatRooms>},
 * {@code <participants><participant>}, {@code <occupants><occupant>}, {@code <messages><message>},
 * {@code <mucInvitations><reason/><jidsToInvite><jid/></jidsToInvite></mucInvitations>}).
 *
 * <p>XML is translated at the edge, on the node the caller reached: an XML body becomes the JSON object the same
 * entity has, and a JSON answer becomes XML when the caller's {@code Accept} asks for it. Everything between (the
 * routing, the checks that name a bad field, cluster forwarding, the audit trail) sees JSON only, so both formats
 * behave alike and the wire between nodes is unchanged.
 *
 * <p>The parser is the JDK's, hardened: a document type declaration is refused (no DTD, so no entity of any kind,
 * internal or external: no XXE, no entity expansion), XInclude off, secure processing on. Stateless.
 */
final class AdminXml {
    /** Elements whose children are the items of a list (REST API plugin wrapper and item names). */
    private static final Map<String, String> LISTS = Map.ofEntries(
            Map.entry("chatRooms", "chatRoom"), Map.entry("owners", "owner"), Map.entry("admins", "admin"),
            Map.entry("members", "member"), Map.entry("outcasts", "outcast"),
            Map.entry("ownerGroups", "ownerGroup"), Map.entry("adminGroups", "adminGroup"),
            Map.entry("memberGroups", "memberGroup"), Map.entry("outcastGroups", "outcastGroup"),
            Map.entry("broadcastPresenceRoles", "broadcastPresenceRole"), Map.entry("jidsToInvite", "jid"),
            Map.entry("participants", "participant"), Map.entry("occupants", "occupant"),
            Map.entry("messages", "message"), Map.entry("invited", "jid"), Map.entry("results", "result"),
            Map.entry("entries", "entry"), Map.entry("destroyed", "roomName"), Map.entry("nicks", "nick"));
    /** Fields whose text is a number in the JSON entity. */
    private static final Set<String> NUMBERS = Set.of("maxUsers");
    static final String XML = "application/xml; charset=utf-8";

    private AdminXml() {
    }

    static boolean isXml(String contentType) {
        if (contentType == null) {
            return false;
        }
        String t = contentType.toLowerCase(Locale.ROOT).split(";", 2)[0].trim();
        return t.equals("application/xml") || t.equals("text/xml") || t.endsWith("+xml");
    }

    /**
     * Whether the caller asked for XML: an {@code Accept} naming application/xml or text/xml before any JSON type
     * (no Accept, or one naming JSON first or only {@code *}{@code /*}: JSON, mucscale's default).
     */
    static boolean wantsXml(String accept) {
        if (accept == null) {
            return false;
        }
        for (String part : accept.toLowerCase(Locale.ROOT).split(",")) {
            String t = part.split(";", 2)[0].trim();
            if (t.equals("application/json") || t.endsWith("+json")) {
                return false;
            }
            if (isXml(t)) {
                return true;
            }
        }
        return false;
    }

    /** {@code r} with an XML body replaced by its JSON object; a malformed body is IllegalArgumentException. */
    static AdminApi.Request asJson(AdminApi.Request r) {
        if (r.body() == null || r.body().length == 0 || !isXml(r.contentType())) {
            return r;
        }
        byte[] json = JsonText.write(toMap(parse(r.body()))).getBytes(StandardCharsets.UTF_8);
        return new AdminApi.Request(r.method(), r.path(), r.rawQuery(), r.authorization(), AdminApi.JSON,
                r.remote(), json, false, r.hostLogin(), r.accept());
    }

    private static Element parse(byte[] body) {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            f.setXIncludeAware(false);
            f.setExpandEntityReferences(false);
            f.setNamespaceAware(false);
            DocumentBuilder b = f.newDocumentBuilder();
            b.setErrorHandler(null); // errors are thrown, not printed to stderr
            return b.parse(new ByteArrayInputStream(body)).getDocumentElement();
        } catch (SAXParseException e) {
            throw new IllegalArgumentException("malformed XML at line " + e.getLineNumber() + ", column "
                    + e.getColumnNumber() + ": " + e.getMessage());
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK's XML parser refused a hardening feature", e);
        } catch (Exception e) {
            throw new IllegalArgumentException("malformed XML: " + e.getMessage());
        }
    }

    /** The root element as the JSON object of the same entity ({@code <chatRooms>}: {@code {"chatRooms":[…]}}). */
    private static Map<String, Object> toMap(Element root) {
        if (LISTS.containsKey(root.getTagName())) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put(root.getTagName(), value(root));
            return m;
        }
        if (children(root).isEmpty()) {
            throw new IllegalArgumentException("malformed XML: <" + root.getTagName()
                    + "> holds no fields (expected an entity such as <chatRoom><roomName>…</roomName></chatRoom>)");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) value(root);
        return m;
    }

    private static Object value(Element e) {
        List<Element> kids = children(e);
        String name = e.getTagName();
        if (LISTS.containsKey(name)) { // <owners><owner>a</owner>…</owners>, and <owners/> an empty list
            List<Object> out = new ArrayList<>(kids.size());
            for (Element k : kids) {
                out.add(value(k));
            }
            return out;
        }
        if (kids.isEmpty()) {
            String text = e.getTextContent().trim();
            if (NUMBERS.contains(name) && text.matches("-?\\d{1,18}")) {
                return Long.parseLong(text);
            }
            return text; // booleans stay "true"/"false": RoomJson reads them so
        }
        Map<String, Object> m = new LinkedHashMap<>();
        for (Element k : kids) {
            if (m.put(k.getTagName(), value(k)) != null) {
                throw new IllegalArgumentException("malformed XML: <" + k.getTagName() + "> appears twice in <"
                        + name + ">");
            }
        }
        return m;
    }

    private static List<Element> children(Element e) {
        List<Element> out = new ArrayList<>();
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element k) {
                out.add(k);
            }
        }
        return out;
    }

    // ------------------------------------------------------------------------------------------------ answers

    /** A JSON answer written as XML (the OpenAPI document and non-JSON answers are left as they are). */
    static AdminApi.Response toXml(AdminApi.Response res) {
        if (res.contentType() == null || !res.contentType().startsWith("application/json") || res.body() == null
                || res.body().isEmpty()) {
            return res;
        }
        Object v = JsonText.parse(res.body());
        StringBuilder out = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>");
        if (v instanceof Map<?, ?> m) {
            String root = rootOf(m);
            if (m.size() == 1 && LISTS.containsKey(root) && m.get(root) instanceof List<?> items) {
                element(out, root, items); // {"participants":[…]} is <participants><participant>…
            } else {
                out.append('<').append(root).append('>');
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    String key = e.getKey().toString();
                    if (root.equals("error") && key.equals("error")) {
                        key = "exception"; // the plugin's ErrorResponse names the kind of error so
                    }
                    if (key.equals(root) && e.getValue() instanceof List<?> items) { // a page: items, total, next
                        for (Object i : items) {
                            element(out, LISTS.get(root), i);
                        }
                    } else {
                        element(out, key, e.getValue());
                    }
                }
                out.append("</").append(root).append('>');
            }
        } else {
            element(out, "result", v);
        }
        return new AdminApi.Response(res.status(), XML, out.toString(), res.headers());
    }

    /** The root element: an error, a chat room entity, a listing's collection, else {@code <result>}. */
    private static String rootOf(Map<?, ?> m) {
        if (m.containsKey("status") && m.containsKey("error") && m.containsKey("message")) {
            return "error";
        }
        if (m.containsKey("roomName") && m.containsKey("maxUsers")) {
            return "chatRoom";
        }
        Object first = m.isEmpty() ? null : m.keySet().iterator().next();
        if (first != null && LISTS.containsKey(first.toString()) && m.get(first) instanceof List<?>) {
            return first.toString();
        }
        return "result";
    }

    private static void element(StringBuilder out, String name, Object v) {
        if (v == null) {
            return; // as JAXB leaves a null field out
        }
        if (v instanceof List<?> items) {
            String item = LISTS.getOrDefault(name, "item");
            out.append('<').append(name).append('>');
            for (Object i : items) {
                element(out, item, i);
            }
            out.append("</").append(name).append('>');
            return;
        }
        if (v instanceof Map<?, ?> m) {
            out.append('<').append(name).append('>');
            for (Map.Entry<?, ?> e : m.entrySet()) {
                element(out, e.getKey().toString(), e.getValue());
            }
            out.append("</").append(name).append('>');
            return;
        }
        out.append('<').append(name).append('>');
        escape(out, v.toString());
        out.append("</").append(name).append('>');
    }

    private static void escape(StringBuilder out, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                default -> {
                    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
                        out.append('\uFFFD'); // not allowed in XML 1.0, not even as a reference
                    } else {
                        out.append(c);
                    }
                }
            }
        }
    }
}
