package org.mucscale.standalone;

import com.fasterxml.aalto.AsyncByteBufferFeeder;
import com.fasterxml.aalto.AsyncXMLInputFactory;
import com.fasterxml.aalto.AsyncXMLStreamReader;
import com.fasterxml.aalto.stax.InputFactoryImpl;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import org.mucscale.engine.stanza.XmlElement;

/**
 * Turns the bytes of one XMPP stream into the stream header, whole stanzas ({@link XmlElement}) and the stream's
 * end, as the bytes arrive: a non-blocking parse with aalto-xml's async parser, so a partial read (half a tag, half a
 * UTF-8 sequence) simply waits for the next one.
 *
 * <p>Limits, checked while parsing so nothing unbounded is ever buffered: a stanza (or anything between stanzas) of
 * more than {@code maxStanzaBytes} bytes is a {@link StreamErrorException} with condition {@code policy-violation};
 * a stanza nested deeper than {@link #MAX_DEPTH} is not a stream error (the stream carries every user's stanzas, one
 * hostile client must not cut the link): it is built down to level {@code MAX_DEPTH + 1} and what lies deeper is
 * skipped, so the engine answers its sender with a policy-violation error; malformed XML is {@code not-well-formed};
 * DTDs, comments, processing instructions and entity references (forbidden in XMPP, RFC 6120 section 11.1) are
 * {@code restricted-xml}. After any of these the stream is unusable: the caller sends the stream error and closes.
 *
 * <p>Concurrency: not thread-safe; one decoder per connection, fed by that connection's single I/O thread.
 */
public final class XmppStreamDecoder {
    public static final String STREAM_NS = "http://etherx.jabber.org/streams";
    /** Deepest stanza the engine accepts ({@link XmlElement#MAX_DEPTH}); one level more is built, the rest skipped. */
    public static final int MAX_DEPTH = XmlElement.MAX_DEPTH;

    /** Receives what the stream carries, on the thread that calls {@link #feed}. */
    public interface Listener {
        /** The peer's {@code <stream:stream>} opened; attributes by qualified name (id, from, to, version ...). */
        void streamOpened(Map<String, String> attributes);

        /** One complete top-level element (stanza, handshake, stream:error ...). */
        void element(XmlElement element);

        /** The peer sent {@code </stream:stream>}. */
        void streamClosed();
    }

    private static final AsyncXMLInputFactory FACTORY = newFactory();

    private final AsyncXMLStreamReader<AsyncByteBufferFeeder> reader;
    private final int maxStanzaBytes;
    private final List<Frame> stack = new ArrayList<>(8);
    private long fedBytes;
    /** Byte offset where the current stanza (or the gap before the next one) began. */
    private long unitStartOffset;
    private String streamNamespace;
    private boolean closed;
    /** Open elements below level MAX_DEPTH + 1 of the current stanza, skipped (not built). */
    private int skippedOpen;
    /**
     * The start of a UTF-8 sequence that the last read cut off, held back until it is complete: aalto's async parser
     * drops a 4-byte character from an attribute value when a feed ends inside it (aalto-xml 1.3.3; found by
     * StanzaFuzzTest), and a TCP read can end anywhere.
     */
    private final byte[] carry = new byte[4];
    private int carryLength;

    public XmppStreamDecoder(int maxStanzaBytes) {
        if (maxStanzaBytes < 64) {
            throw new IllegalArgumentException("maxStanzaBytes must be at least 64, was " + maxStanzaBytes);
        }
        this.maxStanzaBytes = maxStanzaBytes;
        this.reader = FACTORY.createAsyncForByteBuffer();
    }

    private static AsyncXMLInputFactory newFactory() {
        AsyncXMLInputFactory f = new InputFactoryImpl();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, Boolean.FALSE);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, Boolean.FALSE);
        f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, Boolean.TRUE);
        f.setProperty(XMLInputFactory.IS_COALESCING, Boolean.FALSE);
        return f;
    }

    /**
     * Parses {@code bytes} (position to limit; the buffer is consumed) and calls the listener for every complete
     * unit. Throws {@link StreamErrorException} when the stream broke a rule; the decoder is then unusable.
     */
    public void feed(ByteBuffer bytes, Listener listener) throws StreamErrorException {
        if (closed) {
            throw new StreamErrorException("not-well-formed", "data after the end of the stream");
        }
        int n = bytes.remaining();
        if (n == 0) {
            return;
        }
        fedBytes += n;
        if (carryLength > 0) {
            int missing = utf8Length(carry[0]) - carryLength;
            while (missing > 0 && bytes.hasRemaining()) {
                carry[carryLength++] = bytes.get();
                missing--;
            }
            if (missing > 0) {
                return;
            }
            int completed = carryLength;
            carryLength = 0;
            parse(ByteBuffer.wrap(carry.clone(), 0, completed), listener);
            if (closed) {
                bytes.position(bytes.limit());
                return;
            }
        }
        int held = incompleteUtf8Tail(bytes);
        int end = bytes.limit();
        if (held > 0) {
            for (int i = 0; i < held; i++) {
                carry[i] = bytes.get(end - held + i);
            }
            carryLength = held;
            bytes.limit(end - held);
        }
        if (bytes.hasRemaining()) {
            parse(bytes, listener);
        }
        bytes.limit(end);
        bytes.position(end);
        if (closed) {
            return;
        }
        // A stanza still open after everything received so far: refuse it before buffering more of it.
        if (fedBytes - unitStartOffset > maxStanzaBytes) {
            closed = true;
            throw new StreamErrorException("policy-violation", "stanza larger than " + maxStanzaBytes + " bytes");
        }
    }

    private void parse(ByteBuffer bytes, Listener listener) throws StreamErrorException {
        try {
            reader.getInputFeeder().feedInput(bytes);
            int event;
            while ((event = reader.next()) != AsyncXMLStreamReader.EVENT_INCOMPLETE) {
                handle(event, listener);
                if (closed) {
                    return;
                }
            }
        } catch (XMLStreamException | RuntimeException e) {
            closed = true;
            throw new StreamErrorException("not-well-formed", "malformed XML: " + firstLine(e.getMessage()));
        }
    }

    /** Bytes a UTF-8 sequence starting with {@code lead} has (1 for anything that does not start one). */
    private static int utf8Length(byte lead) {
        int b = lead & 0xFF;
        return b >= 0xF0 && b <= 0xF7 ? 4 : b >= 0xE0 ? (b <= 0xEF ? 3 : 1) : b >= 0xC0 ? 2 : 1;
    }

    /** How many bytes at the end of {@code bytes} start a UTF-8 sequence the buffer does not complete (0 to 3). */
    private static int incompleteUtf8Tail(ByteBuffer bytes) {
        int end = bytes.limit();
        for (int k = 1; k <= 3 && end - k >= bytes.position(); k++) {
            int b = bytes.get(end - k) & 0xFF;
            if ((b & 0xC0) == 0x80) {
                continue; // a continuation byte: look further back for the lead
            }
            return (b & 0xC0) == 0xC0 && utf8Length((byte) b) > k ? k : 0;
        }
        return 0;
    }

    private void handle(int event, Listener listener) throws XMLStreamException, StreamErrorException {
        switch (event) {
            case XMLStreamConstants.START_ELEMENT -> startElement(listener);
            case XMLStreamConstants.END_ELEMENT -> endElement(listener);
            case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA, XMLStreamConstants.SPACE -> {
                if (skippedOpen > 0) {
                    return;
                }
                if (stack.size() > 1) {
                    stack.get(stack.size() - 1).builder.text(reader.getText());
                } else {
                    // whitespace keepalive between stanzas (text at stream level is ignored)
                    unitStartOffset = currentOffset();
                }
            }
            case XMLStreamConstants.START_DOCUMENT, XMLStreamConstants.END_DOCUMENT -> {
                // the XML declaration, and the end of input
            }
            case XMLStreamConstants.DTD, XMLStreamConstants.COMMENT, XMLStreamConstants.PROCESSING_INSTRUCTION,
                 XMLStreamConstants.ENTITY_REFERENCE -> {
                closed = true;
                throw new StreamErrorException("restricted-xml",
                        "comments, processing instructions, DTDs and entity references are not allowed in XMPP");
            }
            default -> {
                // attribute/namespace events are not reported by a StAX cursor; nothing else to do
            }
        }
    }

    private void startElement(Listener listener) throws StreamErrorException, XMLStreamException {
        int depth = stack.size();
        String ns = emptyToNull(reader.getNamespaceURI());
        if (depth == 0) {
            if (!"stream".equals(reader.getLocalName()) || !STREAM_NS.equals(ns)) {
                closed = true;
                throw new StreamErrorException("invalid-namespace", "the stream must open with <stream:stream>");
            }
            streamNamespace = emptyToNull(reader.getNamespaceURI(""));
            Map<String, String> attributes = new HashMap<>();
            for (int i = 0; i < reader.getAttributeCount(); i++) {
                attributes.put(qualifiedAttributeName(i), reader.getAttributeValue(i));
            }
            stack.add(new Frame(null, null));
            unitStartOffset = currentOffset();
            listener.streamOpened(attributes);
            return;
        }
        if (skippedOpen > 0 || depth > MAX_DEPTH + 1) {
            skippedOpen++;
            return;
        }
        if (depth == 1) {
            unitStartOffset = startOffset();
        }
        String inherited = depth == 1 ? streamNamespace : stack.get(depth - 1).namespace;
        XmlElement.Builder b = XmlElement.builder(reader.getLocalName(),
                ns == null || ns.equals(inherited) ? null : ns);
        for (int i = 0; i < reader.getAttributeCount(); i++) {
            b.attribute(qualifiedAttributeName(i), reader.getAttributeValue(i));
        }
        // Prefixed attributes other than xml:* need their prefix declared when the element is written again.
        for (int i = 0; i < reader.getNamespaceCount(); i++) {
            String prefix = reader.getNamespacePrefix(i);
            if (prefix != null && !prefix.isEmpty() && usedByAttribute(prefix)) {
                b.attribute("xmlns:" + prefix, reader.getNamespaceURI(i));
            }
        }
        stack.add(new Frame(b, ns == null ? inherited : ns));
    }

    private void endElement(Listener listener) throws XMLStreamException, StreamErrorException {
        if (skippedOpen > 0) {
            skippedOpen--;
            return;
        }
        int depth = stack.size();
        if (depth == 1) {
            stack.clear();
            closed = true;
            listener.streamClosed();
            return;
        }
        Frame done = stack.remove(depth - 1);
        XmlElement element = done.builder.build();
        if (depth == 2) {
            long end = currentOffset();
            if (end - unitStartOffset > maxStanzaBytes) {
                closed = true;
                throw new StreamErrorException("policy-violation", "stanza larger than " + maxStanzaBytes + " bytes");
            }
            unitStartOffset = end;
            listener.element(element);
        } else {
            stack.get(depth - 2).builder.child(element);
        }
    }

    private boolean usedByAttribute(String prefix) {
        for (int i = 0; i < reader.getAttributeCount(); i++) {
            if (prefix.equals(reader.getAttributePrefix(i))) {
                return true;
            }
        }
        return false;
    }

    private String qualifiedAttributeName(int i) {
        String prefix = reader.getAttributePrefix(i);
        String local = reader.getAttributeLocalName(i);
        return prefix == null || prefix.isEmpty() ? local : prefix + ":" + local;
    }

    private long startOffset() {
        return reader.getLocationInfo().getStartingByteOffset();
    }

    private long currentOffset() throws XMLStreamException {
        return reader.getLocationInfo().getEndingByteOffset();
    }

    /** True once the peer closed the stream or the stream broke a rule. */
    public boolean isClosed() {
        return closed;
    }

    /** The default namespace the peer declared on its stream header (jabber:component:accept), or null. */
    public String streamNamespace() {
        return streamNamespace;
    }

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "unparseable input";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private record Frame(XmlElement.Builder builder, String namespace) {
    }

    /** The stream broke a rule; {@link #condition()} is the RFC 6120 stream error condition to send. */
    public static final class StreamErrorException extends Exception {
        private static final long serialVersionUID = 1L;
        private final String condition;

        public StreamErrorException(String condition, String text) {
            super(text);
            this.condition = condition;
        }

        public String condition() {
            return condition;
        }
    }
}
