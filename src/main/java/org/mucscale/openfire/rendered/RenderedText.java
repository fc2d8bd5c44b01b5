package org.mucscale.openfire.rendered;

import org.dom4j.Document;
import org.dom4j.DocumentException;
import org.dom4j.DocumentHelper;
import org.dom4j.Element;

/**
 * The text of one rendered stanza for one recipient, in three shared parts, and what its packet stands for until it
 * is built: the parts are the broadcast's own strings ({@code prefix}, {@code suffix}) and the escaped recipient
 * address, so a packet that is never built costs three references.
 *
 * <p>This package is loaded apart from the plugin (see {@code org.mucscale.openfire.RenderedPackets}): its classes may
 * refer to the JDK, dom4j and Tinder only, never to a plugin class, so the packets Openfire keeps (a stream manager's
 * unacknowledged copies can outlive the plugin) do not keep the plugin's class loader alive.
 */
public final class RenderedText {
    /** What an unbuilt packet's element field holds: never modified, never handed out except by a handle. */
    static final Element MESSAGE = DocumentHelper.createElement("message");
    static final Element PRESENCE = DocumentHelper.createElement("presence");

    /** Copies built so far (resent, re-routed or inspected), for the gauge {@code rendered-copies-built}. */
    private static final java.util.concurrent.atomic.LongAdder BUILT = new java.util.concurrent.atomic.LongAdder();

    private RenderedText() {
    }

    /** How many kept copies have been built since this loader was made. */
    public static long builtCount() {
        return BUILT.sum();
    }

    /** Parses the stanza, for a packet that is being looked at after all (resumption, re-delivery, a plugin). */
    static Element build(String prefix, String escapedTo, String suffix) {
        BUILT.increment();
        try {
            Document doc = DocumentHelper.parseText(prefix + escapedTo + suffix);
            return doc.getRootElement();
        } catch (DocumentException e) {
            // the engine rendered it, so this is a bug: fail loudly where the packet is used
            throw new IllegalStateException("a rendered stanza is not well-formed: " + e.getMessage(), e);
        }
    }
}
