package org.mucscale.engine.runtime.admin;

import java.net.InetAddress;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.mucscale.engine.store.AdminAuditLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every change made through the room-administration API or the admin pages: who (how it authenticated, never the
 * secret), from where, what (method and path), when and with what result.
 *
 * <p>Where it is kept: with a database (the room log store running), each entry is a row of {@code mucscaleAdminAudit}
 * written before {@link #add} returns, so it survives a restart and every node of a cluster sees the others' rows;
 * reads come from the table. The newest {@link #CAPACITY} entries are also kept in memory: without a database they
 * are the trail (gone at restart), and when a write fails the entry is still there, in the log at WARN, and counted
 * by {@link #failedWrites}. Each entry is also logged at INFO by this class, so a log shipper keeps them too.
 *
 * <p>Thread-safe: the HTTP threads append the memory copy under this object's lock; the database write is outside
 * it (the table's generated key orders concurrent writers).
 */
public final class AuditTrail {
    private static final Logger LOG = LoggerFactory.getLogger(AuditTrail.class);
    static final int CAPACITY = 10_000;

    /** One change; {@code status} the HTTP status answered, {@code message} the refusal's text (null on success). */
    public record Entry(Instant at, String who, String from, String method, String path, int status,
                        String message) {
    }

    private final AdminAuditLog database;
    /** Counts each entry for the dashboard and Prometheus; null until the engine sets it (set once). */
    private volatile org.mucscale.engine.metrics.MucScaleMetrics metrics;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private long changes;
    private long failedWrites;

    /** {@code database}: the table to keep the trail in, or null to keep it in memory only. */
    AuditTrail(AdminAuditLog database) {
        this.database = database;
    }

    void add(Entry e) {
        synchronized (this) {
            if (entries.size() == CAPACITY) {
                entries.removeFirst();
            }
            entries.addLast(e);
            changes++;
        }
        org.mucscale.engine.metrics.MucScaleMetrics m = metrics;
        if (m != null) {
            m.adminChange(e.status() >= 400);
        }
        LOG.info("mucscale room administration: {} from {} {} {} -> {}{}", e.who(), e.from(), e.method(), e.path(),
                e.status(), e.message() == null ? "" : " (" + e.message() + ")");
        if (database != null) {
            try {
                database.append(new AdminAuditLog.Row(e.at().toEpochMilli(), e.who(), e.from(), e.method(), e.path(),
                        e.status(), e.message()));
            } catch (SQLException | RuntimeException ex) {
                synchronized (this) {
                    failedWrites++;
                }
                LOG.warn("mucscale room administration: the audit entry ({} {} by {}) could not be written to"
                        + " mucscaleAdminAudit, kept in memory only: {}", e.method(), e.path(), e.who(), ex.toString());
            }
        }
    }

    /** The newest entries, newest first, at most {@code max}: from the database when there is one. */
    public List<Entry> newest(int max) {
        if (database != null) {
            try {
                List<Entry> out = new ArrayList<>();
                for (AdminAuditLog.Row r : database.newest(max)) {
                    out.add(new Entry(Instant.ofEpochMilli(r.atMillis()), r.who(), r.from(), r.method(), r.path(),
                            r.status(), r.message()));
                }
                return out;
            } catch (SQLException | RuntimeException ex) {
                LOG.warn("mucscale room administration: the audit trail could not be read from mucscaleAdminAudit,"
                        + " showing this node's memory copy: {}", ex.toString());
            }
        }
        return newestInMemory(max);
    }

    synchronized List<Entry> newestInMemory(int max) {
        List<Entry> out = new ArrayList<>(Math.min(max, entries.size()));
        var it = entries.descendingIterator();
        while (it.hasNext() && out.size() < max) {
            out.add(it.next());
        }
        return out;
    }

    /** Counts every entry from now on in {@code m} ({@code mucscale.admin.changes}, {@code .refusals}). */
    public void countIn(org.mucscale.engine.metrics.MucScaleMetrics m) {
        this.metrics = m;
    }

    /** Whether the trail is kept in the database (else in memory only). */
    public boolean persistent() {
        return database != null;
    }

    /** Changes recorded by this node since start (for the dashboard). */
    public synchronized long changes() {
        return changes;
    }

    /** Entries this node could not write to the database (each kept in memory and logged at WARN). */
    public synchronized long failedWrites() {
        return failedWrites;
    }

    static String address(InetAddress a) {
        return a == null ? "?" : a.getHostAddress();
    }
}
