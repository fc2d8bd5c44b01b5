package org.mucscale.engine.cluster;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.mucscale.engine.stanza.Jid;
import org.mucscale.engine.stanza.XmlElement;

/**
 * Groupchat messages this node forwarded to an owner, until the owner confirms them (per owner;
 * room threads and transport threads add, the owner's confirmations remove). Transport messages are at most once
 * and a node that stops (inside Openfire: with no moment to hand its rooms over) drops what it had not handled, so
 * the entry node keeps each message until the owner says it is handled and replicated, and sends the rest again
 * to the rooms' new owners if the owner leaves first. Only messages with a stanza id are kept: the new owner
 * skips the ones its predecessor had accepted by (sender, id), and without an id a repeat could not be told apart.
 */
final class Unconfirmed {
    private final int limit;
    private final java.util.ArrayDeque<Kept> kept = new java.util.ArrayDeque<>();
    private long confirmedUpTo = -1;
    private long letGo;
    private boolean departed;

    record Kept(long seq, Jid room, String entryNode, XmlElement stanza) {
    }

    Unconfirmed(int limit) {
        this.limit = limit;
    }

    static boolean keeps(XmlElement stanza) {
        return "message".equals(stanza.name()) && "groupchat".equals(stanza.attribute("type"))
                && stanza.attribute("id") != null;
    }

    /** False if the owner left (what it kept is being resent): the caller routes the stanza again. */
    synchronized boolean add(long seq, Jid room, String entryNode, XmlElement stanza) {
        if (departed) {
            return false;
        }
        if (kept.size() >= limit) {
            kept.pollFirst();
            letGo++;
        }
        kept.addLast(new Kept(seq, room, entryNode, stanza));
        return true;
    }

    /** The owner handled everything up to {@code upTo} (sequence numbers are added nearly, not strictly, in order). */
    synchronized void confirm(long upTo) {
        confirmedUpTo = Math.max(confirmedUpTo, upTo);
        while (!kept.isEmpty() && kept.peekFirst().seq() <= confirmedUpTo) {
            kept.pollFirst();
        }
    }

    /** What was never confirmed, in sending order; empties this and refuses later additions. */
    synchronized List<Kept> takeUnconfirmed() {
        departed = true;
        List<Kept> out = new ArrayList<>(kept.size());
        for (Kept k : kept) {
            if (k.seq() > confirmedUpTo) {
                out.add(k);
            }
        }
        kept.clear();
        out.sort(Comparator.comparingLong(Kept::seq));
        return out;
    }

    synchronized int size() {
        return kept.size();
    }

    synchronized boolean departed() {
        return departed;
    }

    synchronized long letGo() {
        return letGo;
    }
}
