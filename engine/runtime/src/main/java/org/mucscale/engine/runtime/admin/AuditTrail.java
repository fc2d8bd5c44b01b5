package org.mucscale.engine.runtime.admin;

import java.net.InetAddress;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every change made through the room-administration API: who (how it authenticated, never the secret), from where,
 * what (method and path), when and with what result. Kept in memory, the newest {@link #CAPACITY} entries (they go
 * with a restart; the database table the issue asks for is not built yet), and each one logged at INFO by
 * {@code org.mucscale.engine.runtime.admin.AuditTrail}, so a log shipper keeps them for longer. Thread-safe: the HTTP
 * threads append under this object's lock.
 */
public final class AuditTrail {
    private static final Logger LOG = LoggerFactory.getLogger(AuditTrail.class);
    static final int CAPACITY = 10_000;

    /** One change; {@code status} the HTTP status answered, {@code message} the refusal's text (null on success). */
    public record Entry(Instant at, String who, String from, String method, String path, int status,
                        String message) {
    }

    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private long changes;

    synchronized void add(Entry e) {
        if (entries.size() == CAPACITY) {
            entries.removeFirst();
        }
        entries.addLast(e);
        changes++;
        LOG.info("mucscale room administration: {} from {} {} {} -> {}{}", e.who(), e.from(), e.method(), e.path(),
                e.status(), e.message() == null ? "" : " (" + e.message() + ")");
    }

    /** The newest entries, newest first, at most {@code max}. */
    public synchronized List<Entry> newest(int max) {
        List<Entry> out = new ArrayList<>(Math.min(max, entries.size()));
        var it = entries.descendingIterator();
        while (it.hasNext() && out.size() < max) {
            out.add(it.next());
        }
        return out;
    }

    /** Changes recorded since start (for the dashboard). */
    public synchronized long changes() {
        return changes;
    }

    static String address(InetAddress a) {
        return a == null ? "?" : a.getHostAddress();
    }
}
