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
    /** The cluster node the stanza entered at (null: this node), and how often it was forwarded to get here. */
    final String entryNode;
    final int hops;
    /** Sent again by its entry node after the room's previous owner left before confirming it: may be a repeat. */
    final boolean resent;
    /** The forward that brought it here (null: it entered at this node), and the one it repeats or continues (null:
     * none): a resend's original, or, for a stanza another node forwarded on, the forward that reached that node. */
    final Forwarded link;
    final Forwarded origin;

    Command(XmlElement stanza, Jid from, Jid to, Jid roomJid, long arrivalNs) {
        this(stanza, from, to, roomJid, arrivalNs, null, 0);
    }

    Command(XmlElement stanza, Jid from, Jid to, Jid roomJid, long arrivalNs, String entryNode, int hops) {
        this(stanza, from, to, roomJid, arrivalNs, entryNode, hops, false);
    }

    Command(XmlElement stanza, Jid from, Jid to, Jid roomJid, long arrivalNs, String entryNode, int hops,
            boolean resent) {
        this(stanza, from, to, roomJid, arrivalNs, entryNode, hops, resent, null, null);
    }

    Command(XmlElement stanza, Jid from, Jid to, Jid roomJid, long arrivalNs, String entryNode, int hops,
            boolean resent, Forwarded link, Forwarded origin) {
        this.resent = resent;
        this.link = link;
        this.origin = origin;
        this.stanza = stanza;
        this.from = from;
        this.to = to;
        this.roomJid = roomJid;
        this.arrivalNs = arrivalNs;
        this.task = null;
        this.entryNode = entryNode;
        this.hops = hops;
    }

    /** What a node that forwards this on says it continues: the forward it repeats, else the one that brought it. */
    Forwarded continues() {
        return origin != null ? origin : link;
    }

    Command(Consumer<RoomShard> task) {
        this.stanza = null;
        this.from = null;
        this.to = null;
        this.roomJid = null;
        this.arrivalNs = 0;
        this.task = task;
        this.entryNode = null;
        this.hops = 0;
        this.resent = false;
        this.link = null;
        this.origin = null;
    }
}
