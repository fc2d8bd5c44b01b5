package org.mucscale.engine.muc;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Unique stanza ids (XEP-0359): a per-node prefix plus a counter in base32, e.g. {@code k3x9q-1a-000000000002a}.
 * One shared counter (a single atomic add per message, never per delivery); the prefix makes ids unique across
 * restarts and nodes because it includes the start time. The counter is zero-padded to 13 digits (all of a long), so
 * the ids of one service run sort in generation order as strings (the digits ascend in ASCII): the room log's key
 * (roomJid, logTime, stanzaId) then returns same-millisecond messages of a room in send order.
 */
final class StanzaIds {
    private static final char[] DIGITS = "0123456789abcdefghjkmnpqrstvwxyz".toCharArray();
    private final String prefix;
    private final AtomicLong counter = new AtomicLong();

    StanzaIds(String node, long startMillis) {
        StringBuilder sb = new StringBuilder(32);
        if (node.isEmpty()) {
            appendBase32(sb, new SecureRandom().nextInt() & 0x7fffffffL);
        } else {
            sb.append(node);
        }
        sb.append('-');
        appendBase32(sb, startMillis);
        sb.append('-');
        prefix = sb.toString();
    }

    /** Base-32 digits of a long: 64 bits / 5 bits per digit, rounded up. */
    static final int COUNTER_DIGITS = 13;

    String next() {
        long n = counter.incrementAndGet();
        char[] id = new char[prefix.length() + COUNTER_DIGITS];
        prefix.getChars(0, prefix.length(), id, 0);
        for (int i = id.length - 1; i >= prefix.length(); i--) {
            id[i] = DIGITS[(int) (n & 31)];
            n >>>= 5;
        }
        return new String(id);
    }

    private static void appendBase32(StringBuilder sb, long v) {
        char[] buf = new char[13];
        int i = buf.length;
        do {
            buf[--i] = DIGITS[(int) (v & 31)];
            v >>>= 5;
        } while (v != 0);
        sb.append(buf, i, buf.length - i);
    }
}
