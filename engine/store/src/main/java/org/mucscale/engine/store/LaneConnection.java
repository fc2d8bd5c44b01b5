package org.mucscale.engine.store;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One writer lane's way to its connections, so that a stop can end a database call that never returns: a server
 * that stopped answering without dropping the connection (paused, a stalled disk, a partition) leaves the lane's
 * thread blocked in a socket read no JDBC timeout set by the operator's pool bounds. {@link #cut} aborts the
 * connection in use ({@link Connection#abort}: the driver closes its socket, the blocked call fails at once) and
 * refuses every later {@link #lease}.
 *
 * <p>Threads: the lane leases and releases; the closing thread calls {@link #cut} once, which aborts on a thread of
 * its own, because a driver may block in abort (MariaDB Connector/J first sends KILL over a new connection to the
 * same, unanswering, server). {@code inUse} and {@code cut} are guarded by {@code this}: a lease is either refused or
 * seen by the abort, and the abort runs on the lane's connection before the lane can hand it back to the pool, so it
 * never hits a connection the pool lent to someone else meanwhile.
 */
final class LaneConnection {
    private static final Logger LOG = LoggerFactory.getLogger(LaneConnection.class);

    private final DataSource dataSource;
    private final String name;
    private Connection inUse;
    private boolean cut;

    LaneConnection(DataSource dataSource, String name) {
        this.dataSource = dataSource;
        this.name = name;
    }

    /** A pooled connection, recorded as in use until its lease is closed; refused once {@link #cut}. */
    Lease lease() throws SQLException {
        Connection c = dataSource.getConnection();
        synchronized (this) {
            if (!cut) {
                inUse = c;
                return new Lease(c);
            }
        }
        c.close();
        throw stopping();
    }

    /** Closing thread, at the drain deadline: aborts the connection in use, if any, and refuses further leases. */
    void cut() {
        Thread aborter = new Thread(this::abortInUse, name + "-abort");
        aborter.setDaemon(true);
        aborter.start();
    }

    private synchronized void abortInUse() {
        cut = true;
        if (inUse == null) {
            return;
        }
        try {
            // already on a thread of our own: the driver's abort work may run right here
            inUse.abort(Runnable::run);
            LOG.warn("mucscale store: {} was still in a database call at the drain deadline; its connection was"
                    + " aborted", name);
        } catch (SQLException | RuntimeException e) {
            LOG.warn("mucscale store: could not abort the connection of {} at the drain deadline ({}); the stop"
                    + " spills its batch after the grace", name, e.toString());
        }
    }

    private static SQLException stopping() {
        return new SQLTransientConnectionException("mucscale store is stopping: drain deadline passed", "08003");
    }

    /** A leased connection; closing it forgets it first (so no abort reaches it) and then returns it to the pool. */
    final class Lease implements AutoCloseable {
        private final Connection connection;

        private Lease(Connection connection) {
            this.connection = connection;
        }

        Connection connection() {
            return connection;
        }

        @Override
        public void close() throws SQLException {
            synchronized (LaneConnection.this) {
                if (inUse == connection) {
                    inUse = null;
                }
            }
            connection.close();
        }
    }
}
