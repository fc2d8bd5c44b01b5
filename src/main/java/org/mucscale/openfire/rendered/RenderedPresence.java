package org.mucscale.openfire.rendered;

import org.dom4j.Element;
import org.xmpp.packet.JID;
import org.xmpp.packet.Presence;
import org.xmpp.packet.PacketError;
import org.xmpp.packet.PacketExtension;

/**
 * A presence copy for Openfire's stream manager that is built from its rendered text only when something looks at it.
 *
 * <p>Why: Openfire's {@code StreamManager.sentStanza} keeps {@code createCopy()} of every stanza it counts, until the
 * client acknowledges it. For a Tinder packet that is a deep dom4j copy per recipient, the very work mucscale's raw
 * path exists to avoid. This packet's copies share the rendered text and are built (parsed into a real element) the
 * first time any method is called on them: when Openfire resends them after a resumption, re-routes them with a
 * delay stamp when the session closes, or a plugin inspects them. Acknowledged copies are dropped unbuilt.
 *
 * <p>Every public method of {@link Presence} and its {@code Packet} superclass is overridden to build first (a test
 * checks the list against the real Tinder classes), because the superclasses read their {@code element} field
 * directly. A <b>handle</b> is the one exception: the packet mucscale passes to {@code sentStanza}, which only copies
 * it and reads its element's name for a trace line; a handle's {@link #getElement} returns a shared, empty
 * {@code <presence/>} instead of building, and it is retargeted for each recipient by its single owner thread.
 *
 * <p>Concurrency: like any Tinder packet, not thread-safe; a copy belongs to the stream manager that holds it.
 */
public final class RenderedPresence extends Presence {
    private String prefix;
    private String escapedTo;
    private String suffix;
    private final boolean handle;
    private boolean built;

    /** A handle (see the class note), aimed with {@link #aim} before each use. */
    public RenderedPresence() {
        super(RenderedText.PRESENCE, true);
        this.handle = true;
    }

    private RenderedPresence(String prefix, String escapedTo, String suffix) {
        super(RenderedText.PRESENCE, true);
        this.prefix = prefix;
        this.escapedTo = escapedTo;
        this.suffix = suffix;
        this.handle = false;
    }

    /** Points this handle at one recipient's copy of a rendered stanza. */
    public void aim(String prefix, String escapedTo, String suffix) {
        this.prefix = prefix;
        this.escapedTo = escapedTo;
        this.suffix = suffix;
    }

    /** True once this copy has been parsed into a real element (for tests and counters). */
    public boolean isBuilt() {
        return built;
    }

    private void build() {
        if (!built) {
            built = true;
            element = RenderedText.build(prefix, escapedTo, suffix);
        }
    }

    @Override
    public Presence createCopy() {
        if (built) {
            return super.createCopy();
        }
        return new RenderedPresence(prefix, escapedTo, suffix);
    }

    @Override
    public Element getElement() {
        if (handle && !built) {
            return RenderedText.PRESENCE;
        }
        build();
        return element;
    }

    @Override public String getID() { build(); return super.getID(); }
    @Override public void setID(String id) { build(); super.setID(id); }
    @Override public JID getTo() { build(); return super.getTo(); }
    @Override public void setTo(String to) { build(); super.setTo(to); }
    @Override public void setTo(JID to) { build(); super.setTo(to); }
    @Override public JID getFrom() { build(); return super.getFrom(); }
    @Override public void setFrom(String from) { build(); super.setFrom(from); }
    @Override public void setFrom(JID from) { build(); super.setFrom(from); }
    @Override public void addExtension(PacketExtension extension) { build(); super.addExtension(extension); }
    @Override public PacketExtension getExtension(String name, String ns) { build(); return super.getExtension(name, ns); }
    @Override public boolean deleteExtension(String name, String ns) { build(); return super.deleteExtension(name, ns); }
    @Override public PacketError getError() { build(); return super.getError(); }
    @Override public void setError(PacketError error) { build(); super.setError(error); }
    @Override public void setError(PacketError.Condition condition) { build(); super.setError(condition); }
    @Override public String toXML() { build(); return super.toXML(); }
    @Override public String toString() { build(); return super.toString(); }
    @Override public boolean isAvailable() { build(); return super.isAvailable(); }
    @Override public Type getType() { build(); return super.getType(); }
    @Override public void setType(Type type) { build(); super.setType(type); }
    @Override public Show getShow() { build(); return super.getShow(); }
    @Override public void setShow(Show show) { build(); super.setShow(show); }
    @Override public String getStatus() { build(); return super.getStatus(); }
    @Override public void setStatus(String status) { build(); super.setStatus(status); }
    @Override public int getPriority() { build(); return super.getPriority(); }
    @Override public void setPriority(int priority) { build(); super.setPriority(priority); }
    @Override public Element getChildElement(String name, String ns) { build(); return super.getChildElement(name, ns); }
    @Override public Element addChildElement(String name, String ns) { build(); return super.addChildElement(name, ns); }
}
