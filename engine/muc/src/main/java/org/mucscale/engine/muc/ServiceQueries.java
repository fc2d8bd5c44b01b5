package org.mucscale.engine.muc;

import java.util.Map;
import org.mucscale.engine.muc.Stanzas.Condition;
import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * What the service answers at its own address: disco#info (identity and features), disco#items (the public rooms,
 * cluster-wide when the placement knows them), ping; an error for anything else, and for a message sent to the
 * service instead of a room.
 *
 * <p>Stateless but for the service context, which it only reads; the caller's thread.
 */
final class ServiceQueries {
    private final ServiceContext ctx;

    ServiceQueries(ServiceContext ctx) {
        this.ctx = ctx;
    }

    /** Answers a stanza to the service's own address ({@code to} has no local part and no resource). */
    void answer(XmlElement stanza, Jid from, Jid to) {
        if (Stanzas.isError(stanza) || !stanza.name().equals("iq")) {
            if (stanza.name().equals("message") && !Stanzas.isError(stanza)) {
                sendError(stanza, to, from, Condition.SERVICE_UNAVAILABLE,
                        "send messages to a room, not to the service");
            }
            return;
        }
        String type = stanza.attribute("type");
        if (!"get".equals(type) && !"set".equals(type)) {
            return;
        }
        XmlElement payload = Stanzas.firstElement(stanza);
        String ns = payload == null || payload.namespace() == null ? "" : payload.namespace();
        boolean get = "get".equals(type);
        if (get && ns.equals(Stanzas.NS_DISCO_INFO) && payload.attribute("node") == null) {
            XmlElement q = XmlElement.builder("query", Stanzas.NS_DISCO_INFO)
                    .child(XmlElement.builder("identity").attribute("category", "conference")
                            .attribute("type", "text").attribute("name", ctx.config.serviceName).build())
                    .child(Stanzas.feature(Stanzas.NS_MUC))
                    .child(Stanzas.feature(Stanzas.NS_DISCO_INFO))
                    .child(Stanzas.feature(Stanzas.NS_DISCO_ITEMS))
                    .child(Stanzas.feature(Stanzas.NS_PING))
                    .child(Stanzas.feature(Stanzas.NS_SID))
                    .child(Stanzas.feature(Stanzas.NS_STABLE_ID))
                    .child(Stanzas.feature(Stanzas.NS_SELF_PING))
                    .build();
            ctx.delivery.send(Stanzas.result(stanza, to, from, q));
        } else if (get && ns.equals(Stanzas.NS_DISCO_ITEMS) && payload.attribute("node") == null) {
            XmlElement.Builder q = XmlElement.builder("query", Stanzas.NS_DISCO_ITEMS);
            Map<Jid, String> rooms = ctx.placement.publicRooms();
            for (Map.Entry<Jid, String> e : (rooms == null ? ctx.directory : rooms).entrySet()) {
                q.child(XmlElement.builder("item").attribute("jid", e.getKey().toString())
                        .attribute("name", e.getValue()).build());
            }
            ctx.delivery.send(Stanzas.result(stanza, to, from, q.build()));
        } else if (get && ns.equals(Stanzas.NS_PING)) {
            ctx.delivery.send(Stanzas.result(stanza, to, from, null));
        } else if (payload == null) {
            ctx.delivery.send(Stanzas.error(stanza, to, from, Condition.BAD_REQUEST, "an IQ needs a payload"));
        } else {
            ctx.delivery.send(Stanzas.error(stanza, to, from, Condition.SERVICE_UNAVAILABLE,
                    "the service does not support " + (ns.isEmpty() ? payload.name() : ns)));
        }
    }

    private void sendError(XmlElement stanza, Jid errorFrom, Jid to, Condition condition, String text) {
        Room.sendError(ctx, stanza, errorFrom, to, null, condition, text);
    }
}
