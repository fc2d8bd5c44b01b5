package org.mucscale.engine.stanza;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * An immutable XML element: the engine's own stanza model, so the engine needs neither dom4j nor Tinder. Children
 * are {@link XmlElement}s or {@link String} text nodes, in document order. A null namespace means "inherited from
 * the parent" (for a stanza: the stream's default namespace, jabber:client or jabber:component:accept).
 *
 * <p>Hosts convert at the edge: the standalone component parses the stream straight into this type, the Openfire
 * adapter converts from dom4j.
 */
public final class XmlElement {
    /**
     * Deepest nesting a stanza may have (the stanza itself is level 1). Every walk over an element (rendering, copies,
     * the cluster codec) recurses, so the hosts' parsers build at most one level more than this and drop what lies
     * deeper, and the engine answers a stanza deeper than this with a policy-violation error: a hostile client's
     * deeply nested stanza can neither overflow a thread's stack nor reach a room.
     */
    public static final int MAX_DEPTH = 64;

    private final String name;
    private final String namespace;
    private final String[] attributes; // name, value, name, value ...
    private final List<Object> children;
    private final int depth;

    private XmlElement(String name, String namespace, String[] attributes, List<Object> children, int depth) {
        this.name = name;
        this.namespace = namespace;
        this.attributes = attributes;
        this.children = children;
        this.depth = depth;
    }

    public static Builder builder(String name) {
        return new Builder(name, null);
    }

    public static Builder builder(String name, String namespace) {
        return new Builder(name, namespace);
    }

    public String name() { return name; }

    /** The element's own namespace, or null when it inherits its parent's. */
    public String namespace() { return namespace; }

    public String attribute(String attributeName) {
        for (int i = 0; i < attributes.length; i += 2) {
            if (attributes[i].equals(attributeName)) {
                return attributes[i + 1];
            }
        }
        return null;
    }

    public int attributeCount() { return attributes.length / 2; }
    public String attributeName(int index) { return attributes[2 * index]; }
    public String attributeValue(int index) { return attributes[2 * index + 1]; }

    /** Levels of elements: 1 without child elements, else one more than the deepest child. */
    public int depth() { return depth; }

    /** Children: {@link XmlElement} or {@link String}. */
    public List<Object> children() { return children; }

    /** First child element with this name (any namespace), or null. */
    public XmlElement child(String childName) {
        for (Object c : children) {
            if (c instanceof XmlElement e && e.name.equals(childName)) {
                return e;
            }
        }
        return null;
    }

    /** First child element with this name and namespace, or null. */
    public XmlElement child(String childName, String childNamespace) {
        for (Object c : children) {
            if (c instanceof XmlElement e && e.name.equals(childName) && Objects.equals(e.namespace, childNamespace)) {
                return e;
            }
        }
        return null;
    }

    public List<XmlElement> elements() {
        List<XmlElement> out = new ArrayList<>();
        for (Object c : children) {
            if (c instanceof XmlElement e) {
                out.add(e);
            }
        }
        return out;
    }

    public List<XmlElement> elements(String childName) {
        List<XmlElement> out = new ArrayList<>();
        for (Object c : children) {
            if (c instanceof XmlElement e && e.name.equals(childName)) {
                out.add(e);
            }
        }
        return out;
    }

    /** Concatenated direct text children ("" when none). */
    public String text() {
        if (children.size() == 1 && children.get(0) instanceof String s) {
            return s;
        }
        StringBuilder sb = new StringBuilder();
        for (Object c : children) {
            if (c instanceof String s) {
                sb.append(s);
            }
        }
        return sb.toString();
    }

    /** Text of the first child with this name, or null when there is no such child. */
    public String childText(String childName) {
        XmlElement c = child(childName);
        return c == null ? null : c.text();
    }

    /** A builder pre-filled with this element, for copy-and-change. */
    public Builder toBuilder() {
        Builder b = new Builder(name, namespace);
        for (int i = 0; i < attributes.length; i += 2) {
            b.attribute(attributes[i], attributes[i + 1]);
        }
        b.children.addAll(children);
        return b;
    }

    /** A copy with one attribute set (null removes it). */
    public XmlElement withAttribute(String attributeName, String value) {
        return toBuilder().attribute(attributeName, value).build();
    }

    public String toXml() {
        StringBuilder sb = new StringBuilder(128);
        writeTo(sb, null);
        return sb.toString();
    }

    /**
     * Serializes into {@code out}. {@code inheritedNamespace} is the namespace in scope at the parent; an xmlns is
     * written only where this element's namespace differs from it.
     */
    public void writeTo(StringBuilder out, String inheritedNamespace) {
        writeStart(out, inheritedNamespace, null);
        writeContentAndEnd(out);
    }

    /**
     * Writes {@code <name ...attributes} without closing the tag, leaving out the attribute {@code skipAttribute}.
     */
    void writeStart(StringBuilder out, String inheritedNamespace, String skipAttribute) {
        out.append('<').append(name);
        if (namespace != null && !namespace.equals(inheritedNamespace)) {
            out.append(" xmlns=\"");
            Xml.appendAttribute(out, namespace);
            out.append('"');
        }
        for (int i = 0; i < attributes.length; i += 2) {
            if (attributes[i].equals(skipAttribute)) {
                continue;
            }
            out.append(' ').append(attributes[i]).append("=\"");
            Xml.appendAttribute(out, attributes[i + 1]);
            out.append('"');
        }
    }

    void writeContentAndEnd(StringBuilder out) {
        if (children.isEmpty()) {
            out.append("/>");
            return;
        }
        out.append('>');
        for (Object c : children) {
            if (c instanceof XmlElement e) {
                e.writeTo(out, namespace);
            } else {
                Xml.appendText(out, (String) c);
            }
        }
        out.append("</").append(name).append('>');
    }

    @Override
    public String toString() {
        return toXml();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof XmlElement e && toXml().equals(e.toXml());
    }

    @Override
    public int hashCode() {
        return toXml().hashCode();
    }

    /** Builds an element; attributes keep insertion order, setting one twice replaces it. */
    public static final class Builder {
        private final String name;
        private final String namespace;
        private final List<String> attributes = new ArrayList<>(8);
        private final List<Object> children = new ArrayList<>(4);

        private Builder(String name, String namespace) {
            if (name == null || name.isEmpty()) {
                throw new IllegalArgumentException("an element needs a name");
            }
            this.name = name;
            this.namespace = namespace;
        }

        /** Sets an attribute; null removes it. */
        public Builder attribute(String attributeName, String value) {
            for (int i = 0; i < attributes.size(); i += 2) {
                if (attributes.get(i).equals(attributeName)) {
                    if (value == null) {
                        attributes.remove(i);
                        attributes.remove(i);
                    } else {
                        attributes.set(i + 1, value);
                    }
                    return this;
                }
            }
            if (value != null) {
                attributes.add(attributeName);
                attributes.add(value);
            }
            return this;
        }

        public Builder child(XmlElement child) {
            children.add(Objects.requireNonNull(child));
            return this;
        }

        /** Adds {@code <name>text</name>} in the parent's namespace. */
        public Builder textChild(String childName, String text) {
            return child(XmlElement.builder(childName).text(text).build());
        }

        public Builder text(String text) {
            if (text != null && !text.isEmpty()) {
                children.add(text);
            }
            return this;
        }

        /** Removes every child element with this name. */
        public Builder removeChildren(String childName) {
            children.removeIf(c -> c instanceof XmlElement e && e.name().equals(childName));
            return this;
        }

        public XmlElement build() {
            int deepestChild = 0;
            for (Object c : children) {
                if (c instanceof XmlElement e && e.depth > deepestChild) {
                    deepestChild = e.depth;
                }
            }
            return new XmlElement(name, namespace, attributes.toArray(new String[0]),
                    children.isEmpty() ? List.of() : Collections.unmodifiableList(new ArrayList<>(children)),
                    deepestChild + 1);
        }
    }
}
