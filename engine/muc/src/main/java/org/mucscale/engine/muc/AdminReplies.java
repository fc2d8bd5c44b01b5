package org.mucscale.engine.muc;

import java.util.concurrent.ConcurrentHashMap;

import org.mucscale.engine.port.Delivery;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.RenderedStanza;
import org.mucscale.engine.stanza.XmlElement;

/**
 * The {@link Delivery} decorator that keeps the room-administration actor's stanzas inside the engine: what a room
 * answers to {@link RoomAdminBridge#ACTOR} is handed to the waiting administration call (by IQ or presence id) and
 * never reaches the host; everything else passes to the host's delivery untouched.
 *
 * <p>Cost on the fan-out path: one reference comparison per {@link #deliver} (the actor is an occupant only for the
 * moment of a room's creation, always under the one {@code ACTOR} instance). {@link #send} compares the {@code to}
 * attribute with the actor's address. Thread-safe: {@code waiting} is written by the room thread that runs an
 * administration script and read by the same thread when the room answers.
 */
final class AdminReplies implements Delivery {
    private final Delivery host;
    /** Ids of administration stanzas whose answer is awaited, each with the one-element slot that receives it. */
    private final ConcurrentHashMap<String, XmlElement[]> waiting = new ConcurrentHashMap<>();

    AdminReplies(Delivery host) {
        this.host = host;
    }

    void await(String id, XmlElement[] slot) {
        waiting.put(id, slot);
    }

    void forget(String id) {
        waiting.remove(id);
    }

    @Override
    public void deliver(RenderedStanza stanza, Jid recipient) {
        if (recipient == RoomAdminBridge.ACTOR) {
            return; // the actor's own presences while it creates a room: nobody reads them
        }
        host.deliver(stanza, recipient);
    }

    @Override
    public void send(XmlElement stanza) {
        if (RoomAdminBridge.ACTOR_TEXT.equals(stanza.attribute("to"))) {
            String id = stanza.attribute("id");
            XmlElement[] slot = id == null ? null : waiting.get(id);
            if (slot != null && slot[0] == null) {
                slot[0] = stanza;
            }
            return;
        }
        host.send(stanza);
    }

    @Override
    public void flush() {
        host.flush();
    }
}
