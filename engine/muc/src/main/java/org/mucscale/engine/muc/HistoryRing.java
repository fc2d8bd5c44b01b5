package org.mucscale.engine.muc;

import org.mucscale.engine.stanza.XmlElement;

/** The last N broadcast messages of a room, in memory. Owned by the room's shard thread. */
final class HistoryRing {
    private final XmlElement[] messages;
    private final long[] timestampsMillis;
    private final int[] chars;
    /** The message's number in the room's replicated tail (0: not known, e.g. restored from the log). */
    private final long[] tailSeqs;
    private int next;
    private int size;

    HistoryRing(int capacity) {
        messages = new XmlElement[capacity];
        timestampsMillis = new long[capacity];
        chars = new int[capacity];
        tailSeqs = new long[capacity];
    }

    void add(XmlElement message, long timestampMillis, int approximateChars) {
        add(message, timestampMillis, approximateChars, 0);
    }

    void add(XmlElement message, long timestampMillis, int approximateChars, long tailSeq) {
        if (messages.length == 0) {
            return;
        }
        messages[next] = message;
        timestampsMillis[next] = timestampMillis;
        chars[next] = approximateChars;
        tailSeqs[next] = tailSeq;
        next = (next + 1) % messages.length;
        if (size < messages.length) {
            size++;
        }
    }

    int size() {
        return size;
    }

    /** i = 0 is the oldest kept message. */
    XmlElement message(int i) {
        return messages[index(i)];
    }

    long timestampMillis(int i) {
        return timestampsMillis[index(i)];
    }

    int chars(int i) {
        return chars[index(i)];
    }

    long tailSeq(int i) {
        return tailSeqs[index(i)];
    }

    /** Replaces a kept message in place (a moderator retracted it: its tombstone stays, with the same time). */
    void replace(int i, XmlElement message, int approximateChars) {
        messages[index(i)] = message;
        chars[index(i)] = approximateChars;
    }

    /** The position of the kept message with this room-assigned stanza id, or -1; newest first, no allocation. */
    int indexOfStanzaId(String stanzaId, String roomJid) {
        for (int i = size - 1; i >= 0; i--) {
            XmlElement sid = messages[index(i)].child("stanza-id", Stanzas.NS_SID);
            if (sid != null && stanzaId.equals(sid.attribute("id")) && roomJid.equals(sid.attribute("by"))) {
                return i;
            }
        }
        return -1;
    }

    private int index(int i) {
        return Math.floorMod(next - size + i, messages.length);
    }

    void clear() {
        java.util.Arrays.fill(messages, null);
        size = 0;
        next = 0;
    }
}
