package org.mucscale.engine.muc;

import org.mucscale.engine.stanza.XmlElement;

/** The last N broadcast messages of a room, in memory. Owned by the room's shard thread. */
final class HistoryRing {
    private final XmlElement[] messages;
    private final long[] timestampsMillis;
    private final int[] chars;
    private int next;
    private int size;

    HistoryRing(int capacity) {
        messages = new XmlElement[capacity];
        timestampsMillis = new long[capacity];
        chars = new int[capacity];
    }

    void add(XmlElement message, long timestampMillis, int approximateChars) {
        if (messages.length == 0) {
            return;
        }
        messages[next] = message;
        timestampsMillis[next] = timestampMillis;
        chars[next] = approximateChars;
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

    private int index(int i) {
        return Math.floorMod(next - size + i, messages.length);
    }

    void clear() {
        java.util.Arrays.fill(messages, null);
        size = 0;
        next = 0;
    }
}
