package org.mucscale.engine.muc;

import java.util.function.Consumer;

import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/** One unit of work for a room shard: an inbound stanza, or an internal task run on the shard thread. */
final class Command {
    final XmlElement stanza;
    final Jid from;
    final Jid to;
    final Jid roomJid;
    final long arrivalNs;
    final Consumer<RoomShard> task;

    Command(XmlElement stanza, Jid from, Jid to, Jid roomJid, long arrivalNs) {
        this.stanza = stanza;
        this.from = from;
        this.to = to;
        this.roomJid = roomJid;
        this.arrivalNs = arrivalNs;
        this.task = null;
    }

    Command(Consumer<RoomShard> task) {
        this.stanza = null;
        this.from = null;
        this.to = null;
        this.roomJid = null;
        this.arrivalNs = 0;
        this.task = task;
    }
}
