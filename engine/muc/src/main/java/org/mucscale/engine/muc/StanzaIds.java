package org.mucscale.engine.muc;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Unique stanza ids (XEP-0359): a per-node prefix plus a counter in base32, e.g. {@code k3x9q-1a}. One shared
 * counter (a single atomic add per message, never per delivery); the prefix makes ids unique across restarts and
 * nodes because it includes the start time.
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

    String next() {
        long n = counter.incrementAndGet();
        StringBuilder sb = new StringBuilder(prefix.length() + 13);
        sb.append(prefix);
        appendBase32(sb, n);
        return sb.toString();
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
