package org.mucscale.openfire;

import java.util.function.Consumer;
import org.mucscale.engine.stanza.XmlElement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xmpp.component.Component;
import org.xmpp.component.ComponentException;
import org.xmpp.component.ComponentManager;
import org.xmpp.component.ComponentManagerFactory;
import org.xmpp.packet.JID;
import org.xmpp.packet.Packet;

/**
 * The MUC Scale group chat service as an internal Openfire component on its own subdomain
 * ({@code mucscale.openfire.subdomain}, e.g. {@code mucscale.example.org}). Openfire calls {@link #processPacket}
 * inline on the routing thread; the packet is converted to the engine's {@link XmlElement} and handed to the engine,
 * which queues it for the room's thread and returns at once.
 *
 * <p>Concurrency: {@link #processPacket} is called by any Openfire thread; the target is a volatile field set before
 * registration and cleared on close.
 */
public final class MucScaleComponent implements Component {

    private static final Logger LOG = LoggerFactory.getLogger(MucScaleComponent.class);

    private volatile Consumer<XmlElement> engine;
    private volatile JID address;

    private MucScaleComponent(Consumer<XmlElement> engine) {
        this.engine = engine;
    }

    /**
     * Registers a component for {@code subdomain} that feeds {@code engine}; closing the handle removes it from
     * Openfire and stops feeding the engine.
     */
    public static AutoCloseable register(String subdomain, Consumer<XmlElement> engine) throws ComponentException {
        ComponentManager manager = ComponentManagerFactory.getComponentManager();
        MucScaleComponent component = new MucScaleComponent(engine);
        manager.addComponent(subdomain, component);
        return () -> {
            component.engine = null;
            manager.removeComponent(subdomain);
        };
    }

    @Override
    public String getName() {
        return "MUC Scale";
    }

    @Override
    public String getDescription() {
        return "MUC Scale high-throughput group chat service";
    }

    @Override
    public void processPacket(Packet packet) {
        Consumer<XmlElement> target = engine;
        if (target == null) {
            return;
        }
        XmlElement stanza;
        try {
            stanza = StanzaConversion.fromPacket(packet);
        } catch (RuntimeException e) {
            LOG.warn("MUC Scale could not read a stanza from {}: {}", packet.getFrom(), e.getMessage());
            return;
        }
        target.accept(stanza);
    }

    @Override
    public void initialize(JID jid, ComponentManager componentManager) {
        this.address = jid;
    }

    @Override
    public void start() {
        LOG.info("MUC Scale service available at {}", address);
    }

    @Override
    public void shutdown() {
        // The engine is stopped by the plugin's lifecycle, after the component is removed.
    }
}
