package org.mucscale.engine.cluster;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * The byte format of everything mucscale sends between nodes and keeps in replicated maps: unsigned varints, strings
 * as a varint length + 1 (0 = null) followed by UTF-8, and XML elements as a tree (no parser needed on either side).
 *
 * <pre>
 *   string  := varint(len + 1) utf8[len]            (varint 0: null)
 *   element := string name, string namespace, varint attrs, (string name, string value)*,
 *              varint children, (0x00 string text | 0x01 element)*
 * </pre>
 */
final class Codec {
    /** Deeper XML than this is refused on decoding (the engine never builds anything close). */
    static final int MAX_DEPTH = 128;

    private Codec() {
    }

    /** A growable output buffer. */
    static final class Out {
        private byte[] buf;
        private int len;

        Out(int capacity) {
            buf = new byte[Math.max(16, capacity)];
        }

        private void ensure(int more) {
            if (len + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
            }
        }

        Out u8(int v) {
            ensure(1);
            buf[len++] = (byte) v;
            return this;
        }

        Out varint(long v) {
            ensure(10);
            while ((v & ~0x7FL) != 0) {
                buf[len++] = (byte) ((v & 0x7F) | 0x80);
                v >>>= 7;
            }
            buf[len++] = (byte) v;
            return this;
        }

        Out i64(long v) {
            ensure(8);
            for (int i = 7; i >= 0; i--) {
                buf[len++] = (byte) (v >>> (i * 8));
            }
            return this;
        }

        Out bool(boolean b) {
            return u8(b ? 1 : 0);
        }

        Out string(String s) {
            if (s == null) {
                return varint(0);
            }
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            varint(b.length + 1L);
            ensure(b.length);
            System.arraycopy(b, 0, buf, len, b.length);
            len += b.length;
            return this;
        }

        /** Length-prefixed raw bytes. */
        Out bytes(byte[] b) {
            varint(b.length);
            ensure(b.length);
            System.arraycopy(b, 0, buf, len, b.length);
            len += b.length;
            return this;
        }

        Out jid(Jid j) {
            return string(j == null ? null : j.toString());
        }

        Out element(XmlElement e) {
            if (e == null) {
                return u8(0);
            }
            u8(1);
            writeElement(e);
            return this;
        }

        private void writeElement(XmlElement e) {
            string(e.name());
            string(e.namespace());
            int n = e.attributeCount();
            varint(n);
            for (int i = 0; i < n; i++) {
                string(e.attributeName(i));
                string(e.attributeValue(i));
            }
            varint(e.children().size());
            for (Object child : e.children()) {
                if (child instanceof XmlElement c) {
                    u8(1);
                    writeElement(c);
                } else {
                    u8(0);
                    string(child.toString());
                }
            }
        }

        int length() {
            return len;
        }

        byte[] toBytes() {
            return Arrays.copyOf(buf, len);
        }
    }

    /** Reads what {@link Out} wrote; any inconsistency is an {@link IllegalArgumentException}. */
    static final class In {
        private final byte[] buf;
        private int pos;

        In(byte[] buf) {
            this.buf = buf;
        }

        private void need(int n) {
            if (n < 0 || n > buf.length - pos) {
                throw new IllegalArgumentException("truncated cluster message at byte " + pos);
            }
        }

        int u8() {
            need(1);
            return buf[pos++] & 0xff;
        }

        long varint() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                int b = u8();
                v |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    return v;
                }
            }
            throw new IllegalArgumentException("malformed varint at byte " + pos);
        }

        int count() {
            long v = varint();
            if (v < 0 || v > buf.length - pos) {
                throw new IllegalArgumentException("count " + v + " exceeds the message at byte " + pos);
            }
            return (int) v;
        }

        long i64() {
            need(8);
            long v = 0;
            for (int i = 0; i < 8; i++) {
                v = (v << 8) | (buf[pos++] & 0xff);
            }
            return v;
        }

        boolean bool() {
            return u8() != 0;
        }

        String string() {
            long n = varint();
            if (n == 0) {
                return null;
            }
            int len = n < 0 || n - 1 > buf.length - pos ? -1 : (int) (n - 1);
            need(len);
            String s = new String(buf, pos, len, StandardCharsets.UTF_8);
            pos += len;
            return s;
        }

        /** What {@link Out#bytes} wrote. */
        byte[] bytes() {
            int n = count();
            byte[] b = Arrays.copyOfRange(buf, pos, pos + n);
            pos += n;
            return b;
        }

        /** A string that must be there: null is refused like any other inconsistency. */
        String requiredString(String what) {
            String s = string();
            if (s == null) {
                throw new IllegalArgumentException("missing " + what + " at byte " + pos);
            }
            return s;
        }

        Jid jid() {
            String s = string();
            if (s == null) {
                return null;
            }
            try {
                return Jid.parse(s);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("not a JID: " + e.getMessage());
            }
        }

        /** Parses an enum constant, refusing null and unknown names as inconsistencies. */
        <E extends Enum<E>> E enumValue(Class<E> type) {
            String s = requiredString(type.getSimpleName());
            try {
                return Enum.valueOf(type, s);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown " + type.getSimpleName() + " '" + s + "'");
            }
        }

        /** Refuses bytes left over after a complete value. */
        void end() {
            if (!atEnd()) {
                throw new IllegalArgumentException((buf.length - pos) + " bytes after the end of the value");
            }
        }

        XmlElement element() {
            return u8() == 0 ? null : readElement(0);
        }

        /**
         * What {@link Out#element} wrote, read only as far as its attributes: the element without its children, and
         * nothing after it is read (what a reader salvages from a body it cannot read whole, see Wire.carried).
         */
        XmlElement elementHead() {
            return u8() == 0 ? null : readHead().build();
        }

        private XmlElement.Builder readHead() {
            String name = requiredString("element name");
            if (name.isEmpty()) {
                throw new IllegalArgumentException("an element with an empty name at byte " + pos);
            }
            XmlElement.Builder b = XmlElement.builder(name, string());
            int attrs = count();
            for (int i = 0; i < attrs; i++) {
                b.attribute(requiredString("attribute name"), requiredString("attribute value"));
            }
            return b;
        }

        private XmlElement readElement(int depth) {
            if (depth > MAX_DEPTH) {
                throw new IllegalArgumentException("XML nested deeper than " + MAX_DEPTH);
            }
            XmlElement.Builder b = readHead();
            int children = count();
            for (int i = 0; i < children; i++) {
                int tag = u8();
                if (tag == 1) {
                    b.child(readElement(depth + 1));
                } else if (tag == 0) {
                    b.text(requiredString("text"));
                } else {
                    throw new IllegalArgumentException("unknown child tag " + tag + " at byte " + pos);
                }
            }
            return b.build();
        }

        boolean atEnd() {
            return pos == buf.length;
        }
    }
}
