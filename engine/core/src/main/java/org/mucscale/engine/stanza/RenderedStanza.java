package org.mucscale.engine.stanza;

import java.nio.charset.StandardCharsets;

/**
 * A stanza serialized once for many recipients: everything before and after the value of its {@code to} attribute.
 * A delivery writes {@code prefix + escaped(recipient) + suffix}; nothing is re-serialized per recipient.
 *
 * <pre>
 *   &lt;message to="  |  room@muc/nick  |  " from="..." type="groupchat"&gt;&lt;body&gt;..&lt;/body&gt;&lt;/message&gt;
 *   \_____prefix___/  \_per recipient_/  \______________________suffix_____________________________________/
 * </pre>
 */
public final class RenderedStanza {
    private final String prefix;
    private final String suffix;
    private final byte[] prefixUtf8;
    private final byte[] suffixUtf8;
    private final long arrivalNs;

    /** A stanza rendered elsewhere (another cluster node), from its two parts. */
    public static RenderedStanza of(String prefix, String suffix) {
        return new RenderedStanza(prefix, suffix, 0);
    }

    private RenderedStanza(String prefix, String suffix, long arrivalNs) {
        this.arrivalNs = arrivalNs;
        this.prefix = prefix;
        this.suffix = suffix;
        this.prefixUtf8 = prefix.getBytes(StandardCharsets.UTF_8);
        this.suffixUtf8 = suffix.getBytes(StandardCharsets.UTF_8);
    }

    /** Renders {@code stanza} (its own {@code to}, if any, is ignored) with a splice point for the recipient. */
    public static RenderedStanza render(XmlElement stanza) {
        return render(stanza, 0);
    }

    /**
     * As {@link #render(XmlElement)}, for a message whose in-server latency is measured: {@code arrivalNs} is when it
     * arrived at the service (engine clock), and a host that knows when the bytes reach the socket records the time
     * from there ({@link #arrivalNs()}).
     */
    public static RenderedStanza render(XmlElement stanza, long arrivalNs) {
        StringBuilder sb = new StringBuilder(256);
        sb.append('<').append(stanza.name()).append(" to=\"");
        String prefix = sb.toString();
        sb.setLength(0);
        sb.append('"');
        StringBuilder rest = new StringBuilder(256);
        stanza.writeStart(rest, null, "to");
        // writeStart wrote "<name"; keep only what follows the element name
        sb.append(rest, stanza.name().length() + 1, rest.length());
        stanza.writeContentAndEnd(sb);
        return new RenderedStanza(prefix, sb.toString(), arrivalNs);
    }

    public String prefix() { return prefix; }
    /** When the message arrived at the service (engine clock, nanoseconds), or 0 when it is not timed. */
    public long arrivalNs() { return arrivalNs; }
    public String suffix() { return suffix; }
    public byte[] prefixUtf8() { return prefixUtf8; }
    public byte[] suffixUtf8() { return suffixUtf8; }

    /** The whole stanza for one recipient, as text. */
    public String forRecipient(Jid recipient) {
        StringBuilder sb = new StringBuilder(prefix.length() + suffix.length() + 64);
        sb.append(prefix);
        Xml.appendAttribute(sb, recipient.toString());
        sb.append(suffix);
        return sb.toString();
    }

    /** Length in bytes of the rendered stanza without the recipient. */
    public int fixedUtf8Length() {
        return prefixUtf8.length + suffixUtf8.length;
    }
}
